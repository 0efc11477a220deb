from unittest import mock

import pytest
from django.db import OperationalError


def test_healthz_answers_without_the_database(client):
    # No django_db mark: any database access in the view would fail this test.
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.content == b"ok"


@pytest.mark.django_db
def test_readyz_is_ok_when_the_database_answers(client):
    response = client.get("/readyz")
    assert (response.status_code, response.content) == (200, b"ok")


@pytest.mark.django_db
def test_readyz_is_503_when_the_database_does_not_answer(client):
    with mock.patch(
        "django.db.backends.utils.CursorWrapper.execute", side_effect=OperationalError("down")
    ):
        response = client.get("/readyz")
    assert response.status_code == 503
