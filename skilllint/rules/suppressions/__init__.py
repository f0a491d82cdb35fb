"""Suppression comments (SL90x). Their analysis: :mod:`skilllint.skill.suppressions`."""
