"""Tag photos; with --interactive, ask for a tag for each photo EXIF does not date."""
import argparse
import pathlib

parser = argparse.ArgumentParser()
parser.add_argument("folder")
parser.add_argument("--interactive", "-i", action="store_true", help="ask for missing tags")
args = parser.parse_args()

for photo in sorted(pathlib.Path(args.folder).glob("*.jpg")):
    tag = "undated"
    if args.interactive:  # opt-in: the default run never asks
        tag = input(f"Tag for {photo.name}: ") or tag
    print(photo.name, tag)
