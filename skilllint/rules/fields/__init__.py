"""SKILL.md and its frontmatter fields as each target reads them (SL00x-SL1xx): the package and its
parse, `name`, `description`, the other fields, invocation. Their analysis:
:mod:`skilllint.skill.fields`."""
