"""The frontmatter fields as each target reads them (SL00x-SL1xx): the checks SKILL.md's parse
shares, field spans and type words per target, the fixes those rules attach, and what
`allowed-tools` pre-approves."""
