"""The public rule API: what a rule declares and what it is given.

A rule is a class. Its class attributes say what it is (``code``, ``name``, ``summary``,
``severity``), what it can do (``fixable``, ``options``) and how the engine schedules it
(``needs_skill_md``, ``content_rule``, ``cacheable``, ``catalog_rule``,
``reads_suppressions``), and what it does for the engine besides (``tree_links``,
``read_cap_option``): the engine finds such a rule by what it declares, never by its code.
Every attribute the engine reads is declared here with its
default, and checked when a subclass is defined: a wrong type or value raises
:class:`TypeError` naming the class, at import, rather than a misbehaving run later.

- :class:`PackageRule` (``Rule`` is the same contract): ``check(package, ctx)`` yields
  findings about one skill package.
- :class:`FieldRule`: a package rule that judges each target's view of the frontmatter
  with ``judge``; findings that targets share are merged once, here.
- :class:`CatalogRule`: ``check_catalog(catalog, ctx)`` yields ``(package, finding)``
  pairs about the skills a surface lists together.

There is one way to report: ``check`` yields findings (:class:`~skilllint.diagnostics.Finding`, with
``targets`` when a finding holds for some of the rule's targets only). A rule whose verdict
differs per target builds those findings with :class:`Outcome` and :func:`emit`: an Outcome
per target, and ``emit`` turns them into one Finding per distinct problem, naming the targets
that share it (what :class:`FieldRule` does for its ``judge``). That is how such findings are
built, not a second way to report.

Third-party rules subclass these and are registered through the ``skilllint.rules``
entry-point group (:mod:`skilllint.registry`, which re-exports ``Rule`` and
``RuleContext`` for rules written against it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterator

from .diagnostics import Finding, Severity, Span
from .targets import TARGETS, Target

if TYPE_CHECKING:
    from .skill.package import FrontmatterView, SkillPackage


def severities(spec: str) -> dict[str, Severity]:
    """Parse a severity table written as in the rule book.

    ``"error: agentskills skills-ref; info: claude-code codex"``; ``all`` means
    every target not named elsewhere in the table.
    """
    table: dict[str, Severity] = {}
    rest: Severity | None = None
    for part in spec.split(";"):
        level, _, names = part.partition(":")
        severity = Severity.parse(level)
        for name in names.split():
            if name == "all":
                rest = severity
            elif name not in TARGETS:
                raise ValueError(f"unknown target {name!r} in severity table {spec!r}")
            else:
                table[name] = severity
    if rest is not None:
        for name in TARGETS:
            table.setdefault(name, rest)
    return table


_JSON_TYPES = {int: "integer", float: "number", str: "string", bool: "boolean"}


@dataclass(frozen=True)
class Option:
    """One configurable option of a rule: its type, default and description in one place.

    The configuration schema (``skilllint config --schema``) and the defaults a run starts
    from are both derived from it. ``choices`` makes a string option an enumeration;
    ``minimum``, ``exclusive_minimum`` and ``maximum`` bound a number."""

    type: type
    default: Any
    description: str
    minimum: int | float | None = None
    exclusive_minimum: int | float | None = None
    maximum: int | float | None = None
    choices: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.type not in _JSON_TYPES:
            raise TypeError(f"option type {self.type!r} is not one of int, float, str, bool")
        if self.choices is not None:
            object.__setattr__(self, "choices", tuple(self.choices))
        problem = self.problem(self.default)
        if problem:
            raise TypeError(f"option default {self.default!r}: {problem}")

    def problem(self, value: Any) -> str | None:
        """Why ``value`` is not a valid value of this option, else None."""
        number = self.type in (int, float)
        ok_type = (
            isinstance(value, (int, float)) and not isinstance(value, bool) and (self.type is float or isinstance(value, int))
            if number
            else isinstance(value, self.type)
        )
        if not ok_type:
            return f"not {_JSON_TYPES[self.type]}"
        if self.choices is not None and value not in self.choices:
            return f"not one of {list(self.choices)}"
        if self.minimum is not None and value < self.minimum:
            return f"below the minimum {self.minimum}"
        if self.exclusive_minimum is not None and value <= self.exclusive_minimum:
            return f"not above {self.exclusive_minimum}"
        if self.maximum is not None and value > self.maximum:
            return f"above the maximum {self.maximum}"
        return None

    def schema(self) -> dict[str, Any]:
        """The option's JSON Schema."""
        out: dict[str, Any] = {}
        if self.choices is not None:
            out["enum"] = list(self.choices)
        else:
            out["type"] = _JSON_TYPES[self.type]
        if self.exclusive_minimum is not None:
            out["exclusiveMinimum"] = self.exclusive_minimum
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        out["description"] = self.description
        return out


@dataclass
class RuleContext:
    """What a rule sees besides the package: its targets and options."""

    targets: tuple[Target, ...]  # selected targets the rule applies to
    options: dict[str, Any]
    settings: Any = None  # the resolved Settings (token encoding, etc.)
    memo: dict = field(default_factory=dict)  # per-package scratch shared by rules
    kept: Any = None  # catalog rules: a mapping of costly answers kept between runs (JSON values), or None
    admission: Any = None  # the engine's cap on this rule's findings per file (see admits), or None
    # rules with ``reads_suppressions`` (SL901), run after the others: what SKILL.md's suppression
    # comments silenced in this pass, and which rules ran (package_lint._SuppressionRun), else None
    suppressions: Any = None

    @property
    def target_ids(self) -> tuple[str, ...]:
        return tuple(t.id for t in self.targets)

    def admits(
        self,
        path: Any = None,
        line: int = 1,
        severities: dict[str, Severity] | None = None,
        targets: tuple[str, ...] | None = None,
    ) -> bool:
        """Whether a finding at ``path`` (None: SKILL.md) and ``line``, with the ``severities``
        and ``targets`` its :class:`Finding` would carry, would still be reported.

        The engine reports at most a set number of a rule's findings per file
        (:mod:`skilllint.findingcap`) and counts the rest as left out. A rule that can
        yield many findings asks before building each one (messages, suggestions, fixes
        cost time) and skips it when the answer is False: the engine has counted it then.
        False too for a finding suppressed there. Rules that never ask are capped all
        the same, as their findings arrive."""
        return self.admission is None or self.admission(path, line, severities, targets)


@dataclass(frozen=True)
class Outcome:
    """One target's verdict on one problem.

    ``message`` states the problem; targets whose ``message`` and ``span`` agree
    share one finding. ``effect`` says what this target does about it (joined
    after the message, per target when they differ). ``ref_message`` is the
    reference validator's verbatim text when the target is skills-ref
    (the skills-ref target must reproduce the validator's message text).
    """

    message: str
    span: Span
    effect: str | None = None
    hint: str | None = None  # advice appended last ("did you mean …?")
    ref_message: str | None = None
    severity: Severity | None = None
    fix: Any = None

    def key(self) -> tuple:
        # The start is enough: parsers that split differently may end a value
        # a character apart (a trailing newline), yet it is the same problem.
        return (self.message, self.span.line, self.span.column)


def _quotes_own_messages(target_id: str) -> bool:
    """Whether findings for this target alone quote its own message text (the reference validator)."""
    target = TARGETS.get(target_id)
    return target is not None and target.reference_validator


def emit(per_target: dict[str, "Outcome | list[Outcome] | None"]) -> Iterator[Finding]:
    """Turn per-target outcomes into findings: one per distinct problem.

    The finding lists every target that shares the problem. When their effects
    differ, each effect is named with its targets; a finding for skills-ref
    alone carries the validator's verbatim message.
    """
    groups: dict[tuple, list[tuple[str, Outcome]]] = {}
    for target_id, outcomes in per_target.items():
        for outcome in outcomes if isinstance(outcomes, list) else [outcomes]:
            if outcome is not None:
                groups.setdefault(outcome.key(), []).append((target_id, outcome))
    for members in groups.values():
        ids = tuple(target_id for target_id, _ in members)
        first = members[0][1]
        effects: dict[str | None, list[str]] = {}
        for target_id, outcome in members:
            effects.setdefault(outcome.effect, []).append(target_id)
        message = first.message
        if len(effects) == 1 and None not in effects:
            message = f"{message}: {next(iter(effects))}"
        elif len(effects) > 1:
            named = [f"{effect} ({', '.join(targets)})" for effect, targets in effects.items() if effect]
            message = f"{message}: " + "; ".join(named)
        if first.hint:
            message = f"{message}; {first.hint}"
        ref = next((o.ref_message for t, o in members if _quotes_own_messages(t) and o.ref_message), None)
        if ref is not None and len(ids) == 1:
            message = ref
        severities = {t: o.severity for t, o in members if o.severity is not None} or None
        fix = next((o.fix for _, o in members if o.fix is not None), None)
        yield Finding(message, first.span, targets=ids, severities=severities, fix=fix)


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool)


def _is_tree_link_kinds(value: Any) -> bool:
    from .discovery.walk import TREE_LINK_KINDS

    return isinstance(value, tuple) and all(kind in TREE_LINK_KINDS for kind in value)


# What a rule class may say about each attribute the engine reads: the check, and what it expects.
_DECLARED: dict[str, tuple[Callable[[Any], bool], str]] = {
    "code": (lambda v: isinstance(v, str), "a string"),
    "name": (lambda v: isinstance(v, str), "a string"),
    "summary": (lambda v: isinstance(v, str), "a string"),
    "severity": (
        lambda v: isinstance(v, dict) and all(isinstance(k, str) and isinstance(s, Severity) for k, s in v.items()),
        "a mapping of target id to Severity (see severities())",
    ),
    "fixable": (lambda v: v in (None, "safe", "unsafe"), 'None, "safe" or "unsafe"'),
    "opt_in": (_is_bool, "True or False"),
    "content_rule": (_is_bool, "True or False"),
    "needs_skill_md": (lambda v: v is True or v is False or v == "raw", 'True, False or "raw"'),
    "cacheable": (_is_bool, "True or False"),
    "catalog_rule": (_is_bool, "True or False"),
    "reads_suppressions": (_is_bool, "True or False"),
    "options": (
        lambda v: isinstance(v, dict) and all(isinstance(k, str) and isinstance(o, Option) for k, o in v.items()),
        "a mapping of option name to Option",
    ),
    "options_schema": (lambda v: isinstance(v, dict), "a mapping (JSON Schema properties)"),
    "defaults": (lambda v: isinstance(v, dict), "a mapping"),
    "settle": (lambda v: v is None or callable(v), "None or a method"),
    "context_finding": (lambda v: v is None or callable(v), "None or a method"),
    "security_severity": (
        lambda v: v is None or (isinstance(v, (int, float)) and not isinstance(v, bool) and 0.0 <= v <= 10.0),
        "None or a number from 0.0 to 10.0",
    ),
    "secret_span": (_is_bool, "True or False"),
    "tree_links": (_is_tree_link_kinds, "a tuple of kinds of tree link (skilllint.discovery.walk.TREE_LINK_KINDS)"),
    "read_cap_option": (lambda v: v is None or isinstance(v, str), "None or the name of an option"),
}


_ABSTRACT = {"Rule.check", "Rule.check_catalog", "CatalogRule.check_catalog", "FieldRule.judge"}


class Rule:
    """Base class of every rule. Subclasses set the class attributes and ``check``."""

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    severity: ClassVar[dict[str, Severity]]
    fixable: ClassVar[str | None] = None  # "safe" | "unsafe" | None
    opt_in: ClassVar[bool] = False  # runs only when selected by code or prefix
    # The rule's options. Declare ``options`` (name -> Option); ``options_schema`` (JSON Schema
    # "properties") and ``defaults`` are derived from it. Rules that set ``options_schema`` and
    # ``defaults`` themselves (written before Option) keep working.
    options: ClassVar[dict[str, Option]] = {}
    options_schema: ClassVar[dict[str, Any]] = {}
    defaults: ClassVar[dict[str, Any]] = {}
    # The rule judges what the skill's files say (references, safety, scripts), not the skill as
    # a skill (frontmatter, name, description, size, catalog): it also runs for a surface that
    # never lists the skill but reads its SKILL.md as a document of a skill it lists, through a
    # link (:meth:`skilllint.config.settings.Settings.reads_as_document`). A rule that needs no SKILL.md
    # (``needs_skill_md = False``) runs for every target anyway.
    content_rule: ClassVar[bool] = False
    # What the rule needs of SKILL.md: True, a parsed SKILL.md; "raw", its bytes even when
    # they do not parse; False, nothing (it judges the package's other files).
    needs_skill_md: ClassVar[bool | str] = True
    # Whether the rule's findings may be kept in the result cache: False for a rule that reads
    # past its package (its findings change when nothing in the package does).
    cacheable: ClassVar[bool] = True
    # A catalog rule (CatalogRule) judges the skills a surface lists together, not one package.
    catalog_rule: ClassVar[bool] = False
    # The rule runs after the others on each package and is told what SKILL.md's suppression
    # comments silenced (``ctx.suppressions``), as SL901 is.
    reads_suppressions: ClassVar[bool] = False
    # ``settle(diagnostics, packages, usage, rules_run) -> diagnostics``: once every pass of the
    # run is done, revises what the rule found with what the other passes silenced (SL901).
    settle: ClassVar[Callable[..., list] | None] = None
    # Catalog rules: the rule judges every surface's listing, also where the run does not lint for
    # that surface (a surface that scans a skill's folder though its targets were inferred
    # without it: Copilot's listing of `.claude/skills` beside `.agents/skills`). SL511: two
    # same-named skills a surface lists together are a problem there whatever the run's targets.
    judges_listings: ClassVar[bool] = False
    # Catalog rules: ``context_finding(catalog, package, others, ctx) -> Finding | None`` tells a
    # linted skill about the effect on skills of its catalog that this run does not lint.
    context_finding: ClassVar[Callable[..., Finding | None] | None] = None
    # A security rule (SL8xx) says how grave its findings are on the CVSS-like scale GitHub code
    # scanning ranks security alerts by (0.0-10.0; 9.0+ critical, 7.0+ high, 4.0+ medium, else
    # low); SARIF tags such rules "security" and carries the figure. None: not a security rule.
    security_severity: ClassVar[float | None] = None
    # The text a finding flags is a secret (SL803): outputs that show source text (the full
    # format's source line, the baseline's flagged text) blank it; messages carry a masked form.
    secret_span: ClassVar[bool] = False
    # The kinds of :class:`skilllint.discovery.walk.TreeLink` the rule reports: links the search
    # met outside every skill folder, which no package holds (SL403: "dangling"; SL404: the
    # endless ones). The engine hands each such link of those kinds to ``check_tree_link(link)``,
    # which returns its Finding (path: the link).
    tree_links: ClassVar[tuple[str, ...]] = ()
    # The rule's integer option that caps the bytes read of any file (SL011's ``max-bytes``): the
    # engine, the fixer and the server read under its value (:meth:`skilllint.config.settings.Settings.read_cap`).
    # At most one registered rule declares one.
    read_cap_option: ClassVar[str | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = vars(cls)
        for attr, (valid, expected) in _DECLARED.items():
            if attr in own and not valid(own[attr]):
                raise TypeError(f"rule class {cls.__qualname__}: {attr} = {own[attr]!r} is not {expected}")
        if "options" in own:
            if "options_schema" in own or "defaults" in own:
                raise TypeError(f"rule class {cls.__qualname__}: declare options, or options_schema and defaults, not both")
            cls.options_schema = {key: option.schema() for key, option in cls.options.items()}
            cls.defaults = {key: option.default for key, option in cls.options.items()}
        if cls.tree_links and not callable(getattr(cls, "check_tree_link", None)):
            raise TypeError(f"rule class {cls.__qualname__}: a rule with tree_links defines check_tree_link")
        if cls.read_cap_option is not None and not isinstance(cls.defaults.get(cls.read_cap_option), int):
            raise TypeError(f"rule class {cls.__qualname__}: read_cap_option {cls.read_cap_option!r} names no integer option of the rule")
        if "code" in own:  # a concrete rule: it says what it judges
            method = "check_catalog" if cls.catalog_rule else "judge" if hasattr(cls, "judge") else "check"
            if getattr(cls, method).__qualname__ in _ABSTRACT:
                raise TypeError(f"rule class {cls.__qualname__}: a {'catalog ' if cls.catalog_rule else ''}rule defines {method}")

    def check(self, package: Any, ctx: RuleContext) -> Iterator[Finding]:  # pragma: no cover
        raise NotImplementedError

    # Catalog rules: ``(package, finding)`` pairs about the skills of ``catalog``.
    def check_catalog(self, catalog: Any, ctx: RuleContext) -> Iterator[tuple[object, Finding]]:  # pragma: no cover
        raise NotImplementedError

    @classmethod
    def applies_to(cls, target_id: str) -> bool:
        return target_id in cls.severity

    @classmethod
    def source(cls) -> tuple[str, str]:
        """Where the rule is written: (module, class name). The module is a path relative to
        the skilllint package for a built-in rule (``rules/fields/sl10x_name.py``), else its dotted
        name (a plugin's)."""
        module = cls.__module__
        if module.startswith("skilllint."):
            return module[len("skilllint.") :].replace(".", "/") + ".py", cls.__qualname__
        return module, cls.__qualname__

    @classmethod
    def analysis(cls) -> list[str]:
        """Where the rule's analysis is written: the skilllint modules its methods import (a rule
        module holds rule classes; what they read of a skill lives in an analysis module),
        as paths relative to the package (``skill/references/checks.py``), leaves and the rule
        API left out. Read from the class's source, never run; empty for a plugin's rule."""
        import ast
        import inspect
        import os

        module = cls.__module__
        if not module.startswith("skilllint."):
            return []
        try:
            tree = ast.parse(inspect.getsource(cls))
        except (OSError, TypeError, SyntaxError):  # no source (a frozen build): nothing to show
            return []
        package = module.split(".")[:-1]
        root = os.path.abspath(inspect.getfile(cls))
        for _ in range(module.count(".")):  # up to skilllint/ from skilllint/rules/<family>/<module>.py
            root = os.path.dirname(root)
        found: set[str] = set()
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = package[: len(package) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            parts = name.split(".")
            # an analysis lies in a folder of the package (skill/, catalog/, discovery/, ...)
            if len(parts) < 3 or parts[0] != "skilllint" or parts[1] in ("rules", "targets"):
                continue
            folder = os.path.join(root, *parts[1:])
            if os.path.isdir(folder):  # `from ..skill.scripts.python import prompt_reach`: modules of a package
                found.update("/".join([*parts[1:], alias.name]) + ".py" for alias in node.names if os.path.isfile(os.path.join(folder, alias.name + ".py")))
            else:
                found.add("/".join(parts[1:]) + ".py")
        return sorted(found)


class PackageRule(Rule):
    """A rule over one skill package: ``check(package, ctx)`` yields its findings."""


class FieldRule(PackageRule):
    """A package rule that judges the frontmatter as each target reads it: the per-target
    loop, written once.

    ``judge(target, view, mapping, package, ctx, *shared)`` returns the target's
    :class:`Outcome` (or a list of them, or None) for each target whose view parsed to a
    mapping; targets whose outcomes say the same thing at the same place share one finding
    (:func:`emit`). ``prepare(package, ctx)`` returns what every target's judgement shares,
    as a tuple passed after ``ctx`` (a fix computed once per package, say); empty by default."""

    def prepare(self, package: SkillPackage, ctx: RuleContext) -> tuple:
        return ()

    def judge(self, target: Target, view: FrontmatterView, mapping: dict, package: SkillPackage, ctx: RuleContext, *shared: Any) -> Outcome | list[Outcome] | None:  # pragma: no cover
        raise NotImplementedError

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        shared = self.prepare(package, ctx)
        per_target: dict[str, Outcome | list[Outcome] | None] = {}
        for target in ctx.targets:
            view = package.view(target)
            mapping = view.mapping
            if mapping is None:
                continue
            per_target[target.id] = self.judge(target, view, mapping, package, ctx, *shared)
        yield from emit(per_target)


class CatalogRule(Rule):
    """A rule over a whole catalog: yields (package, finding) pairs."""

    catalog_rule = True

    def check(self, package: Any, ctx: RuleContext) -> Iterator[Finding]:  # pragma: no cover - no per-package check
        return iter(())

    def check_catalog(self, catalog: Any, ctx: RuleContext) -> Iterator[tuple[object, Finding]]:
        raise NotImplementedError
