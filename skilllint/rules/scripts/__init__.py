"""Bundled scripts (SL70x). Their analysis: :mod:`skilllint.skill.scripts`."""
