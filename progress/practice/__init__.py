"""Practice: quizzes, recorded answers, spaced review, study analytics, and the learner's
bookmarks, notes and problem reports on a question."""
