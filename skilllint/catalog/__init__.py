"""Catalog simulation and routing: what each surface lists in its model-visible skills catalog
(Codex, Claude Code, Copilot) and how it renders it, description overlap, and the routing-only
analyses of the selection rules (SL51x): whether a description says when to use the skill,
what its body says it is about, and the lexical router `skilllint eval` runs offline."""
