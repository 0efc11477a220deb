from typing import Any

from django import forms
from django.contrib.auth.forms import AuthenticationForm, PasswordResetForm, UserCreationForm
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.template import loader

from progress.accounts.lockout import lockout_warning
from progress.accounts.models import User
from progress.accounts.tasks import send_email

DUPLICATE_USERNAME = "That username is taken. Choose another one."


class SignupForm(forms.Form):
    """The sign-up page asks only for an address: whether it is registered is told to its
    mailbox, never on the page (see `progress.accounts.signup`)."""

    email = forms.EmailField(
        label="E-mail",
        max_length=254,
        help_text="We e-mail you a link to choose your username and password.",
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )

    def clean_email(self) -> str:
        email: str = self.cleaned_data["email"]
        return email.strip()


class AccountForm(UserCreationForm[User]):
    """The username and password of a new account whose e-mail the sign-up link proved.
    Django's password validators run through UserCreationForm (on `password2`), with the
    e-mail known to the similarity check."""

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username",)

    def __init__(self, email: str, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, instance=User(email=email), **kwargs)
        username = self.fields["username"]
        username.help_text = (
            "Letters, digits and . + - _ only, up to 150 characters. Instructors of a class "
            "you join see it."
        )

    def clean_username(self) -> str:
        username = self.cleaned_data.get("username")
        # Sign-in treats anything with an @ as an e-mail: a username that looks like one
        # could be mistaken for another learner's address.
        if username and "@" in username:
            raise ValidationError("A username cannot contain @. You sign in with your e-mail, too.")
        # "." and ".." would make paths such as /instructor/cohorts/<code>/learners/../ point
        # somewhere else: a name needs a letter, a digit or a sign other than a dot.
        if username and not username.strip("."):
            raise ValidationError("A username needs more than dots: add a letter or a digit.")
        return super().clean_username()


class LoginForm(AuthenticationForm):
    """Sign in with a username or an e-mail (see `UsernameOrEmailBackend`)."""

    error_messages = {
        **AuthenticationForm.error_messages,
        "invalid_login": (
            "That username or e-mail and password do not match an account. "
            "Passwords are case-sensitive."
        ),
    }

    def __init__(self, request: HttpRequest | None = None, *args: Any, **kwargs: Any) -> None:
        super().__init__(request, *args, **kwargs)
        self.fields["username"].label = "Username or e-mail"

    def get_invalid_login_error(self) -> ValidationError:
        error = super().get_invalid_login_error()
        warning = lockout_warning(self.request) if self.request is not None else ""
        if warning:
            return ValidationError([error, ValidationError(warning, code="lockout_warning")])
        return error


class QueuedPasswordResetForm(PasswordResetForm):
    """Django's reset form, whose mail the worker sends: the request only enqueues it."""

    def send_mail(
        self,
        subject_template_name: str,
        email_template_name: str,
        context: dict[str, Any],
        from_email: str | None,
        to_email: str,
        html_email_template_name: str | None = None,
    ) -> None:
        subject = "".join(loader.render_to_string(subject_template_name, context).splitlines())
        body = loader.render_to_string(email_template_name, context)
        html = None
        if html_email_template_name is not None:
            html = loader.render_to_string(html_email_template_name, context)
        send_email.enqueue(subject, body, from_email, [to_email], html)
