import argparse

parser = argparse.ArgumentParser(description="Build the weekly metrics report.")
parser.add_argument("--week", default="last")
print(f"report for week: {parser.parse_args().week}")
