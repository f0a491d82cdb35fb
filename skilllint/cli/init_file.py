"""``skilllint init [FOLDER]``: write a commented starting ``skilllint.toml``.

The targets are inferred from the skills of the folder as a run infers them
(:meth:`skilllint.config.settings.Settings.targets_for`, that is
:meth:`skilllint.discovery.units.InstallUnits.targets`): when every skill there implies the same
targets, the file names them, so the configuration says what the run does; when
skills in different places imply different ones, inference is left on and the
file lists what it infers where. Every other setting is written as a comment at
its default, so the file loads back to the settings a run has without it (plus
the targets). An existing configuration of the folder is never overwritten.
"""

from __future__ import annotations

import os
from pathlib import Path

from .. import HOMEPAGE
from ..output import display_path, printable, tell

SCHEMA_PATH = "skilllint/schemas/config.schema.json"  # in the repository and in the installed package


def schema_line() -> str:
    """The first line of a new configuration: a ``#:schema`` line editors (taplo, Even Better TOML)
    complete and check the keys with, where the project has a public home; else how to make one
    that works offline."""
    if HOMEPAGE:
        return f"#:schema {HOMEPAGE}/raw/main/{SCHEMA_PATH}"
    return "# For completion in an editor: `skilllint config --schema > .skilllint.schema.json`, then a first line `#:schema ./.skilllint.schema.json`."

CONFIG_NAME = "skilllint.toml"

_REST = """
# Rules: codes or prefixes; "ALL" also enables the opt-in rules (`skilllint rule --all`).
# select = ["SL"]
# extend-select = ["SL203"]
# ignore = ["SL131"]

# Folders not searched for skills (gitignore-style, relative to this file).
# exclude = ["vendor/"]

# The lowest severity that makes `skilllint check` exit 1: error, warning or info.
# fail-on = "error"

# [per-file-ignores]
# "legacy/**" = ["SL1"]

# [rules.SL201]          # by code or by name (skill-md-too-long)
# severity = "error"
# max-lines = 500

# [catalog]
# context-window = 200000  # the model's, for the catalog budget rules (SL501-SL503)
"""


def starting_config(folder: Path) -> tuple[str, tuple[str, ...] | None, int]:
    """(the file's text, the targets it names or None, how many skills were found)."""
    from ..config.settings import settings_from
    from ..discovery.walk import discover
    from ..skill.package import SkillPackage
    from ..registry import registry

    settings = settings_from(registry(), None, folder)
    found = discover([str(folder)], folder, use_gitignore=settings.respect_gitignore)
    inferred: dict[tuple[str, ...], list[str]] = {}  # targets -> the skills that imply them
    for item in found.packages:
        package = SkillPackage(item.root, item.lint_root, real_root=item.real, listing=item.names)
        ids = tuple(target.id for target in settings.targets_for(package))
        inferred.setdefault(ids, []).append(display_path(item.root, folder))
    lines = [
        schema_line(),
        "# skilllint configuration: `skilllint config --schema` lists every key; `skilllint config --show` prints what applies.",
        "",
        "# The surfaces each skill is checked against (`skilllint check --show-files` lists them per skill).",
    ]
    targets = None
    if len(inferred) == 1:
        (targets, where), = inferred.items()
        lines.append(f"# Inferred from where the {len(where)} skill{'s' if len(where) != 1 else ''} of this folder lie, e.g. {where[0]}.")
        lines.append("targets = [" + ", ".join(f'"{t}"' for t in targets) + "]")
    elif inferred:
        lines.append("# Left out: inferred from each skill's location, which differ here:")
        for ids, where in sorted(inferred.items()):
            more = f" and {len(where) - 1} more" if len(where) > 1 else ""
            lines.append(f"#   {', '.join(ids)}: {where[0]}{more}")
        lines.append('# targets = ["agentskills"]')
    else:
        lines.append("# No skill found yet: inferred from each skill's location.")
        lines.append('# targets = ["agentskills"]')
    return "\n".join(lines) + "\n" + _REST, targets, len(found.packages)


def existing_config(folder: Path) -> Path | None:
    """The configuration file ``folder`` has already (a ``pyproject.toml`` counts when it has
    a ``[tool.skilllint]`` table): a new one would be overwritten or would shadow it."""
    from ..config.settings import CONFIG_NAMES, ConfigError, _load_toml

    for name in CONFIG_NAMES:
        path = folder / name
        if not os.path.lexists(path):
            continue
        if name != "pyproject.toml":
            return path
        try:
            if "skilllint" in _load_toml(path).get("tool", {}):
                return path
        except ConfigError:
            return path  # unreadable: not ours to judge, nor to shadow
    return None


def init(where: str, cwd: Path) -> int:
    """Write ``skilllint.toml`` in ``where``; the exit status (2: not written)."""
    folder = Path(os.path.normpath(os.path.join(cwd, where)))
    if not os.path.isdir(folder):
        tell("error", f"{where}: not a folder")
        return 2
    existing = existing_config(folder)
    if existing is not None:
        tell("error", f"{display_path(existing, cwd)} exists already; skilllint init never overwrites a configuration")
        return 2
    from ..discovery.walk import DiscoveryError

    try:
        text, targets, count = starting_config(folder)
    except DiscoveryError as exc:
        tell("error", str(exc))
        return 2
    path = folder / CONFIG_NAME
    try:  # O_EXCL: never through a link, never over a file that appeared meanwhile
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            stream.write(text)
    except OSError as exc:
        tell("error", f"cannot write {display_path(path, cwd)}: {exc.strerror or exc}")
        return 2
    said = f"targets {', '.join(targets)}" if targets else "targets inferred per skill"
    print(printable(f"Wrote {display_path(path, cwd)} ({count} skill{'s' if count != 1 else ''} found; {said})."))
    return 0
