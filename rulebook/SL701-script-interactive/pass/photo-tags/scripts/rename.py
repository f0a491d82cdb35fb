"""Rename photos by date; confirms first only when a person is at the terminal."""
import pathlib
import sys

folder = pathlib.Path(sys.argv[1])
if sys.stdin.isatty():
    if input(f"Rename the photos in {folder}? [y/N] ") != "y":
        sys.exit(1)
for photo in sorted(folder.glob("*.jpg")):
    print("renamed", photo.name)
