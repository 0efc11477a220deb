from django.contrib.auth.views import PasswordResetView
from django.urls import include, path

from progress.accounts.forms import QueuedPasswordResetForm
from progress.accounts.roles import SignInView
from progress.accounts.views import signup

urlpatterns = [
    path("signup/", signup, name="signup"),
    path("login/", SignInView.as_view(), name="login"),
    # The reset mail goes through the worker (before Django's own URL of the same name).
    path(
        "password_reset/",
        PasswordResetView.as_view(form_class=QueuedPasswordResetForm),
        name="password_reset",
    ),
    # logout (POST only), password_change(_done), password_reset(_done, _confirm, _complete).
    path("", include("django.contrib.auth.urls")),
]
