"""skilllint: a linter for Agent Skills that checks each skill the way each agent loads it."""

__version__ = "0.1.0"
