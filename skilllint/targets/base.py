"""The shape of a surface profile (a *target*).

A profile is data: what keys the surface accepts and what it does with the
rest, which splitter and YAML semantics it reads frontmatter with, its name
and description constraints. Rules read these facts instead of hard-coding a
surface; the per-target *severities* live with each rule (the rule book is the
contract for those).
"""

from __future__ import annotations

from dataclasses import dataclass

SPEC_KEYS = frozenset({"name", "description", "license", "compatibility", "metadata", "allowed-tools"})

CLAUDE_CODE_KEYS = SPEC_KEYS | frozenset(
    {
        "when_to_use",
        "argument-hint",
        "arguments",
        "disable-model-invocation",
        "user-invocable",
        "disallowed-tools",
        "model",
        "effort",
        "context",
        "agent",
        "background",
        "hooks",
        "paths",
        "shell",
    }
)


@dataclass(frozen=True)
class Target:
    """A surface's profile: how it splits, parses and validates a skill and where it looks for one."""

    def __hash__(self) -> int:
        # By id (equal targets have equal ids): the generated hash would hash all ~50 fields on
        # every call, and tuples of targets key the rule plans every package asks for.
        return hash(self.id)

    id: str
    title: str
    evidence: str  # docs/surfaces.md section(s)
    splitter: str  # key of frontmatter.SPLITTERS
    semantics: str  # yamltree.resolve_scalar semantics: strict | yaml11 | yaml12
    accepted_keys: frozenset[str]
    # What the surface does with a key outside accepted_keys:
    # "reject" (validation error), "warn" (spec says no such field), "ignore", or
    # None when the evidence does not say ([??]): then no finding.
    unknown_keys: str | None
    # Discovery: the file names the surface accepts for SKILL.md.
    skill_filenames: tuple[str, ...] = ("SKILL.md",)
    # Name rules.
    name_charset: str | None = "ascii"  # "ascii" (a-z0-9-), "unicode" (isalnum/-), None
    name_max: int | None = 64
    # How the surface measures a description's length: raw | strip | collapse.
    description_count: str = "raw"
    # Only the targets whose facts are [2ND]: their findings are capped at warning.
    secondary: bool = False
    # The manifest of the plugins this surface installs by copying the plugin's folder whole,
    # so that a skill's files may lean on the rest of its plugin; None: skills come alone.
    plugin_manifest: tuple[str, str] | None = None

    # -- how the surface validates ------------------------------------------------------------
    # The surface is the reference validator (skills-ref): findings for it alone quote its own
    # message text (Outcome.ref_message), and it compares names NFKC-normalised.
    reference_validator: bool = False
    # The surface judges a skill with Anthropic's quick_validate.py or a copy of it: an
    # optional field is checked only when truthy; any string passes as a name.
    quick_validate: bool = False
    # How the surface reads the `name` string before checking it: raw | strip | collapse | nfkc
    # (NFKC then strip).
    name_read: str = "raw"
    # A missing, empty or blank `name` is not an error: the surface uses the folder name.
    name_defaults_to_folder: bool = False
    # The surface prefixes a plugin skill's name with its plugin's (`plugin:name`) before
    # checking the name's length.
    name_counts_plugin_prefix: bool = False
    # Frontmatter is read into typed fields: a value of the wrong type (a list where a string
    # is expected) fails the load of the whole skill.
    typed_frontmatter: bool = False
    # The surface loads a skill whatever its frontmatter holds: unparsable YAML gives a skill
    # with no fields set, a field it cannot read is dropped, not reported.
    lenient_loader: bool = False
    # An empty or blank `description` is rejected (others take it as it is).
    requires_description_text: bool = False
    # The specification's own limits on text fields: `compatibility` must hold 1-500 characters.
    requires_compatibility_text: bool = False
    # `metadata` values are checked to be strings.
    checks_metadata_values: bool = False
    # A NUL byte in SKILL.md is read on as text (a binary-sniffing tool would stop there).
    reads_nul_bytes: bool = False
    # Skill folders named `synced`, and `anthropic-skills` names, are reserved.
    reserves_anthropic_names: bool = False

    # -- discovery and listing ----------------------------------------------------------------
    # The skills folders the surface scans in a repository, as (dot-folder, "skills") pairs.
    project_skill_folders: tuple[tuple[str, str], ...] = ()
    # The surface lists only `<skills folder>/<name>/SKILL.md` (it does not recurse): a deeper
    # skill is read only as a document a listed skill links to.
    lists_only_direct_children: bool = False
    # The surface looks for a SKILL.md inside another skill's folder (False: a nested skill is
    # a part of the skill holding it).
    loads_nested_skills: bool = True
    # The surface's scan skips every folder whose name starts with `.` below its skills root.
    skips_dot_folders: bool = False
    # The surface's discovery skips a SKILL.md that is a symbolic link.
    skips_linked_skill_md: bool = False
    # The plugin manifests that make a folder a plugin (its own namespaced catalog) for the surface.
    catalog_plugin_manifests: tuple[tuple[str, str], ...] = (
        (".claude-plugin", "plugin.json"),
        (".codex-plugin", "plugin.json"),
    )
    # The marketplaces whose entries install a folder of the tree as a plugin for the surface
    # (skilllint.discovery.plugins).
    plugin_marketplaces: tuple[tuple[str, ...], ...] = (
        (".claude-plugin", "marketplace.json"),
        (".agents", "plugins", "marketplace.json"),
    )
    # Same-named project skills in two of `project_skill_folders`: the one in the earlier folder
    # wins (Gemini CLI: `.agents/skills` over `.gemini/skills`); False: which one is not defined.
    ranks_project_folders: bool = False
    # A repository's skills load only once the user trusts the workspace (Gemini CLI).
    workspace_needs_trust: bool = False
    # Same-named skills of different scopes: the winning scope first; None: all are kept.
    scope_precedence: tuple[str, ...] | None = ("repo", "user", "admin", "system")
    # The surface compares skill names exactly (else ignoring case).
    names_case_sensitive: bool = False
    # `disable-model-invocation: true` keeps the skill out of the model's listing.
    hides_disabled_skills: bool = False
    # agents/openai.yaml `policy.allow_implicit_invocation: false` keeps the skill out of the
    # model's listing.
    reads_openai_yaml_policy: bool = False
    # The listing shows `when_to_use` after the description.
    lists_when_to_use: bool = False
    # A skill with no description is listed with its first non-empty body line.
    lists_first_body_line: bool = False
    # Which model of the surface's catalog (skilllint.catalog.render) judges its budget:
    # "budgeted-catalog" (Codex's), "listing" (Claude Code's), "cli-listing" (Copilot CLI's),
    # None when no budget is known.
    catalog_model: str | None = None
    # Which of SL520's models says when the surface's discovery never finds a skill:
    # "walk" (Codex), "first-skill-md" (OpenCode), "direct-children" (Claude Code), None.
    discovery_model: str | None = None
    # How findings name the surface in prose (else "the <id> surface").
    prose_name: str | None = None

    # -- its own agent, for `skilllint eval --agent <id>` ---------------------------------------
    # The surface's non-interactive command with machine-readable output; the query goes
    # after it as the last argument (None: no such command is known).
    agent_command: tuple[str, ...] | None = None
    # The stream that command prints: "claude-stream-json" (`claude -p --output-format
    # stream-json`) or "codex-exec-json" (`codex exec --json`).
    agent_stream: str | None = None

    @property
    def called(self) -> str:
        return self.prose_name or f"the {self.id} surface"
