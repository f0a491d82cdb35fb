"""Readers of raw text that every family shares: SKILL.md split into frontmatter and body, the
position-keeping YAML tree and the edits made on it, the Markdown scanner (headings, links, code
spans and fences), and passages (whose files a passage of Markdown names). They know nothing of
packages or rules: the package model is built on them."""
