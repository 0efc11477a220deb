import pytest


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    # Hashing with the production hasher makes every login in the suite take a quarter second.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
