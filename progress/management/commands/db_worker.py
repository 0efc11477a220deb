"""`manage.py db_worker`: django-tasks-db's worker with a heartbeat.

This command takes the place of django-tasks-db's own of the same name (progress comes before
django_tasks_db in INSTALLED_APPS), so that every way of starting the worker (`make worker`,
`make run`, docker-compose, the tests) beats; it runs that command unchanged, its options
included, inside `beating()` (progress.cohorts.heartbeat). django-tasks-db records in each
task the id of the worker that claimed it, but not whether that worker is still alive: a
killed worker left its task marked running until the two-hour sweep."""

import os
from typing import Any

from django.utils.autoreload import DJANGO_AUTORELOAD_ENV
from django_tasks_db.management.commands import db_worker

from progress.cohorts.heartbeat import beating


class Command(db_worker.Command):
    help = f"{db_worker.Command.help}, recording a heartbeat (progress.cohorts.heartbeat)"

    def handle(self, *args: Any, **options: Any) -> None:
        reloader = options["reload"] and not options["batch"]
        if reloader and os.environ.get(DJANGO_AUTORELOAD_ENV) != "true":
            # The reloader's watcher, which claims nothing: the process it starts, this
            # command again with an id of its own, runs the tasks and beats.
            return super().handle(*args, **options)
        with beating(options["worker_id"]):
            super().handle(*args, **options)
