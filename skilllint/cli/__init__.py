"""The command line: argument parsing and the verbs (`check`, `catalog`, `eval`, `rule`, `config`,
`init`, `status`), standard input read as a file, and what each verb prints. The work itself is
done in :mod:`skilllint.app`; `main.py` holds the entry point `run`."""
