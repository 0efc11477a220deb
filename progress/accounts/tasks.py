"""Mail sent by the worker rather than inside a request (password resets, sign-ups): the page
answers at once, and a slow or failing mail server does not show in it. And the pruning of
the limits' ended counters."""

from django.core.mail import EmailMultiAlternatives
from django.tasks import task

from progress.accounts.limit_store import prune_ended_counts
from progress.accounts.signup import signup_message


@task
def send_email(
    subject: str, body: str, from_email: str | None, to: list[str], html: str | None = None
) -> int:
    message = EmailMultiAlternatives(subject, body, from_email, to)
    if html is not None:
        message.attach_alternative(html, "text/html")
    return message.send()


@task
def send_signup_email(email: str, next_url: str, origin: str) -> int:
    """The sign-up link, or the note to the address's owner: which one is decided here, out
    of the request, so that the sign-up page cannot show it even in its timing."""
    return signup_message(email, next_url, origin).send()


@task
def prune_limit_counts() -> int:
    """The counters of the sign-up and reset limits whose window has ended (progress/tasks.py
    runs it every hour): each window of each address and e-mail counted leaves a row."""
    return prune_ended_counts()
