"""References and progressive disclosure (SL30x-SL31x): the reference graph from SKILL.md, what each
reference resolves to and the checks on it, anchors, which bundled files nothing reaches, the
context around a mention (its load condition), folder mentions and generic pointers, and tables of
contents."""
