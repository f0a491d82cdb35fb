"""Security content (SL80x). Their analysis: :mod:`skilllint.skill.security`."""
