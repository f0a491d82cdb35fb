"""The language server (`skilllint server`, the optional `lsp` extra): the protocol handlers in
`main.py`, conversions between findings and LSP types, the features (hovers, code actions),
message input and output, the workspace model, file watching, and the worker process that lints
off the main thread."""
