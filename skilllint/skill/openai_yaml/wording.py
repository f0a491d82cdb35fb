"""How the SL6xx rules word agents/openai.yaml's issues for Codex (docs/surfaces.md §3b).

The model is :mod:`skilllint.skill.openai_yaml.reader` (serde_yaml's reading of the file, the
limits of Codex's loader); these rules only word its issues. Every finding points
into agents/openai.yaml. Codex never refuses a skill over this file: it ignores the
whole file, or drops one value, and logs a warning nobody reads.
"""

from __future__ import annotations

import re

from .reader import RELPATH, OpenAIYaml
from ...targets import TARGETS

FILE = f"`{RELPATH}`"


def whole_file(model: OpenAIYaml) -> str:
    """What Codex does when serde cannot read the file, and what the author loses."""
    text = (
        "Codex cannot read the file and ignores all of it (its log says `ignoring …: invalid openai.yaml`), "
        "so the interface, dependencies and policy it sets are lost"
    )
    if model.says_false:
        text += (
            ", including `allow_implicit_invocation: false`: the skill stays in Codex's model-visible catalog"
        )
    return text


def mention(package) -> str:
    """How the skill is invoked explicitly in Codex: ``$name`` (its name as Codex reads it)."""
    mapping = package.view(TARGETS["codex"]).mapping
    name = mapping.get("name") if mapping is not None else None
    name = " ".join(name.split()) if isinstance(name, str) else ""
    return f"${name or package.folder_name}"  # Codex falls back to the folder name


def generic(field: str) -> str:
    """``dependencies.tools[1].type`` as Codex's log names it (``dependencies.tools.type``)."""
    return re.sub(r"\[\d+\]", "", field)


def color_hint(value: str) -> str | None:
    if re.fullmatch(r"#[0-9A-Fa-f]{3}", value):
        return "write the six-digit form `#" + "".join(c * 2 for c in value[1:]) + "`"
    if re.fullmatch(r"[0-9A-Fa-f]{6}", value):
        return f"add the `#`: `#{value}`"
    if re.fullmatch(r"#[0-9A-Fa-f]{8}", value):
        return f"drop the alpha digits: `{value[:7]}`"
    return None
