"""The skill as surfaces read it: the package model (`package.py`) and its inventory (every entry,
resolved without leaving the package), built on the raw-text readers of `text/`; and, one
sub-package per rule family, the analyses of its files: `fields/`, `size/`, `references/`,
`safety/`, `scripts/`, `security/`, `openai_yaml/`, `evals/`, `suppressions/`. Rules and the
catalog build on these."""
