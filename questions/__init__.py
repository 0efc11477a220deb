"""The question bank: exams, topics, questions with their options and rationales, authors and
images (models.py, with the bank's rules and "is this answer right?"), the curators' admin
(admin.py, forms.py) and markdown made safe (markup.py); and a room per feature: bank/
(checks, imports and formats), pages/ (the public pages and their cached snapshots) and
media/ (question images). `questions` never imports `progress`."""
