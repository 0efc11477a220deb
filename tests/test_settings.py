"""The settings module refuses bad or unsafe environments with a message naming the variable."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SETTINGS_VARIABLES = {
    "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL", "CSRF_TRUSTED_ORIGINS",
    "CONN_MAX_AGE", "CACHE_URL", "LOG_LEVEL", "EMAIL_URL", "AXES_FAILURE_LIMIT", "SITE_URL",
    "UNSAFE_MAIL_TO_CONSOLE", "FORCE_SCRIPT_NAME", "PG_PREPARE_THRESHOLD", "TRUSTED_PROXIES",
    "FORWARDED_ALLOW_IPS",
}  # fmt: skip
PRODUCTION = {
    "DEBUG": "0",
    "SECRET_KEY": "a-production-secret-key-that-is-long-enough-0123456789",
    "ALLOWED_HOSTS": "courseiva.example",
    "EMAIL_URL": "smtp://mailer:secret@mail.example:587",
}


CHECK = ("check",)
SHOW_CONN_MAX_AGE = (
    "shell",
    "-c",
    "from django.conf import settings; print(settings.DATABASES['default']['CONN_MAX_AGE'])",
)


def start(command: tuple[str, ...] = CHECK, **variables: str) -> subprocess.CompletedProcess[str]:
    """Import the settings and run the system checks (or another manage.py `command`) in a
    fresh process with this environment."""
    # Nor the browser tests' async switch, which the deploy check rightly refuses.
    unwanted = {*SETTINGS_VARIABLES, "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env = {key: value for key, value in os.environ.items() if key not in unwanted}
    env.update(variables)
    return subprocess.run(  # noqa: S603 - manage.py with this module's own commands
        [sys.executable, "manage.py", *command],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_production_environment_starts():
    result = start(**PRODUCTION)
    assert result.returncode == 0, result.stderr


def test_debug_on_needs_nothing_else():
    assert start(DEBUG="1").returncode == 0


@pytest.mark.parametrize(
    ("variables", "message"),
    [
        ({"SECRET_KEY": ""}, "SECRET_KEY"),
        ({"SECRET_KEY": "short"}, "SECRET_KEY is too short"),
        ({"ALLOWED_HOSTS": ""}, "ALLOWED_HOSTS"),
        ({"DEBUG": "maybe"}, "DEBUG='maybe' is not a boolean"),
        ({"DATABASE_URL": "nosuchdb://x/y"}, "DATABASE_URL"),
        ({"CONN_MAX_AGE": "forever"}, "CONN_MAX_AGE='forever' is not a whole number"),
        ({"CSRF_TRUSTED_ORIGINS": "courseiva.example"}, "CSRF_TRUSTED_ORIGINS"),
        ({"SITE_URL": "courseiva.example"}, "SITE_URL='courseiva.example' must be an origin"),
        ({"SITE_URL": "https://courseiva.example/app"}, "SITE_URL="),
        ({"ALLOWED_HOSTS": "a,,b"}, "ALLOWED_HOSTS"),
        ({"CACHE_URL": "memcached://x"}, "CACHE_URL='memcached://x'"),
        ({"LOG_LEVEL": "LOUD"}, "LOG_LEVEL='LOUD'"),
        ({"EMAIL_URL": "pigeon://coop"}, "EMAIL_URL='pigeon://coop'"),
        ({"EMAIL_URL": "smtp://"}, "names no host"),
        ({"AXES_FAILURE_LIMIT": "0"}, "AXES_FAILURE_LIMIT='0' must be at least 1"),
    ],
)
def test_bad_values_stop_start_up_naming_the_variable(variables, message):
    result = start(**{**PRODUCTION, **variables})
    assert result.returncode != 0
    assert message in result.stderr


DEPLOY_CHECK = ("check", "--deploy", "--fail-level", "ERROR")  # as `make serve` runs it


@pytest.mark.parametrize(
    ("variables", "warning"),
    [
        ({"ALLOWED_HOSTS": "*"}, "(courseiva.W001) ALLOWED_HOSTS=* accepts any Host header"),
        ({"ALLOWED_HOSTS": "courseiva.example,*"}, "(courseiva.W001)"),
        ({"FORWARDED_ALLOW_IPS": "*"}, "(courseiva.W002) FORWARDED_ALLOW_IPS=* makes gunicorn"),
        ({"FORWARDED_ALLOW_IPS": "192.0.2.10, *"}, "(courseiva.W002)"),
        ({"TRUSTED_PROXIES": "*"}, "(courseiva.W003) TRUSTED_PROXIES=* is no wildcard"),
    ],
)
def test_a_wildcard_with_debug_off_is_a_warning_at_start(variables, warning):
    result = start(DEPLOY_CHECK, **{**PRODUCTION, **variables})
    assert result.returncode == 0, result.stderr  # `make serve` goes on, saying so
    assert warning in result.stderr
    assert result.stderr.count("(courseiva.W") == 1


def test_wildcards_on_a_developers_machine_are_not_warned_of():
    # (The deploy check has its own errors there: console mail, the development key.)
    result = start(DEPLOY_CHECK, DEBUG="1", ALLOWED_HOSTS="*", FORWARDED_ALLOW_IPS="*")
    assert "(security.W018) You should not have DEBUG set to True" in result.stderr
    assert "courseiva.W" not in result.stderr


def test_missing_secret_key_with_debug_off_says_what_to_set():
    env = dict(PRODUCTION)
    del env["SECRET_KEY"]
    result = start(**env)
    assert result.returncode != 0
    assert "DEBUG is off but SECRET_KEY is not set" in result.stderr


def test_postgres_url_selects_psycopg():
    result = subprocess.run(
        [sys.executable, "-c",
         "import django; django.setup(); from django.conf import settings; "
         "print(settings.DATABASES['default']['ENGINE'])"],
        cwd=ROOT,
        env={**os.environ, "DEBUG": "1", "DATABASE_URL": "postgres://u:p@db.example:5432/c",
             "DJANGO_SETTINGS_MODULE": "courseiva.settings"},
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    # Django's psycopg backend, with its health check made without a round trip.
    assert result.stdout.strip() == "courseiva.lib.postgres"


def test_debug_off_needs_a_mail_server_or_a_loud_opt_out():
    without = start(**{**PRODUCTION, "EMAIL_URL": ""})
    assert without.returncode != 0
    assert "EMAIL_URL must name a mail server" in without.stderr
    console = start(**{**PRODUCTION, "EMAIL_URL": "console://"})
    assert console.returncode != 0
    assert "UNSAFE_MAIL_TO_CONSOLE=1" in console.stderr
    trial = start(**{**PRODUCTION, "EMAIL_URL": "console://", "UNSAFE_MAIL_TO_CONSOLE": "1"})
    assert trial.returncode == 0, trial.stderr
    # ... and passes the deploy check `make serve` runs, which would stop on console mail.
    # The browser tests' async escape hatch is for the test process only, not a deployment.
    unwanted = {*SETTINGS_VARIABLES, "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env = {key: value for key, value in os.environ.items() if key not in unwanted}
    env.update(PRODUCTION, EMAIL_URL="console://", UNSAFE_MAIL_TO_CONSOLE="1")
    deploy = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "ERROR"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert deploy.returncode == 0, deploy.stderr


def documented_production_settings() -> dict[str, str]:
    """The variables README.md's "What a deployment must set" lists, as a deployment would
    write them (its placeholder secret replaced)."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("### What a deployment must set", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    variables = dict(line.split("=", 1) for line in block.splitlines() if line.strip())
    variables["SECRET_KEY"] = "a-production-secret-key-that-is-long-enough-0123456789"
    return variables


def test_the_documented_production_settings_pass_the_deploy_check_without_a_warning():
    documented = documented_production_settings()
    # Every variable a production site needs is in the list.
    assert {"DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "CSRF_TRUSTED_ORIGINS", "DATABASE_URL",
            "CACHE_URL", "EMAIL_URL", "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS",
            "TRUSTED_PROXIES", "FORWARDED_ALLOW_IPS"} <= documented.keys()  # fmt: skip
    unwanted = {*SETTINGS_VARIABLES, "DJANGO_ALLOW_ASYNC_UNSAFE", *documented}
    env = {key: value for key, value in os.environ.items() if key not in unwanted}
    env.update(documented)
    deploy = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert deploy.returncode == 0, deploy.stderr
    assert "System check identified no issues" in deploy.stdout


@pytest.mark.parametrize(
    ("variables", "kept"),
    [
        ({"DATABASE_URL": "postgres://courseiva@db.internal:5432/courseiva"}, "60"),
        ({"DATABASE_URL": "sqlite:///tmp/courseiva.sqlite3"}, "0"),
        ({"DATABASE_URL": "postgres://db.internal/courseiva", "CONN_MAX_AGE": "0"}, "0"),
    ],
)
def test_postgresql_connections_are_kept_unless_told_otherwise(variables, kept):
    """Opened per request, a PostgreSQL connection (a forked, authenticated server process)
    would add about a third to a signed-in answer."""
    result = start(SHOW_CONN_MAX_AGE, DEBUG="1", **variables)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == kept


SHOW_DATABASE_OPTIONS = (
    "shell",
    "-c",
    "from django.conf import settings; o = settings.DATABASES['default'].get('OPTIONS', {}); "
    "print(o.get('server_side_binding'), o.get('prepare_threshold'))",
)


@pytest.mark.parametrize(
    ("variables", "shown"),
    [
        ({}, "True 2"),
        ({"PG_PREPARE_THRESHOLD": "10"}, "True 10"),
        ({"PG_PREPARE_THRESHOLD": "0"}, "True None"),  # behind a transaction-pooling PgBouncer
    ],
)
def test_postgresql_statements_are_prepared_unless_told_otherwise(variables, shown):
    result = start(
        SHOW_DATABASE_OPTIONS,
        DEBUG="1",
        DATABASE_URL="postgres://courseiva@db.internal:5432/courseiva",
        **variables,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == shown


def test_a_bad_prepare_threshold_stops_start_up():
    result = start(
        DEBUG="1", DATABASE_URL="postgres://db.internal/courseiva", PG_PREPARE_THRESHOLD="-1"
    )
    assert result.returncode != 0
    assert "PG_PREPARE_THRESHOLD" in result.stderr


@pytest.mark.django_db
def test_a_repeated_statement_is_prepared_on_postgresql():
    """The quiz answer's statements are the same text every time: after the threshold's runs
    the server keeps their plan, which was most of their cost."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("prepared statements are PostgreSQL's")
    with connection.cursor() as cursor:
        for _ in range(3):
            cursor.execute("SELECT COUNT(*) FROM progress_quiz WHERE code = %s", ["absent"])
        cursor.execute(
            "SELECT COUNT(*) FROM pg_prepared_statements WHERE statement LIKE %s",
            ["%FROM progress_quiz WHERE code = $1%"],
        )
        assert cursor.fetchone()[0] == 1
