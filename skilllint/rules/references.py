"""Rules of issue 3 (being written): see RULES.md SL3xx/SL4xx."""

RULES: list = []
