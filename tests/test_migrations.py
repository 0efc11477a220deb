"""The models and their migrations agree: a model change without its migration would pass
every test (they build the tables from the models) and fail on the first real `migrate`."""

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_every_model_change_has_its_migration():
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)
