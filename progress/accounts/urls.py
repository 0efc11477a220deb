from django.contrib.auth.views import LoginView
from django.urls import include, path

from progress.accounts.forms import LoginForm
from progress.accounts.views import signup

urlpatterns = [
    path("signup/", signup, name="signup"),
    path("login/", LoginView.as_view(authentication_form=LoginForm), name="login"),
    # logout (POST only), password_change(_done), password_reset(_done, _confirm, _complete).
    path("", include("django.contrib.auth.urls")),
]
