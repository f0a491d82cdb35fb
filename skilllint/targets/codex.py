"""The Codex CLI loader (S-CX-LOAD, docs/surfaces.md §3a).

serde_yaml into ``{name, description, metadata.short-description}``; other
keys are ignored; name and description are whitespace-collapsed; names have no
character rule but count a ``plugin:`` prefix toward the 64-character limit.
"""

from .base import SPEC_KEYS, Target

TARGET = Target(
    id="codex",
    title="Codex CLI",
    evidence="docs/surfaces.md §3a",
    splitter="codex",
    semantics="serde",
    # Only name, description and metadata are read; the other spec keys are
    # standard and silently ignored, so they are not "unknown" to an author.
    accepted_keys=SPEC_KEYS,
    unknown_keys="ignore",
    name_charset=None,
    description_count="collapse",
    # docs/surfaces.md §3a: serde_yaml into typed fields; the name is whitespace-collapsed,
    # defaults to the folder's and counts a `plugin:` prefix; an empty description fails the load.
    typed_frontmatter=True,
    name_read="collapse",
    name_defaults_to_folder=True,
    name_counts_plugin_prefix=True,
    requires_description_text=True,
    # Discovery (§3a): `.agents/skills` and `.codex/skills`, walked without dot-folders or a
    # linked SKILL.md; same-named skills are all kept and names compare exactly;
    # agents/openai.yaml's policy (§3b) and the catalog's budget (§3d).
    project_skill_folders=((".agents", "skills"), (".codex", "skills")),
    skips_dot_folders=True,
    skips_linked_skill_md=True,
    scope_precedence=None,
    names_case_sensitive=True,
    reads_openai_yaml_policy=True,
    catalog_model="budgeted-catalog",
    discovery_model="walk",
    prose_name="Codex",
    # `codex exec --json` (events: codex-rs/exec/src/exec_events.rs); outside a git
    # repository it needs --skip-git-repo-check; read-only: an evaluation changes nothing.
    agent_command=("codex", "exec", "--json", "--skip-git-repo-check", "--sandbox", "read-only", "--"),
    agent_stream="codex-exec-json",
)
