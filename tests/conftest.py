import pytest

from tests.factories import UserFactory


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


@pytest.fixture(autouse=True)
def _empty_cache():
    # Question pages are cached by uid; tests reuse uids, so each starts with an empty cache.
    import time

    from django.core.cache import cache

    from questions.pages import snapshot as pages

    cache.clear()
    # Each test starts a full poll interval away from reading PageChange, so that query
    # counts are the same whenever a test runs.
    pages._Poll.next_at = time.monotonic() + pages.POLL_SECONDS
    yield
    cache.clear()


@pytest.fixture
def learner(client):
    """A learner, signed in on the test client."""
    user = UserFactory()
    client.force_login(user)
    return user


@pytest.fixture(autouse=True)
def _media_root(settings, tmp_path):
    # Imports store question images: each test gets its own storage, never the project's
    # (FileSystemStorage reads the changed setting again).
    settings.MEDIA_ROOT = tmp_path / "media"
