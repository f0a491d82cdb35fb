"""skilllint: a linter for Agent Skills that checks each skill the way each agent loads it."""

__version__ = "0.1.0"

# The name pip knows this project by (pyproject.toml's project.name). The import package and
# the command stay `skilllint`; the PyPI project named "skilllint" is another tool.
DISTRIBUTION = "agent-skilllint"

# The project's public home (its repository's web address), the one place it is written: SARIF's
# helpUri and informationUri and the `#:schema` line of `skilllint init` follow it, and
# pyproject.toml's [project.urls] must name it (tests/test_packaging.py). None while the project
# has no public home: nothing then links anywhere, and the rule book is read with `skilllint rule`.
HOMEPAGE: str | None = None
