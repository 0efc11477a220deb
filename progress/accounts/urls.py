from django.urls import include, path

from progress.accounts.roles import SignInView
from progress.accounts.views import signup

urlpatterns = [
    path("signup/", signup, name="signup"),
    path("login/", SignInView.as_view(), name="login"),
    # logout (POST only), password_change(_done), password_reset(_done, _confirm, _complete).
    path("", include("django.contrib.auth.urls")),
]
