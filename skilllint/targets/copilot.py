"""GitHub Copilot / VS Code agent skills (docs/surfaces.md §4).

What Copilot does with keys outside its documented set is not known ([??]),
so unknown keys give no finding for this target.
"""

from .base import SPEC_KEYS, Target

TARGET = Target(
    id="copilot",
    title="GitHub Copilot / VS Code",
    evidence="docs/surfaces.md §4",
    splitter="canonical",
    semantics="yaml12",
    accepted_keys=SPEC_KEYS | frozenset({"argument-hint", "user-invocable", "disable-model-invocation"}),
    unknown_keys=None,
    name_charset="ascii",
    requires_description_text=True,  # docs/surfaces.md §4: description required, non-empty
    # §4: VS Code scans `.github/skills`, `.agents/skills` and `.claude/skills`; hides
    # `disable-model-invocation` skills; Copilot CLI lists skills within a budget ([2ND]).
    project_skill_folders=((".github", "skills"), (".agents", "skills"), (".claude", "skills")),
    hides_disabled_skills=True,
    catalog_model="cli-listing",
    prose_name="Copilot",
)
