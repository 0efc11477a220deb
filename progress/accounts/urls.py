from django.urls import include, path

from progress.accounts.roles import SignInView
from progress.accounts.views import (
    LimitedPasswordResetView,
    SignOutView,
    signup,
    signup_confirm,
    signup_sent,
)

urlpatterns = [
    path("signup/", signup, name="signup"),
    path("signup/sent/", signup_sent, name="signup_sent"),
    path("signup/confirm/<str:token>/", signup_confirm, name="signup_confirm"),
    path("login/", SignInView.as_view(), name="login"),
    # The reset mail goes through the worker, and its requests are limited (before Django's
    # own URL of the same name).
    path("password_reset/", LimitedPasswordResetView.as_view(), name="password_reset"),
    # Sign-out also clears what the site kept in the browser (before Django's own).
    path("logout/", SignOutView.as_view(), name="logout"),
    # password_change(_done), password_reset(_done, _confirm, _complete).
    path("", include("django.contrib.auth.urls")),
]
