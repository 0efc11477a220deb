# Courseiva: `make run` to try it, `make test` to check it. See README.md.
SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PORT ?= 8000
HOST ?= 0.0.0.0
WEB_CONCURRENCY ?= 3
WORKER_NICE ?= 10
# gunicorn's access log ("-": stdout); empty turns it off (the HTTP benchmark does).
ACCESS_LOG ?= -

.PHONY: help venv install run serve worker test lint format seed bench screenshots topology-test clean

help:
	@echo "make run     create .venv, install, migrate, load demo data, serve on http://127.0.0.1:8000"
	@echo "             with the background worker and its schedule beside it (one Ctrl-C stops all)"
	@echo "make test    run the whole test suite"
	@echo "make lint    ruff check, ruff format --check, mypy"
	@echo "make serve   production-like server (gunicorn, DEBUG off) on \$$PORT against \$$DATABASE_URL"
	@echo "make worker  the background worker and its schedule (beside make serve, same settings)"
	@echo "make seed    load the demo bank and (re)create the demo users with new passwords"
	@echo "make bench   run the benchmarks in bench/"
	@echo "make screenshots  photograph the main pages into docs/screenshots/ (Chromium)"
	@echo "make topology-test  two make serve nodes, the worker, nginx, PostgreSQL and Redis on"
	@echo "             loopback, through node, database and cache failures (one summary line)"

# The virtualenv is made with the newest Python 3.12+ that scripts/find-python finds
# (override with PYTHON=...). It is rebuilt when pyproject.toml changes.
$(STAMP): pyproject.toml
	@if [ ! -x $(PY) ]; then \
		python=$${PYTHON:-$$(scripts/find-python)} || exit 1; \
		echo "Creating $(VENV) with $$python ($$($$python --version))"; \
		$$python -m venv $(VENV) || exit 1; \
	fi
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet '.[dev]'
	@touch $(STAMP)

venv install: $(STAMP)

# The web server, the task worker (db_worker: figures, item statistics, refits, mail) and the
# schedule (crontask: nightly and weekly tasks) as one: Ctrl-C stops all three.
run: $(STAMP)
	DEBUG=1 $(PY) manage.py migrate --noinput
	DEBUG=1 $(PY) manage.py seed_demo --if-empty
	DEBUG=1 exec scripts/together \
		"web: $(PY) manage.py runserver 127.0.0.1:$(PORT)" \
		"worker: $(PY) manage.py db_worker --no-reload" \
		"schedule: $(PY) manage.py crontask --no-heartbeat"

seed: $(STAMP)
	DEBUG=1 $(PY) manage.py migrate --noinput
	DEBUG=1 $(PY) manage.py seed_demo

# Needs SECRET_KEY and ALLOWED_HOSTS (and DATABASE_URL for PostgreSQL) in the environment.
# Background work (cohort figures, item statistics, refits, password-reset mail, digests) is
# not done here: run `make worker` beside it with the same environment (docker-compose.yml's
# worker service does).
serve: $(STAMP)
	@# Stops on the deploy check's errors and shows its warnings; the settings module itself
	@# refuses to start with an unsafe value. Forwarded headers (X-Forwarded-Proto) are
	@# trusted only from the addresses in FORWARDED_ALLOW_IPS (gunicorn's, default 127.0.0.1):
	@# set it to the TLS proxy's address, never to '*'. A '*' there, in ALLOWED_HOSTS or in
	@# TRUSTED_PROXIES is one of the warnings (courseiva/checks.py).
	DEBUG=0 $(PY) manage.py check --deploy --fail-level ERROR
	DEBUG=0 $(PY) manage.py migrate --noinput
	DEBUG=0 $(PY) manage.py collectstatic --noinput --verbosity 0
	DEBUG=0 exec $(VENV)/bin/gunicorn courseiva.wsgi --bind $(HOST):$(PORT) \
		--workers $(WEB_CONCURRENCY) $(if $(ACCESS_LOG),--access-logfile $(ACCESS_LOG))

# The task worker and the schedule that enqueues the periodic tasks, stopped together. Run one
# schedule per site (with Redis in CACHE_URL, extra ones wait on its lock); workers may be many.
# Each is started again when it stops (scripts/again): the worker stops when the database goes
# away, the schedule when it loses its Redis lock.
# It runs at a lower CPU priority (nice $(WORKER_NICE)) than the web processes: on a machine it
# shares with them, learners' requests come first and the background work catches up after.
worker: $(STAMP)
	DEBUG=$${DEBUG:-0} exec nice -n $(WORKER_NICE) scripts/together \
		"worker: scripts/again $(PY) manage.py db_worker --no-reload" \
		"schedule: scripts/again $(PY) manage.py crontask --no-heartbeat"

# Browser tests run when /usr/bin/chromium is there and are reported skipped otherwise;
# `.ci/run` installs it first.
test: $(STAMP)
	DEBUG=1 $(PY) -m pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	DEBUG=1 $(VENV)/bin/mypy .

format: $(STAMP)
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: $(STAMP)
	DEBUG=1 $(PY) bench/import_bank.py
	$(PY) bench/http_pages.py
	$(PY) bench/dashboard.py
	$(PY) bench/cohort.py
	$(PY) bench/item_refresh.py
	DEBUG=1 $(PY) bench/signup.py

# Pictures of the main pages for the README, taken over a throwaway demo in Debian's Chromium.
screenshots: $(STAMP)
	scripts/ensure-chromium
	$(PY) scripts/screenshots.py

# Several app servers, one database: the production topology on loopback (a private PostgreSQL
# cluster, redis-server, two `make serve`, `make worker`, nginx from deploy/), put through a
# killed node, a PostgreSQL crash and a Redis outage under load. Installs redis-server and nginx
# with apt when missing (as root). Prints one summary line; fails when a check does.
topology-test: $(STAMP)
	$(PY) scripts/topology_test.py $(TOPOLOGY_ARGS)

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .mypy_cache .ruff_cache
