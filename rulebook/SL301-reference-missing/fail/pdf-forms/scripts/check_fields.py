import sys

from pypdf import PdfReader

fields = PdfReader(sys.argv[1]).get_fields() or {}
for name, field in fields.items():
    print(name, field.get("/FT"))
