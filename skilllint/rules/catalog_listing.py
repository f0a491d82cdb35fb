"""Catalog rules being written (issue 4)."""

RULES: list = []
