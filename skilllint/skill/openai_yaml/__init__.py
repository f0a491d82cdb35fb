"""`agents/openai.yaml` (SL60x): the file read as Codex reads it, and how its issues are worded."""
