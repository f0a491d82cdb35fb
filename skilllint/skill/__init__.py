"""The skill package model and every analysis of its files: the package and its inventory,
discovery, frontmatter and YAML, the Markdown scanner, passages and the reference graph,
openai.yaml, scripts, tokens, suppression comments. Rules and the catalog build on these."""
