"""Discovery: from the paths given to the skill packages each surface would find. The walk and
its exclusions (`.gitignore` and the configuration); the install units (plugin manifests,
marketplace entries and agent folders: what installs each skill, the one model every rule reads
layout from); which skills Claude Code reads though it does not list them (those the listed
skills link to); and whether a surface would find a skill where it lies (SL52x)."""
