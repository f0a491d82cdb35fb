import json
import sys

from pypdf import PdfReader, PdfWriter

reader = PdfReader(sys.argv[1])
writer = PdfWriter(clone_from=reader)
values = json.load(open(sys.argv[2]))
for page in writer.pages:
    writer.update_page_form_field_values(page, values)
writer.write(sys.argv[3])
