"""Print merged pull requests since a tag, grouped by label: changelog.py --since TAG"""
import argparse
import json
import subprocess

parser = argparse.ArgumentParser()
parser.add_argument("--since", required=True)
args = parser.parse_args()
query = f"merged:>={args.since}"
out = subprocess.run(["gh", "pr", "list", "--state", "merged", "--search", query, "--json", "title,labels"],
                     check=True, capture_output=True, text=True).stdout
for pr in json.loads(out):
    labels = ",".join(label["name"] for label in pr["labels"]) or "other"
    print(f"{labels}\t{pr['title']}")
