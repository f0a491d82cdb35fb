import subprocess
import sys

try:
    import docx
except ImportError:
    subprocess.check_call([sys.executable, "-m", "pip", "install", "python-docx"])
    import docx

for paragraph in docx.Document(sys.argv[1]).paragraphs:
    print(paragraph.text)
