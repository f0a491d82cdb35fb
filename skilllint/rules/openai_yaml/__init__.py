"""`agents/openai.yaml` (SL60x). Their analysis: :mod:`skilllint.skill.openai_yaml`."""
