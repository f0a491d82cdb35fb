"""What a command does: check and fix per configuration (trees), the fixer, the baseline,
the catalog preview, the suppression-comment editor. Front ends (cli, server) call these;
they call the engine (:mod:`skilllint.lint`) and the renderers (:mod:`skilllint.output`)."""
