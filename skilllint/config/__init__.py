"""Configuration: the settings read from `skilllint.toml`, `.skilllint.toml` or `pyproject.toml`
(found, validated against their schema and merged with the command line), and the small JSON
Schema checker the settings and eval files are validated with."""
