"""skilllint's `skills-ref` target reproduces the reference validator's verdict.

The reference is the ``skills-ref`` package (``skills_ref.validator.validate``):
a skill folder is valid when it returns ``[]``; a non-empty list or an
exception (``UnicodeDecodeError`` on bad UTF-8, an ``AssertionError`` from
strictyaml on a complex key) makes it invalid. skilllint's verdict, linting
the folder with ``targets = ("skills-ref",)``: invalid iff a diagnostic of
severity ``error`` names ``skills-ref`` among its targets.

Three layers:

a. the real corpus (``../shared/corpus``): one test over every skill for the
   verdicts, one for the messages;
b. curated tricky cases: verdicts, and the validator's messages against
   skilllint's (skilllint sends the validator's verbatim text for findings
   that concern skills-ref alone); "Invalid YAML in frontmatter: ..." is
   compared up to the colon only, since the parser's own wording follows;
c. Hypothesis properties over a small frontmatter grammar (and a riskier one
   that reaches the known bugs).

Known bugs are ``xfail(strict=True)`` with the root cause in the reason, so
they flip to failures once skilllint is fixed. Differences by design (skilllint's
safety bounds and discovery policy, which will not change) are expected
outcomes: the validator's verdict, skilllint's opposite one and the codes it
reports are asserted as they are.
"""

from __future__ import annotations

import os
import tempfile
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

# The reference validator needs Python 3.11; on 3.10 (which skilllint supports) the test extra
# leaves it out and these comparisons cannot run.
pytest.importorskip("skills_ref", reason="skills-ref (the reference validator) needs Python 3.11 or newer")

from skilllint.config.settings import load_settings
from skilllint.diagnostics import Severity
from skilllint.lint.engine import lint_paths
from skilllint.registry import registry

TARGET = "skills-ref"
YAML_PREFIX = "Invalid YAML in frontmatter:"

# ---------------------------------------------------------------------------
# The two verdicts.


@dataclass
class Verdict:
    valid: bool
    messages: list[str]
    raised: bool = False  # the validator raised instead of returning messages


def reference(skill_dir: Path) -> Verdict:
    from skills_ref.validator import validate

    try:
        messages = list(validate(Path(skill_dir)))
    except Exception as exc:  # noqa: BLE001 - a raise counts as "invalid"
        return Verdict(False, [f"<raised {type(exc).__name__}: {exc}>"], raised=True)
    return Verdict(not messages, messages)


_REGISTRY = registry()
_SETTINGS: dict[str, object] = {}


def skilllint(skill_dir: Path) -> Verdict:
    """skilllint's skills-ref verdict for exactly this folder (nested skills excluded)."""
    skill_dir = Path(os.path.abspath(skill_dir))
    cwd = skill_dir.parent
    settings = _SETTINGS.get(str(cwd))
    if settings is None:
        settings = _SETTINGS[str(cwd)] = load_settings(_REGISTRY, cwd)
        settings.targets = (TARGET,)
    result = lint_paths([str(skill_dir)], settings, cwd)
    assert not result.internal_errors, result.internal_errors
    errors = [
        d
        for d in result.diagnostics
        if d.severity == Severity.ERROR
        and TARGET in d.targets
        and (d.path == skill_dir or d.path.parent == skill_dir)
    ]
    return Verdict(not errors, [f"{d.code} {d.message}" for d in errors])


def _comparable(message: str) -> str:
    return YAML_PREFIX if message.startswith(YAML_PREFIX) else message


def message_sets(ref: Verdict, lint: Verdict) -> tuple[set[str], set[str]]:
    theirs = {_comparable(m) for m in ref.messages}
    ours = {_comparable(m.split(" ", 1)[1]) for m in lint.messages}
    return theirs, ours


def describe(skill: Path, ref: Verdict, lint: Verdict) -> str:
    def text(v: Verdict) -> str:
        return ("valid" if v.valid else "invalid") + "".join(f"\n      {m!r}" for m in v.messages)

    return f"{skill}\n    skills-ref: {text(ref)}\n    skilllint:  {text(lint)}"


# ---------------------------------------------------------------------------
# a. The real corpus.

MIN_CORPUS_SKILLS = 500


def find_skills(corpus: Path) -> list[Path]:
    found = []
    for folder, dirs, files in os.walk(corpus):
        dirs[:] = sorted(d for d in dirs if d not in {".git", "node_modules"})
        if "SKILL.md" in files or "skill.md" in files:
            found.append(Path(folder))
    return sorted(found)


_CORPUS_RESULTS: dict[Path, list[tuple[Path, Verdict, Verdict]]] = {}


def corpus_results(corpus: Path) -> list[tuple[Path, Verdict, Verdict]]:
    """(skill, skills-ref verdict, skilllint verdict) for every corpus skill, computed once."""
    if corpus not in _CORPUS_RESULTS:
        _CORPUS_RESULTS[corpus] = [(skill, reference(skill), skilllint(skill)) for skill in find_skills(corpus)]
    return _CORPUS_RESULTS[corpus]


def test_corpus_verdicts_agree(corpus: Path) -> None:
    results = corpus_results(corpus)
    assert len(results) >= MIN_CORPUS_SKILLS, f"only {len(results)} skills found under {corpus}"
    invalid = sum(not ref.valid for _, ref, _ in results)
    # The corpus must exercise both verdicts, or agreement proves little.
    assert 0 < invalid < len(results), f"{invalid} of {len(results)} skills invalid per skills-ref"
    disagreements = [
        describe(skill.relative_to(corpus), ref, lint) for skill, ref, lint in results if ref.valid != lint.valid
    ]
    assert not disagreements, (
        f"{len(disagreements)} of {len(results)} verdicts disagree:\n" + "\n".join(disagreements)
    )


def test_corpus_messages_agree(corpus: Path) -> None:
    results = corpus_results(corpus)
    assert len(results) >= MIN_CORPUS_SKILLS
    differ = []
    for skill, ref, lint in results:
        if ref.valid == lint.valid and not ref.raised:
            theirs, ours = message_sets(ref, lint)
            if theirs != ours:
                differ.append(describe(skill.relative_to(corpus), ref, lint))
    assert not differ, f"{len(differ)} of {len(results)} skills differ in messages:\n" + "\n".join(differ)


# ---------------------------------------------------------------------------
# b. Curated tricky cases.


def doc(*lines: str, body: str = "# Title\n\nBody text.\n") -> str:
    """A SKILL.md: ``---``, the frontmatter lines, ``---``, the body."""
    return "---\n" + "".join(line + "\n" for line in lines) + "---\n" + body


NAME = "name: foo"
DESC = "description: Does a thing. Use when a thing must be done."


@dataclass(frozen=True)
class Case:
    id: str
    text: str | bytes | None  # SKILL.md content; None: no skill file
    valid: bool  # the validator's verdict, pinned so each case keeps its meaning
    folder: str = "foo"
    filename: str = "SKILL.md"
    setup: Callable[[Path], None] | None = None  # extra files, links
    messages: bool = True  # compare message sets too
    verdict_bug: str | None = None  # known verdict disagreement (xfail strict)
    by_design: str | None = None  # why skilllint's verdict is the opposite, on purpose
    our_codes: tuple[str, ...] = ()  # with by_design: the codes of skilllint's errors there
    message_bug: str | None = None  # known message disagreement (xfail strict)


# Differences by design: skilllint's safety bounds and discovery policy. Bugs found
# earlier and since fixed (keys and duplicates judged on the canonical split,
# `skill.md` vs `Skill.md`, NUL bytes in the body, the size cap, SL001's text,
# field rules after a duplicate key) stay below as plain regression cases.
DESIGN_DEPTH = "yamltree.MAX_DEPTH (64) refuses deeper nesting (SL005); strictyaml reads it"
DESIGN_EMPTY_DIR = (
    "discovery skips an explicitly given empty folder with a 'no skills found' warning "
    "(tests/test_discovery.py::test_empty_folder_warns_no_skills_found pins it); skills-ref says "
    "'Missing required file: SKILL.md'"
)
DESIGN_SYMLINK = (
    "SL013 refuses a SKILL.md symlink leading outside the tree (and SL401 reports the link); "
    "skills-ref follows it"
)


def _write(base: Path, case: Case) -> Path:
    skill = base / case.folder
    skill.mkdir(parents=True)
    if case.text is not None:
        data = case.text if isinstance(case.text, bytes) else case.text.encode("utf-8")
        (skill / case.filename).write_bytes(data)
    if case.setup is not None:
        case.setup(skill)
    return skill


def _two_case_variants(skill: Path) -> None:
    (skill / "Skill.md").write_text(doc("name: Foo", DESC), encoding="utf-8")


def _outside_link(skill: Path) -> None:
    outside = skill.parent / "outside.md"
    outside.write_text(doc(NAME, DESC), encoding="utf-8")
    (skill / "SKILL.md").symlink_to(outside)


def _notes(skill: Path) -> None:
    (skill / "notes.md").write_text("# Notes\n", encoding="utf-8")


CAFE_NFC = unicodedata.normalize("NFC", "café")
CAFE_NFD = unicodedata.normalize("NFD", "café")
LONG_NAME = "a" * 64
BIG_BODY = "x" * 80 + "\n"

CASES = [
    # -- keys ------------------------------------------------------------------
    Case("all-allowed-keys", doc(NAME, DESC, "license: MIT", "compatibility: Python 3.11+",
                                 "allowed-tools: Read Grep", "metadata:", "  author: me", "  version: '1.0'"), True),
    Case("unknown-key", doc(NAME, DESC, "author: me"), False),
    Case("two-unknown-keys", doc(NAME, DESC, "author: me", "tags: x"), False),
    Case("version-top-level", doc(NAME, DESC, "version: 1.0.0"), False),
    Case("version-and-unknown", doc(NAME, DESC, "version: 1", "author: me"), False),
    Case("key-case-Name", doc("Name: foo", DESC), False),
    Case("quoted-keys", doc('"name": foo', "'description': d"), True),
    Case("numeric-key", doc(NAME, DESC, "1: x"), False),
    # -- name ------------------------------------------------------------------
    Case("name-missing", doc(DESC), False),
    Case("name-empty", doc("name:", DESC), False),
    Case("name-empty-quoted", doc('name: ""', DESC), False),
    Case("name-blank", doc('name: "   "', DESC), False),
    Case("name-padded", doc('name: "  foo  "', DESC), True),
    Case("name-uppercase", doc("name: Foo", DESC), False, folder="Foo"),
    Case("name-uppercase-mismatch", doc("name: Foo", DESC), False),
    Case("name-cjk", doc("name: 技能", DESC), True, folder="技能"),
    Case("name-cyrillic", doc("name: мой-навык", DESC), True, folder="мой-навык"),
    Case("name-cyrillic-upper", doc("name: Мой-навык", DESC), False, folder="Мой-навык"),
    Case("name-cafe-nfc-folder-nfd", doc(f"name: {CAFE_NFC}", DESC), True, folder=CAFE_NFD),
    Case("name-cafe-nfd-folder-nfc", doc(f"name: {CAFE_NFD}", DESC), True, folder=CAFE_NFC),
    Case("name-fullwidth-nfkc", doc("name: ｆｏｏ", DESC), True),
    Case("name-64", doc(f"name: {LONG_NAME}", DESC), True, folder=LONG_NAME),
    Case("name-65", doc(f"name: {LONG_NAME}b", DESC), False, folder=LONG_NAME + "b"),
    Case("name-leading-hyphen", doc("name: -foo", DESC), False, folder="-foo"),
    Case("name-trailing-hyphen", doc("name: foo-", DESC), False, folder="foo-"),
    Case("name-double-hyphen", doc("name: foo--bar", DESC), False, folder="foo--bar"),
    Case("name-edge-and-double", doc("name: -foo--bar", DESC), False, folder="-foo--bar"),
    Case("name-underscore", doc("name: foo_bar", DESC), False, folder="foo_bar"),
    Case("name-space", doc("name: foo bar", DESC), False, folder="foo bar"),
    Case("name-upper-and-underscore", doc("name: Foo_Bar", DESC), False, folder="Foo_Bar"),
    Case("name-folder-mismatch", doc("name: bar", DESC), False),
    Case("name-123", doc("name: 123", DESC), True, folder="123"),
    Case("name-null", doc("name: null", DESC), True, folder="null"),
    Case("name-tilde", doc("name: ~", DESC), False, folder="~"),
    Case("name-true", doc("name: true", DESC), True, folder="true"),
    Case("name-list", doc("name:", "  - foo", DESC), False),
    Case("name-mapping", doc("name:", "  x: foo", DESC), False),
    Case("name-single-quoted", doc("name: 'foo'", DESC), True),
    # -- description -------------------------------------------------------------
    Case("description-missing", doc(NAME), False),
    Case("description-empty", doc(NAME, "description:"), False),
    Case("description-empty-quoted", doc(NAME, "description: ''"), False),
    Case("description-blank", doc(NAME, 'description: "  \\t "'), False),
    Case("description-1024", doc(NAME, "description: " + "d" * 1024), True),
    Case("description-1025", doc(NAME, "description: " + "d" * 1025), False),
    Case("description-1024-quoted-padding", doc(NAME, 'description: "  ' + "d" * 1020 + '  "'), True),
    Case("description-1025-quoted-padding", doc(NAME, 'description: "  ' + "d" * 1021 + '  "'), False),
    Case("description-plain-trailing-space", doc(NAME, "description: " + "d" * 1024 + "   "), True),
    Case("description-yes", doc(NAME, "description: yes"), True),
    Case("description-list", doc(NAME, "description:", "  - a"), False),
    Case("description-literal-block", doc(NAME, "description: |", "  Line one.", "  Line two."), True),
    Case("description-folded-block", doc(NAME, "description: >", "  Folded", "  text."), True),
    # 1,023 characters + the newline the literal block keeps = 1,024.
    Case("description-literal-1024", doc(NAME, "description: |", "  " + "d" * 1023), True),
    Case("description-literal-1025", doc(NAME, "description: |", "  " + "d" * 1024), False),
    Case("description-multiline-plain", doc(NAME, "description: first", "  second line"), True),
    Case("description-colon-space", doc(NAME, "description: Use it: always"), False),
    Case("description-comment", doc(NAME, "description: text # a comment", "# whole-line comment"), True),
    # -- compatibility / metadata -------------------------------------------------
    Case("compatibility-list", doc(NAME, DESC, "compatibility:", "  - python"), False),
    Case("compatibility-mapping", doc(NAME, DESC, "compatibility:", "  python: '3.11'"), False),
    Case("compatibility-empty", doc(NAME, DESC, "compatibility:"), True),
    Case("compatibility-500", doc(NAME, DESC, "compatibility: " + "c" * 500), True),
    Case("compatibility-501", doc(NAME, DESC, "compatibility: " + "c" * 501), False),
    Case("compatibility-number", doc(NAME, DESC, "compatibility: 3.11"), True),
    Case("metadata-string", doc(NAME, DESC, "metadata: just a string"), True),
    Case("metadata-empty", doc(NAME, DESC, "metadata:"), True),
    Case("metadata-list", doc(NAME, DESC, "metadata:", "  - a"), True),
    Case("metadata-nested", doc(NAME, DESC, "metadata:", "  a:", "    b: c"), True),
    Case("metadata-nested-inconsistent-indent",
         doc(NAME, DESC, "metadata:", "  a:", "    x: 1", "  b:", "      y: 2"), False),
    Case("list-item-mappings-inconsistent-indent",
         doc(NAME, DESC, "metadata:", "  - a:", "      x: 1", "    b:", "        y: 2"), False),
    Case("merge-key-mapping", doc(NAME, DESC, "<<:", "  author: me"), True),
    Case("merge-key-list-of-mappings", doc(NAME, DESC, "<<:", "  - a: b"), True),
    Case("merge-key-scalar", doc(NAME, DESC, "<<: x"), False),
    Case("merge-key-quoted", doc(NAME, DESC, "'<<':", "  a: b"), False),
    Case("deep-nesting-70", doc(NAME, DESC, "metadata:", *[" " * (2 * i + 2) + f"k{i}:" for i in range(70)],
                                " " * 142 + "x: y"), True, by_design=DESIGN_DEPTH, our_codes=("SL005",)),
    Case("allowed-tools-list", doc(NAME, DESC, "allowed-tools:", "  - Read", "  - Grep"), True),
    # -- YAML strictyaml refuses ---------------------------------------------------
    Case("flow-list", doc(NAME, DESC, "allowed-tools: [Read, Grep]"), False),
    Case("flow-map", doc(NAME, DESC, "metadata: {a: b}"), False),
    Case("flow-in-unknown-key", doc(NAME, DESC, "argument-hint: [file]"), False),
    Case("anchor-alias", doc(NAME, "description: &d text", "compatibility: *d"), False),
    Case("tag", doc("name: !!str foo", DESC), False),
    Case("duplicate-key", doc(NAME, NAME, DESC), False),
    Case("duplicate-key-nested", doc(NAME, DESC, "metadata:", "  a: 1", "  a: 2"), False),
    Case("two-documents", doc(NAME, DESC, "...", "other: 1"), False),
    Case("complex-key", doc("? - a", "  - b", ": v", NAME, DESC), False, messages=False),
    Case("tab-after-colon", doc("name:\tfoo", DESC), False),
    # The validator raises AttributeError here (a strictyaml bug): invalid, no message.
    Case("line-separator-in-description", doc(NAME, "description: one\u2028two"), True),
    Case("paragraph-separator-in-description", doc(NAME, "description: one\u2029two"), True),
    Case("nel-in-description", doc(NAME, "description: one\x85two"), True),
    Case("line-separator-in-metadata-key", doc(NAME, DESC, "metadata:", "  a\u2028b: c"), True),
    Case("bom-line-inside-frontmatter", doc(NAME, DESC, "\ufeff"), False, messages=False),
    Case("line-separator-quoted", doc(NAME, 'description: "one\u2028two"'), True),
    Case("control-char", doc(NAME, "description: bell\x07"), False, messages=False),
    # -- where the frontmatter starts and ends -------------------------------------
    Case("fence-in-value", doc(NAME, "description: before---after"), True),
    Case("fence-in-value-hides-description", doc("name: foo---", DESC), False),
    Case("fence-in-value-then-unknown-key", doc(NAME, "description: a---b", "author: me"), True),
    Case("fence-in-value-then-duplicate", doc(NAME, "description: a---b", NAME), True),
    Case("opening-fence-comment-unknown-key", "--- # c\n" + doc(NAME, DESC, "author: me")[4:], False),
    Case("opening-fence-comment-duplicate", "--- # c\n" + doc(NAME, NAME, DESC)[4:], False),
    Case("opening-fence-glued", "---name: foo\n" + DESC + "\n---\nbody\n", True),
    Case("closing-fence-four-dashes-unknown-key", doc(NAME, DESC, "author: me").replace("\n---\n# Title", "\n----\n# Title"),
         False),
    Case("frontmatter-not-closed", "---\nname: foo\n" + DESC + "\n", False),
    Case("no-frontmatter", "# foo\n\nname: foo\n", False),
    Case("bom", "\ufeff" + doc(NAME, DESC), False),
    Case("crlf", doc(NAME, DESC).replace("\n", "\r\n"), True),
    Case("cr-only", doc(NAME, DESC).replace("\n", "\r"), True),
    Case("leading-blank-line", "\n" + doc(NAME, DESC), False),
    Case("empty-frontmatter", doc(), False),
    Case("six-dashes", "------\nbody\n", False),
    Case("comment-only-frontmatter", doc("# nothing here"), False),
    Case("frontmatter-list", doc("- name", "- description"), False),
    Case("frontmatter-scalar", doc("just words"), False),
    # -- the file ----------------------------------------------------------------------
    Case("skill-md-lowercase", doc(NAME, DESC), True, filename="skill.md"),
    Case("skill-md-mixed-case", doc(NAME, DESC), False, filename="Skill.md"),
    Case("skill-md-mixed-case-bad-content", doc("name: Bar", DESC), False, filename="Skill.md"),
    Case("skill-md-lower-and-mixed", doc(NAME, DESC), True, filename="skill.md", setup=_two_case_variants),
    Case("no-skill-md-but-notes", None, False, setup=_notes),
    Case("empty-directory", None, False, by_design=DESIGN_EMPTY_DIR),
    Case("invalid-utf8-frontmatter", doc(NAME, "description: caf").encode().replace(b"caf", b"caf\xe9"), False,
         messages=False),
    Case("invalid-utf8-body", (doc(NAME, DESC) + "bad \xff here\n").encode("latin-1"), False, messages=False),
    Case("nul-in-body", doc(NAME, DESC) + "nul \x00 here\n", True),
    Case("over-size-cap", doc(NAME, DESC, body=BIG_BODY * (1024 * 1024 // len(BIG_BODY) + 10)), True),
    Case("symlink-outside", None, True, setup=_outside_link, by_design=DESIGN_SYMLINK,
         our_codes=("SL013", "SL401")),
]

assert len(CASES) >= 40
assert len({case.id for case in CASES}) == len(CASES)


def _marks(reason: str | None) -> list:
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


@pytest.mark.parametrize(
    "case", [pytest.param(c, id=c.id, marks=_marks(c.verdict_bug)) for c in CASES]
)
def test_generated_verdicts_agree(case: Case, tmp_path: Path) -> None:
    skill = _write(tmp_path, case)
    ref, lint = reference(skill), skilllint(skill)
    assert ref.valid == case.valid, "the reference's verdict changed: " + describe(skill, ref, lint)
    if case.by_design:  # the opposite verdict, for the reason given, with these codes
        assert lint.valid != ref.valid, f"{case.by_design}\n" + describe(skill, ref, lint)
        assert sorted(m.split(" ", 1)[0] for m in lint.messages) == sorted(case.our_codes), describe(skill, ref, lint)
        return
    assert lint.valid == ref.valid, describe(skill, ref, lint)


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(c, id=c.id, marks=_marks(c.message_bug))
        for c in CASES
        if c.messages and not c.verdict_bug and not c.by_design
    ],
)
def test_generated_messages_agree(case: Case, tmp_path: Path) -> None:
    skill = _write(tmp_path, case)
    ref, lint = reference(skill), skilllint(skill)
    assert not ref.raised
    theirs, ours = message_sets(ref, lint)
    assert theirs == ours, describe(skill, ref, lint)


# ---------------------------------------------------------------------------
# c. A property over a small frontmatter grammar.
#
# A frontmatter is: usually a `name` (often the folder's, so the skill can be
# valid), usually a `description`, up to three more entries drawn from
# interesting keys, values and quoting styles, in any order, with LF or CRLF.
# The "risky" grammar adds what the known bugs need: `---` inside values, other
# fence lines, nested mappings at uneven indentation and complex keys.

from hypothesis import HealthCheck, given, settings as hsettings, strategies as st  # noqa: E402

FOLDERS = ["foo", "foo-bar", "技能", "Foo", CAFE_NFD]
KEYS = ["name", "description", "license", "compatibility", "metadata", "allowed-tools", "version",
        "author", "Name", "'name'", '"description"']
WORDS = ["foo", "foo-bar", "Foo", "-foo", "foo--bar", "foo_bar", "技能", "", " ", "123", "null", "~",
         "yes", "true", "a: b", "a #b", "a#b", "x" * 65, "d" * 1025, "c" * 501, "[a]", "{a: b}", "&a x",
         "*a", "!!str x", "'", '"', "- item", "? k", "%x", "@x", "`x`", "a\\nb", "ｆｏｏ", "a\tb", "é"]
DESCRIPTIONS = ["Does x. Use when y.", "yes", "", " ", "d" * 1024, "d" * 1025, "Use it: always", "a #b"]
STYLES = ["plain", "plain", "single", "double", "literal", "folded"]
RISKY_WORDS = ["a---b", "x ---", "--- y"]


def _quote(word: str, style: str) -> list[str]:
    """``word`` as a value in ``style``: its lines after ``key:`` (first on the key's line)."""
    if style == "plain":
        return [f" {word}" if word else ""]
    if style == "single":
        return [" '" + word.replace("'", "''") + "'"]
    if style == "double":
        return [' "' + word.replace("\\", "\\\\").replace('"', '\\"') + '"']
    indicator = "|" if style == "literal" else ">"
    return [f" {indicator}", f"  {word}"]


def _values(risky: bool):
    words = WORDS + RISKY_WORDS if risky else WORDS
    scalar = st.builds(_quote, st.sampled_from(words), st.sampled_from(STYLES))
    block_list = st.lists(st.sampled_from(["foo", "Read", "a b", "k: v"]), min_size=1, max_size=2).map(
        lambda xs: [""] + [f"  - {x}" for x in xs]
    )
    block_map = st.lists(st.sampled_from(["author: me", "version: '1.0'", "n: 1", "a: b"]), min_size=1, max_size=2).map(
        lambda xs: [""] + [f"  {x}" for x in xs]
    )
    options = [scalar, scalar, block_list, block_map]
    if risky:
        # Two nested mappings whose indentation may differ (strictyaml refuses that).
        nested = st.tuples(st.sampled_from([2, 4, 6]), st.sampled_from([2, 4, 6])).map(
            lambda d: ["", "  a:", " " * (2 + d[0]) + "x: 1", "  b:", " " * (2 + d[1]) + "y: 2"]
        )
        options.append(nested)
    return st.one_of(*options)


def _keys(risky: bool):
    return st.sampled_from(KEYS + ["? a: b\n", "? - a\n"] if risky else KEYS)


@st.composite
def skill_files(draw, risky: bool) -> tuple[str, str]:
    folder = draw(st.sampled_from(FOLDERS))
    pairs: list[tuple[str, list[str]]] = []
    if draw(st.integers(0, 9)) < 8:
        name = draw(
            st.sampled_from(
                [folder, folder, folder, folder.lower(), folder.upper(), unicodedata.normalize("NFC", folder),
                 f" {folder} ", "bar"]
            )
        )
        pairs.append(("name", _quote(name, draw(st.sampled_from(STYLES)))))
    if draw(st.integers(0, 9)) < 8:
        pairs.append(("description", _quote(draw(st.sampled_from(DESCRIPTIONS)), draw(st.sampled_from(STYLES)))))
    pairs += draw(st.lists(st.tuples(_keys(risky), _values(risky)), max_size=3))
    pairs = draw(st.permutations(pairs))
    lines = []
    for key, value in pairs:
        if key.endswith("\n"):  # a complex key: `? ...` then `:` on its own line
            lines += [key[:-1], ":" + value[0], *value[1:]]
            continue
        lines.append(f"{key}:{value[0]}")
        lines.extend(value[1:])
        if draw(st.integers(0, 9)) == 0:
            lines.append("# a comment")
    opening, closing = "---", "---"
    if risky:
        opening = draw(st.sampled_from(["---", "---", "--- # c"]))
        closing = draw(st.sampled_from(["---", "---", "----", " ---", "--- x"]))
    text = opening + "\n" + "".join(f"{line}\n" for line in lines) + closing + "\n# Body\n\ntext --- more\n"
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return folder, text


def _check(folder: str, text: str) -> None:
    with tempfile.TemporaryDirectory() as base:
        skill = Path(base) / folder
        skill.mkdir()
        (skill / "SKILL.md").write_bytes(text.encode("utf-8"))
        ref, lint = reference(skill), skilllint(skill)
        assert lint.valid == ref.valid, describe(skill, ref, lint) + "\n" + repr(text)


_PROPERTY = dict(deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])


@hsettings(**_PROPERTY)
@given(skill_files(risky=False))
def test_property_verdicts_agree(skill: tuple[str, str]) -> None:
    _check(*skill)


@hsettings(**_PROPERTY, derandomize=True)
@given(skill_files(risky=True))
def test_property_verdicts_agree_risky_grammar(skill: tuple[str, str]) -> None:
    _check(*skill)
