"""References and progressive disclosure (SL30x-SL31x). Their analysis:
:mod:`skilllint.skill.references`."""
