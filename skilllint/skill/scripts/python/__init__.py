"""Python scripts read for SL701: what a parse of the script collects (its prompts and the
conditions on the paths to them), and whether a given command line reaches one."""
