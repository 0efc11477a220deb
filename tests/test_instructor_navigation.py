"""Instructors find their pages: a "Teaching" entry in the header and sign-in landing on
/instructor/; learners land on /progress/ and never see the entry. The header learns the role
once per session, so pages pay no query for it."""

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse

from tests.factories import InstructorFactory, StaffFactory, UserFactory

pytestmark = pytest.mark.django_db

LOGIN = reverse("login")
PASSWORD = "correct horse battery staple"
TEACHING = f'<a href="{reverse("instructor_home")}">Teaching</a>'


def sign_in(client, user, **data):
    user.set_password(PASSWORD)
    user.save()
    return client.post(LOGIN, {"username": user.username, "password": PASSWORD, **data})


def test_instructors_land_on_their_cohorts_and_find_teaching_in_the_header(client):
    response = sign_in(client, InstructorFactory())
    assert response.status_code == 302
    assert response.url == reverse("instructor_home")
    assert TEACHING in client.get(reverse("progress_home")).text
    assert TEACHING in client.get(reverse("home")).text


def test_learners_land_on_their_progress_without_a_teaching_entry(client):
    response = sign_in(client, UserFactory())
    assert response.url == reverse("progress_home")
    page = client.get(reverse("progress_home")).text
    assert "Teaching" not in page
    assert client.get(reverse("instructor_home")).status_code == 403


def test_admins_teach_too(client):
    assert sign_in(client, StaffFactory(is_superuser=True)).url == reverse("instructor_home")


def test_a_next_link_wins_over_the_landing(client):
    target = reverse("bookmarks")
    response = sign_in(client, InstructorFactory(), next=target)
    assert response.url == target


def test_the_role_is_read_once_per_session(client, django_assert_num_queries):
    instructor = InstructorFactory()
    client.force_login(instructor)
    client.get(reverse("bookmarks"))  # learns the role
    # session with user, the bookmarks: no permission queries for the header
    with django_assert_num_queries(2):
        assert TEACHING in client.get(reverse("bookmarks")).text


def test_a_role_granted_shows_from_the_next_sign_in(client):
    learner = UserFactory()
    sign_in(client, learner)
    assert "Teaching" not in client.get(reverse("progress_home")).text
    learner.groups.add(Group.objects.get(name="Instructors"))
    client.post(reverse("logout"))
    assert sign_in(client, learner).url == reverse("instructor_home")
