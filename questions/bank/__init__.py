"""Getting questions into the bank and out of it: what a bank document must satisfy
(checks.py: the JSON schema, through schema_pass.py's quick yes, then the bank's rules),
our JSON documents written in one transaction in bulk (document_import.py), a foreign file's
questions into an exam (foreign_import.py), the options and rationales both imports match to
stored ones (option_rows.py), the admin's upload kept between preview and confirmation
(upload_store.py), and one reader or writer per format (formats/). The schema itself is
schema/question-bank.schema.json."""
