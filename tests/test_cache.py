"""The shared cache is an accelerator: with Redis unreachable the site keeps working from the
database. (scripts/topology_test.py stops a real redis-server under load.)"""

import logging
import shutil
import socket
import subprocess
import time
from datetime import timedelta

import pytest
import redis
from django.core.cache import caches
from django.urls import reverse

from courseiva.lib.cache import TolerantRedisCache
from progress.accounts.models import LimitCount
from questions.models import Question
from questions.pages import snapshot as pages
from tests.factories import QuestionFactory, UserFactory
from tests.worker import queued

pytestmark = pytest.mark.django_db


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def use_redis_at(settings, monkeypatch, port: int) -> None:
    """The cache settings a redis:// CACHE_URL gives, for this port."""
    monkeypatch.setattr(TolerantRedisCache, "_skip_until", 0.0)
    redis = {
        "BACKEND": "courseiva.lib.cache.TolerantRedisCache",
        "LOCATION": f"redis://127.0.0.1:{port}/0",
        "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
    }
    settings.CACHES = {"default": redis, "limits": redis}
    assert isinstance(caches["default"], TolerantRedisCache)


@pytest.fixture
def redis_down(settings, monkeypatch):
    """CACHE_URL naming a Redis that nobody answers at (a port just closed)."""
    use_redis_at(settings, monkeypatch, free_port())


@pytest.fixture
def redis_server(settings, monkeypatch):
    """A private redis-server (Debian's package), without persistence, as the cache: its port."""
    binary = shutil.which("redis-server") or "/usr/bin/redis-server"
    if not shutil.which(binary):
        pytest.skip("redis-server is not installed: apt-get install redis-server")
    port = free_port()
    server = subprocess.Popen(  # noqa: S603 - Debian's redis-server, from the PATH
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        use_redis_at(settings, monkeypatch, port)
        yield port
    finally:
        server.kill()
        server.wait()


def test_question_pages_and_answers_work_without_redis(client, redis_down, caplog):
    question = QuestionFactory(stem="Which port does **HTTPS** use?", options=[True, False])
    right = question.options.get(is_correct=True).key
    with caplog.at_level(logging.WARNING, logger="courseiva.lib.cache"):
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


def test_with_redis_the_reset_limits_count_in_it(client, redis_server):
    """Redis is shared by every process: the limits count there, not in the database."""
    UserFactory(email="alice@example.com")
    statuses = [
        client.post(reverse("password_reset"), {"email": "alice@example.com"}).status_code
        for _ in range(5)
    ]
    assert statuses == [302, 302, 302, 429, 429]
    assert len(queued("send_email")) == 3
    assert not LimitCount.objects.exists()
    assert redis.Redis(port=redis_server).keys("*rl:*")


def test_reset_limits_let_requests_through_while_redis_is_down(client, redis_down):
    """With Redis the limits count in it: while it is down they are not counted, rather than
    refusing every reset on the site."""
    UserFactory(email="alice@example.com")
    for _ in range(5):
        response = client.post(reverse("password_reset"), {"email": "alice@example.com"})
        assert response["Location"] == reverse("password_reset_done")
    assert len(queued("send_email")) == 5


def test_an_edit_made_while_redis_was_unreachable_is_not_served_stale_once_it_is_back(
    client, settings, redis_server, monkeypatch, django_capture_on_commit_callbacks
):
    """Redis cut off but keeping its data (a network split) still holds the old page after
    the edit's drop failed: the page poll drops it once Redis answers again."""
    live_port = redis_server
    question = QuestionFactory(stem="Old wording", options=[True, False])
    url = question.get_absolute_url()
    assert "Old wording" in client.get(url).text  # now kept in Redis
    monkeypatch.setattr(pages, "POLL_OVERLAP", timedelta(0))

    use_redis_at(settings, monkeypatch, free_port())  # cut off
    with django_capture_on_commit_callbacks(execute=True):
        Question.objects.filter(pk=question.pk).update(stem="New wording")
        pages.forget_questions([question.uid])
    # A poll falls due meanwhile: the page comes from the database.
    monkeypatch.setattr(pages._Poll, "next_at", 0.0)
    assert "New wording" in client.get(url).text

    use_redis_at(settings, monkeypatch, live_port)  # back, with the old page
    monkeypatch.setattr(pages._Poll, "next_at", 0.0)
    assert "New wording" in client.get(url).text


def test_cache_calls_share_one_redis_client(redis_server, monkeypatch):
    """Django builds a redis.Redis per cache call, a costly constructor: ours is made once and
    then serves reads, writes and deletes alike."""
    made = []
    build = redis.Redis.__init__

    def counted(self, *args, **kwargs):
        made.append(self)
        build(self, *args, **kwargs)

    monkeypatch.setattr(redis.Redis, "__init__", counted)
    cache = caches["default"]
    cache.set("page", "<p>kept</p>")
    assert cache.get("page") == "<p>kept</p>"
    assert cache.get_many(["page", "other"]) == {"page": "<p>kept</p>"}
    cache.delete("page")
    assert cache.get("page") is None
    assert len(made) == 1
