# /// script
# dependencies = ["python-docx==1.1.2"]
# ///
import sys

try:
    import docx
except ImportError:
    sys.exit("python-docx is missing: run `uv run scripts/convert.py …` or `pip install python-docx==1.1.2`")

for paragraph in docx.Document(sys.argv[1]).paragraphs:
    print(paragraph.text)
