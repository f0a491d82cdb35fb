"""skilllint: a linter for Agent Skills that checks each skill the way each agent loads it."""

__version__ = "0.1.0"

# The name pip knows this project by (pyproject.toml's project.name). The import package and
# the command stay `skilllint`; the PyPI project named "skilllint" is another tool.
DISTRIBUTION = "agent-skilllint"
