"""Mail sent by the worker rather than inside a request (password resets): the page answers
at once, and a slow or failing mail server does not show in it."""

from django.core.mail import EmailMultiAlternatives
from django.tasks import task


@task
def send_email(
    subject: str, body: str, from_email: str | None, to: list[str], html: str | None = None
) -> int:
    message = EmailMultiAlternatives(subject, body, from_email, to)
    if html is not None:
        message.attach_alternative(html, "text/html")
    return message.send()
