"""The shared cache is an accelerator: with Redis unreachable the site keeps working from the
database. (scripts/topology_test.py stops a real redis-server under load.)"""

import logging
import socket

import pytest
from django.core.cache import caches
from django.urls import reverse

from courseiva.cache import TolerantRedisCache
from questions.models import Question
from tests.factories import QuestionFactory, UserFactory
from tests.worker import queued

pytestmark = pytest.mark.django_db


@pytest.fixture
def redis_down(settings, monkeypatch):
    """CACHE_URL naming a Redis that nobody answers at (a port just closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setattr(TolerantRedisCache, "_skip_until", 0.0)
    settings.CACHES = {
        "default": {
            "BACKEND": "courseiva.cache.TolerantRedisCache",
            "LOCATION": f"redis://127.0.0.1:{port}/0",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
    assert isinstance(caches["default"], TolerantRedisCache)


def test_question_pages_and_answers_work_without_redis(client, redis_down, caplog):
    question = QuestionFactory(stem="Which port does **HTTPS** use?", options=[True, False])
    right = question.options.get(is_correct=True).key
    with caplog.at_level(logging.WARNING, logger="courseiva.cache"):
        page = client.get(question.get_absolute_url())
    assert page.status_code == 200
    assert "<strong>HTTPS</strong>" in page.text
    assert "Cache unavailable" in caplog.text
    answer = client.post(question.get_absolute_url(), {"choice": right})
    assert answer.status_code == 200
    assert 'id="result"' in answer.text


def test_an_edit_shows_at_once_without_redis(client, redis_down):
    """Nothing is kept while Redis is down, so nothing stale is shown either."""
    question = QuestionFactory(stem="Old wording", options=[True, False])
    assert "Old wording" in client.get(question.get_absolute_url()).text
    # Written behind the site's back (no write path drops a page): only a page that was not
    # kept shows it.
    Question.objects.filter(pk=question.pk).update(stem="New wording")
    assert "New wording" in client.get(question.get_absolute_url()).text


def test_signing_in_works_without_redis(client, redis_down):
    UserFactory(username="alice")
    response = client.post(
        reverse("login"), {"username": "alice", "password": "correct horse battery staple"}
    )
    assert response.status_code == 302
    assert client.get(reverse("progress_home")).status_code == 200


def test_reset_limits_let_requests_through_while_redis_is_down(client, redis_down):
    """The limits count in the cache: without one they are not counted, rather than refusing
    every reset on the site."""
    UserFactory(email="alice@example.com")
    for _ in range(5):
        response = client.post(reverse("password_reset"), {"email": "alice@example.com"})
        assert response["Location"] == reverse("password_reset_done")
    assert len(queued("send_email")) == 5
