"""Print the name, type and current value of every field of a PDF form."""

import sys

from pypdf import PdfReader

for name, field in (PdfReader(sys.argv[1]).get_fields() or {}).items():
    print(f"{name}\t{field.get('/FT')}\t{field.get('/V')}")
