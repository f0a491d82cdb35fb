"""Linting: the rule-blind engine, its worker processes, the result cache and the catalog
context. It runs whatever rules the settings enable and knows no rule by code."""
