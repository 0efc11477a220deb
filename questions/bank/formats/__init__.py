"""Question-bank formats, one module each. A format reads its files into our bank document
(the parsed courseiva-bank JSON), which `questions.bank.checks` checks and
`questions.bank.document_import` writes; export goes the other way."""
