"""Containment and filesystem safety (SL40x). Their analysis: :mod:`skilllint.skill.safety`."""
