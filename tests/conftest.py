import pytest


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    # Hashing with the production hasher makes every login in the suite take a quarter second.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def pytest_report_header(config):
    from django.conf import settings

    database = settings.DATABASES["default"]
    return (
        f"database: {database['ENGINE'].rsplit('.', 1)[-1]} {database.get('HOST') or ''}".rstrip()
    )
