"""The result cache: findings of earlier runs kept under `.skilllint_cache/`, keyed by what they
rest on (the files a rule read, the settings, skilllint's own code), with the stat memo that spares
re-hashing unchanged files, the packed result file and the catalog entries of earlier runs. Every
file is read and written through :mod:`skilllint.fsafe`, never through a link."""
