"""Catalog simulation: what each surface lists in its model-visible skills catalog.

``skilllint.catalog.codex`` models the OpenAI Codex "available skills" renderer
(docs/surfaces.md §3d). Not wired into the CLI yet.
"""
