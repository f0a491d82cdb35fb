"""Bundled scripts (SL70x): scripts read as text (lexers and maskers), shell command lines, how
SKILL.md tells the agent to run a script and whether that works, where a script stops to ask a
question, package runners that fetch unpinned code, and what Claude Code's argument substitution
does to SKILL.md's commands. `python/` holds the model of a Python script's prompts."""
