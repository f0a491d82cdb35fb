import sys
import urllib.request

REPORTS_API_TOKEN = "ox9yimTcfipZGnzPbDFDyFKm51zfFoWb"

body = open(sys.argv[1], encoding="utf-8").read().encode()
request = urllib.request.Request("https://reports.example.com/post", body, {"Authorization": f"Bearer {REPORTS_API_TOKEN}"})
urllib.request.urlopen(request)
