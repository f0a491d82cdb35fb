"""Size (SL20x): token counting (offline, hash-verified tiktoken ranks, counted only where a
cheap bound cannot decide) and a package's size on disk as upload limits count it."""
