"""Public codes of a learner's rows (quizzes, mock exams, cohorts) in URLs: random and long
enough not to be guessed, so that a URL says nothing about how many rows there are."""

import secrets


def new_code() -> str:
    return secrets.token_urlsafe(9)
