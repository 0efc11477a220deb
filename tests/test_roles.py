"""Roles are groups and permissions: the instructor role is the Instructors group, which only
an admin can give."""

import pytest
from django.contrib.auth.models import Group, Permission
from django.urls import reverse

from progress.accounts.models import INSTRUCTORS_GROUP
from tests.factories import StaffFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_the_instructors_group_carries_the_instructor_permission():
    learner = UserFactory()
    assert not learner.is_instructor
    learner.groups.add(Group.objects.get(name=INSTRUCTORS_GROUP))
    learner = type(learner).objects.get(pk=learner.pk)  # permissions are cached per instance
    assert learner.is_instructor


def test_a_curator_without_user_permissions_cannot_grant_the_role(client):
    curator = UserFactory(is_staff=True)
    curator.user_permissions.add(*Permission.objects.filter(content_type__app_label="questions"))
    learner = UserFactory()
    client.force_login(curator)
    url = reverse("admin:progress_user_change", args=[learner.pk])
    assert client.get(url).status_code == 403
    group = Group.objects.get(name=INSTRUCTORS_GROUP)
    response = client.post(url, {"username": learner.username, "groups": [group.pk]})
    assert response.status_code == 403
    assert not learner.groups.exists()


def test_an_admin_grants_the_role_in_the_admin(client):
    client.force_login(StaffFactory())
    learner = UserFactory()
    group = Group.objects.get(name=INSTRUCTORS_GROUP)
    url = reverse("admin:progress_user_change", args=[learner.pk])
    page = client.get(url)
    assert page.status_code == 200
    assert INSTRUCTORS_GROUP in page.text
    data = {
        "username": learner.username,
        "email": learner.email,
        "first_name": "",
        "last_name": "",
        "is_active": "on",
        "groups": [group.pk],
        "date_joined_0": learner.date_joined.strftime("%Y-%m-%d"),
        "date_joined_1": learner.date_joined.strftime("%H:%M:%S"),
    }
    response = client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    learner = type(learner).objects.get(pk=learner.pk)
    assert learner.is_instructor
    assert not learner.is_staff
