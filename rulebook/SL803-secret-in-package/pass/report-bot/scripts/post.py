import os
import sys
import urllib.request

REPORTS_API_TOKEN = os.environ["REPORTS_API_TOKEN"]  # set by the user; never written in the skill

body = open(sys.argv[1], encoding="utf-8").read().encode()
request = urllib.request.Request("https://reports.example.com/post", body, {"Authorization": f"Bearer {REPORTS_API_TOKEN}"})
urllib.request.urlopen(request)
