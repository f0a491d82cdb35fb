import json
import platform


def snapshot():
    return {"python": platform.python_version(), "os": platform.platform()}


def main():
    print(json.dumps(snapshot(), indent=2))


if __name__ == "__main__":
    main()
