"""The tag index: `list` prints it, `add` asks for a new tag."""
import sys


def add_tag():
    name = input("New tag: ")
    print("added", name)


def main():
    command = sys.argv[1] if len(sys.argv) > 1 else "list"
    if command == "add":  # add_tag() runs only for `index.py add`
        add_tag()
    else:
        print("holiday\nfamily")


if __name__ == "__main__":
    main()
