"""Size (SL20x): lines, tokens and bytes on disk. Their analysis: :mod:`skilllint.skill.size`."""
