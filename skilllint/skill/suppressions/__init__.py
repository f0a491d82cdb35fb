"""Suppression comments (SL90x): the `skilllint-disable` comments of Markdown and frontmatter as
the engine applies them, and which of them were used."""
