"""Group photos into albums; asks for an album title, or uses the folder name at end of input."""
import pathlib
import sys

folder = pathlib.Path(sys.argv[1])
try:
    title = input("Album title: ")
except EOFError:  # no terminal (an agent's shell): the folder name
    title = folder.name
print("album", title)
