"""SL60x: a skill's agents/openai.yaml as Codex reads it (docs/surfaces.md §3b)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ...diagnostics import Finding, Severity
from ...rule import Rule, RuleContext, severities

if TYPE_CHECKING:  # types only: the analysis is imported by the rule that runs it
    from ...skill.openai_yaml.reader import Issue, OpenAIYaml


class _OpenAIYamlRule(Rule):
    kinds: frozenset[str] = frozenset()

    def check(self, package, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.openai_yaml.reader import load

        model = load(package)
        for issue in model.issues:
            if issue.kind in self.kinds:
                finding = self.finding(issue, model, package)
                if finding is not None:
                    finding.path = model.path
                    yield finding

    def finding(self, issue: Issue, model: OpenAIYaml, package) -> Finding | None:  # pragma: no cover
        raise NotImplementedError


class OpenAIYamlInvalid(_OpenAIYamlRule):
    code = "SL601"
    name = "openai-yaml-invalid"
    summary = "agents/openai.yaml cannot be read by Codex (not YAML, not a mapping, a repeated field, misnamed): the whole file is ignored"
    severity = severities("warning: codex")
    kinds = frozenset({"syntax", "not-utf8", "not-mapping", "duplicate", "unreadable", "too-large", "misnamed", "not-a-file"})

    def finding(self, issue: Issue, model: OpenAIYaml, package) -> Finding | None:
        from ...skill.openai_yaml.reader import RELPATH
        from ...skill.openai_yaml.wording import FILE, whole_file

        facts = issue.facts
        if issue.kind == "syntax":
            message = f"{FILE} is not valid YAML ({facts['problem']}): {whole_file(model)}"
        elif issue.kind == "not-utf8":
            message = (
                f"{FILE} is not UTF-8 text (an invalid byte at offset {facts['offset']}): Codex fails to read it "
                "and ignores the whole file (`ignoring …: failed to read openai.yaml`)"
            )
        elif issue.kind == "not-mapping":
            message = (
                f"{FILE} holds {facts['found']}, not a mapping of `interface`, `dependencies` and `policy`: "
                + whole_file(model)
            )
        elif issue.kind == "duplicate":
            where = f" in `{facts['section']}`" if facts.get("section") else ""
            message = (
                f"`{facts['key']}` is written twice{where} (first on line {facts['first_line']}): Codex's reader "
                f"(serde) rejects a repeated field (`duplicate field `{facts['key']}``), so {whole_file(model)}; "
                "keep one"
            )
        elif issue.kind == "unreadable":
            message = f"{FILE} cannot be read ({facts['reason']}): Codex ignores it"
        elif issue.kind == "too-large" and "nodes" in facts:
            message = (
                f"{FILE} is written with more than {facts['nodes']:,} YAML nodes, over skilllint's cap "
                "(agent manifests hold a few dozen): it was not checked"
            )
        elif issue.kind == "too-large":
            message = (
                f"{FILE} is {facts['size']:,} bytes, over skilllint's {facts['cap']:,}-byte read cap (SL011's "
                "`max-bytes`): it was not checked"
            )
        elif issue.kind == "misnamed":
            message = (
                f"`{facts['name']}` is not read by Codex, which opens only `{RELPATH}` (exactly that name): "
                f"everything in it is ignored; rename it to `{RELPATH}`"
            )
        else:  # not-a-file
            message = f"{FILE} is a {facts['what']}, not a file: Codex ignores it"
        return Finding(message, issue.span)


class OpenAIYamlField(_OpenAIYamlRule):
    code = "SL602"
    name = "openai-yaml-field"
    summary = "A field of agents/openai.yaml that Codex drops (over its length limit, empty, the wrong type) or ignores (unknown key)"
    severity = severities("warning: codex")
    kinds = frozenset({"type", "unknown-key", "empty", "too-long"})

    def finding(self, issue: Issue, model: OpenAIYaml, package) -> Finding | None:
        from ...skill.openai_yaml.reader import RELPATH
        from ...skill.openai_yaml.wording import FILE, generic, whole_file

        facts = issue.facts
        field = issue.field
        if issue.kind == "type":
            where = f"`{field}`" if field else f"The top level of {FILE}"
            message = f"{where} is {facts['found']}, where Codex expects {facts['expected']}: "
            if facts.get("positional"):
                message += (
                    "serde would take the list's items as the fields in declaration order, which is almost "
                    "certainly not what was meant; write a mapping of named fields"
                )
            else:
                message += whole_file(model)
            return Finding(message, issue.span)
        if issue.kind == "unknown-key":
            if facts.get("merge"):
                message = (
                    f"`<<` (a YAML merge key) in `{facts['section'] or RELPATH}` is not applied by Codex's YAML reader "
                    "(serde_yaml): it is an unknown key, so the fields it would merge are ignored; write them out"
                )
                return Finding(message, issue.span)
            message = f"`{field}` is not a field Codex reads: it is ignored"
            if facts.get("suggestion"):
                message += f"; did you mean `{facts['suggestion']}`?"
            elif facts.get("home"):
                message += f"; `{facts['key']}` belongs under `{facts['home']}:`"
            return Finding(message, issue.span, severities={"codex": Severity.INFO})
        entry = " and with it this whole `dependencies.tools` entry" if facts.get("entry_dropped") else ""
        if issue.kind == "empty":
            message = f"`{field}` is empty: Codex drops it{entry} (`ignoring {generic(field)}: value is empty`)"
        else:  # too-long
            after = " once its whitespace is collapsed" if facts.get("collapsed") else ""
            message = (
                f"`{field}` is {facts['length']:,} characters{after}, over Codex's {facts['limit']:,}-character limit: "
                f"Codex drops it{entry} (`ignoring {generic(field)}: exceeds maximum length of {facts['limit']} characters`)"
            )
        return Finding(message, issue.span)


class OpenAIYamlBrandColor(_OpenAIYamlRule):
    code = "SL603"
    name = "openai-yaml-brand-color"
    summary = "interface.brand_color is not #RRGGBB, so Codex drops it"
    severity = severities("warning: codex")
    kinds = frozenset({"color"})

    def finding(self, issue: Issue, model: OpenAIYaml, package) -> Finding | None:
        from ...skill.openai_yaml.wording import color_hint

        facts = issue.facts
        value = facts.get("value", "")
        if facts["reason"] == "comment":
            message = (
                f"`brand_color: {value}` is read as an empty value: an unquoted `#` starts a YAML comment, so "
                f"Codex sees no brand colour; quote it (`brand_color: \"{value}\"`)"
            )
        elif facts["reason"] == "empty":
            message = f"`{issue.field}` is empty: Codex drops it (`ignoring {issue.field}: value is empty`)"
        else:
            message = (
                f"`{issue.field}` is '{value}', not `#RRGGBB` (`#` and six hexadecimal digits): Codex drops it "
                f"(`ignoring {issue.field}: expected #RRGGBB, got {value}`)"
            )
            hint = color_hint(value)
            if hint:
                message += f"; {hint}"
        return Finding(message, issue.span)


class OpenAIYamlIcon(_OpenAIYamlRule):
    code = "SL604"
    name = "openai-yaml-icon"
    summary = "An icon path in agents/openai.yaml that Codex ignores (absolute, not under assets/) or that names no file"
    severity = severities("warning: codex")
    kinds = frozenset({"icon"})

    def finding(self, issue: Issue, model: OpenAIYaml, package) -> Finding | None:
        facts = issue.facts
        field, value, reason = issue.field, facts.get("value", ""), facts["reason"]
        if reason == "empty":
            message = f"`{field}` is empty: Codex ignores it"
        elif reason == "absolute":
            message = (
                f"`{field}` is an absolute path ('{value}'): Codex ignores it (`ignoring {field}: icon must be a "
                "relative assets path`); put the icon in the skill's `assets/` folder and write `./assets/…`"
            )
        elif reason == "not-assets":
            message = (
                f"`{field}` ('{value}') is not under `assets/`: Codex ignores it (`ignoring {field}: icon path must "
                "be under assets/`)"
            )
            if facts.get("backslash"):
                message += "; separate folders with `/`, not `\\`"
            elif facts.get("case"):
                message += "; the folder must be spelled `assets` exactly"
            else:
                message += "; move the icon into the skill's `assets/` folder"
        elif reason == "dotdot":
            message = (
                f"`{field}` ('{value}') contains `..`: outside a Codex plugin Codex ignores it (`ignoring {field}: "
                "icon path must not contain '..'`); keep the icon in the skill's `assets/` folder"
            )
        elif reason == "dotdot-plugin":
            message = (
                f"`{field}` ('{value}') does not lead into the plugin's `assets/` folder: Codex ignores it "
                f"(`ignoring {field}: icon path with '..' must resolve under plugin assets/`)"
            )
        elif reason == "missing":
            message = (
                f"`{field}` names `{facts['rel']}`, which does not exist in the skill: Codex keeps the path, but "
                "there is no image to show"
            )
            if facts.get("variant"):
                message += f"; did you mean `{facts['variant']}`? (letter case matters on Linux and in archives)"
        elif reason == "folder":
            message = f"`{field}` names `{value}`, a folder, not an image: there is no icon to show"
        else:  # outside
            message = (
                f"`{field}` ('{value}') leads through a symbolic link to a place outside the skill: a copy of the "
                "skill installed elsewhere has no icon (SL401)"
            )
        return Finding(message, issue.span)


class OpenAIYamlDependency(_OpenAIYamlRule):
    code = "SL605"
    name = "openai-yaml-dependency"
    summary = "A dependencies.tools entry Codex drops (no type or value) or that is not an mcp dependency"
    severity = severities("warning: codex")
    kinds = frozenset({"tool-missing", "tool-type"})

    def finding(self, issue: Issue, model: OpenAIYaml, package) -> Finding | None:
        facts = issue.facts
        if issue.kind == "tool-missing":
            missing = facts["missing"]
            names = " or ".join(f"`{m}`" for m in missing)
            message = (
                f"this `dependencies.tools` entry (`{issue.field}`) has no {names}: Codex drops the whole entry "
                f"(`ignoring dependencies.tools.{missing[0]}: value is missing`)"
            )
            return Finding(message, issue.span)
        value = facts["value"]
        message = (
            f"`{issue.field}` is '{value}': Codex documents only `mcp` dependencies for now (openai_yaml.md), so "
            "it keeps this entry as documentation only"
        )
        if value.casefold() == "mcp":
            message += "; write `mcp` in lower case"
        return Finding(message, issue.span, severities={"codex": Severity.INFO})


class OpenAIYamlPolicy(_OpenAIYamlRule):
    code = "SL606"
    name = "openai-yaml-policy"
    summary = "policy.allow_implicit_invocation is not a boolean, so Codex ignores the whole agents/openai.yaml"
    severity = severities("warning: codex")
    kinds = frozenset({"policy-type"})

    def finding(self, issue: Issue, model: OpenAIYaml, package) -> Finding | None:
        from ...skill.openai_yaml.wording import FILE, mention

        facts = issue.facts
        value = (facts.get("value") or "").strip().casefold()
        message = (
            f"`{issue.field}` is {facts['found']}, not a boolean: Codex's reader takes only a plain `true` or "
            f"`false` here, so it ignores the whole {FILE} (interface and dependencies too) and the skill stays "
            "in its model-visible catalog"
        )
        if value in ("false", "no", "off", "n", "0"):
            message += (
                "; write `allow_implicit_invocation: false` unquoted to take the skill out of Codex's model-visible "
                f"catalog (it can still be invoked as `{mention(package)}`)"
            )
        elif value in ("true", "yes", "on", "y", "1"):
            message += "; write `true` unquoted, or drop the line (true is the default)"
        else:
            message += (
                "; `false` takes the skill out of Codex's model-visible catalog (it can still be invoked as "
                f"`{mention(package)}`), `true` (the default) keeps it there"
            )
        return Finding(message, issue.span)


RULES = [OpenAIYamlInvalid, OpenAIYamlField, OpenAIYamlBrandColor, OpenAIYamlIcon, OpenAIYamlDependency, OpenAIYamlPolicy]
