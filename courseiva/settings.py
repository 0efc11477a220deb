"""The one settings module: everything that differs between machines comes from the environment.

Variables (all optional in development):
  DEBUG                 on/off, default off. `make run` and the tests turn it on.
  SECRET_KEY            required with DEBUG off.
  ALLOWED_HOSTS         comma-separated; required with DEBUG off. A `*` there, in
                        TRUSTED_PROXIES or in gunicorn's FORWARDED_ALLOW_IPS is a warning of
                        the deploy check (courseiva/checks.py) that `make serve` runs.
  CSRF_TRUSTED_ORIGINS  comma-separated origins with scheme, e.g. https://courseiva.example
  SITE_URL              the public origin, e.g. https://courseiva.example: canonical links, Open
                        Graph tags and the sitemap name it; default none (links relative to
                        the page, the sitemap on the request's host).
  DATABASE_URL          default sqlite:///<project>/db.sqlite3; postgres://... uses psycopg 3.
  CONN_MAX_AGE          seconds to keep database connections, default 60 on PostgreSQL, 0 on
                        SQLite.
  PG_PREPARE_THRESHOLD  runs of a statement on a PostgreSQL connection before it is prepared
                        (parsed and planned once), default 2; 0 prepares nothing (behind a
                        transaction-pooling PgBouncer).
  CACHE_URL             default locmem:// (one cache per process); redis://host:6379/0 shares
                        one cache between all processes, so an admin's edit shows at once.
                        The sign-up and reset limits count in Redis with it, in the
                        database without it: in every process alike either way.
  CACHE_MAX_ENTRIES     entries of the per-process cache, default 5000.
  SESSION_COOKIE_SECURE, CSRF_COOKIE_SECURE
                        on/off, default on with DEBUG off.
  SECURE_SSL_REDIRECT   on/off, default off: turn on behind a TLS-terminating proxy that sets
                        X-Forwarded-Proto.
  SECURE_HSTS_SECONDS   how long browsers must use HTTPS only (Strict-Transport-Security),
                        default 0 (no header); production: 31536000 once HTTPS works.
  SECURE_HSTS_INCLUDE_SUBDOMAINS, SECURE_HSTS_PRELOAD
                        on/off, default off: extend that to every subdomain, and allow the
                        domain on browsers' preload lists.
  LOG_LEVEL             DEBUG, INFO (default), WARNING, ERROR.
  EMAIL_URL             default console:// (mail printed to the console, DEBUG on only:
                        with DEBUG off a mail server is required, or UNSAFE_MAIL_TO_CONSOLE=1
                        on a trial site); smtp://user:pass@host:587
                        (STARTTLS) or smtps://user:pass@host:465 (TLS).
  DEFAULT_FROM_EMAIL    sender of password-reset mail, default Courseiva <noreply@localhost>.
  FORCE_SCRIPT_NAME     the URL prefix when the site is served under a path, default none;
                        never taken from the request.
  AXES_FAILURE_LIMIT    failed sign-ins for one account from one address before that
                        account is locked there, default 5.
  AXES_ADDRESS_FAILURE_LIMIT
                        failed sign-ins from one address, whatever the accounts, before the
                        address is locked (credential stuffing), default 100.
  AXES_ACCOUNT_FAILURE_LIMIT
                        failed sign-ins for one account, whatever the addresses, before the
                        account is locked everywhere, default 20.
  AXES_COOLOFF_MINUTES  how long a failure counts and a lock lasts, default 15.
  TRUSTED_PROXIES       comma-separated addresses of the proxies in front of the site (the TLS
                        proxy): sign-in lockouts then count the client's address from their
                        X-Forwarded-For instead of the proxy's. Default none.
  MEDIA_ROOT            where question images are stored, default <project>/media (the
                        default storage; STORAGES["default"] may name a django-storages one).
  QUESTION_MEDIA_MAX_BYTES
                        the largest question image accepted, default 5242880 (5 MB).
  CSP_MODE              enforce (default), report-only or off: whether the Content-Security-
                        Policy is enforced, only reported (to /csp-report, which logs), or not
                        sent at all.

Background work runs in `manage.py db_worker` (the queue, in the database) beside
`manage.py crontask` (the schedule): `make worker`, or `make run`, which starts them too.
"""

import os
import tempfile
from datetime import timedelta
from pathlib import Path
from urllib.parse import unquote, urlsplit

import dj_database_url
import django_stubs_ext
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from courseiva.env import env_bool, env_int, env_list, env_str

# Lets admin and form classes be written with their generic types (ModelAdmin[Exam]).
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DEBUG", False)

# Safe only on a developer's machine: with DEBUG off the checks below refuse to start with it.
DEVELOPMENT_SECRET_KEY = "django-insecure-courseiva-development-only"  # noqa: S105
SECRET_KEY = env_str("SECRET_KEY", DEVELOPMENT_SECRET_KEY)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

for origin in CSRF_TRUSTED_ORIGINS:
    parts = urlsplit(origin)
    if parts.scheme not in {"http", "https"} or not parts.netloc:
        raise ImproperlyConfigured(
            f"CSRF_TRUSTED_ORIGINS has {origin!r}: each origin needs a scheme and a host, "
            "e.g. https://courseiva.example"
        )

# From the environment, never from a request: what it names goes into pages cached for everyone.
SITE_URL = env_str("SITE_URL", "").rstrip("/")
if SITE_URL:
    _site = urlsplit(SITE_URL)
    if _site.scheme not in {"http", "https"} or not _site.netloc or _site.path:
        raise ImproperlyConfigured(
            f"SITE_URL={SITE_URL!r} must be an origin: a scheme and a host, with no path, "
            "e.g. https://courseiva.example"
        )

if not DEBUG:
    if SECRET_KEY == DEVELOPMENT_SECRET_KEY or not SECRET_KEY.strip():
        raise ImproperlyConfigured(
            "DEBUG is off but SECRET_KEY is not set: set SECRET_KEY to a long random string "
            '(python -c "import secrets; print(secrets.token_urlsafe(50))"), '
            "or set DEBUG=1 on a development machine."
        )
    if len(SECRET_KEY) < 32:
        raise ImproperlyConfigured("SECRET_KEY is too short: use at least 32 random characters.")
    if not ALLOWED_HOSTS:
        raise ImproperlyConfigured(
            "DEBUG is off but ALLOWED_HOSTS is empty: set ALLOWED_HOSTS to the comma-separated "
            "host names the site is served on, e.g. ALLOWED_HOSTS=courseiva.example"
        )

INSTALLED_APPS = [
    # progress first: its User model and templates (registration/) take precedence.
    "progress",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.sitemaps",
    "django_htmx",
    "axes",
    "django_tasks_db",
    "crontask",
    "django_ratelimit",
    "questions",
    "courseiva",  # its deploy checks (courseiva/checks.py)
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Sends the policy (SECURE_CSP below) with the nonce the templates' csp_nonce put in.
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    # Serves collected static files in production; with DEBUG on, runserver serves them.
    *([] if DEBUG else ["whitenoise.middleware.WhiteNoiseMiddleware"]),
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "courseiva.middleware.PrivatePages",
    "progress.mocks.middleware.ExpiredMockMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # After the CSRF check, which reads a posted form first (see the class).
    "courseiva.middleware.RejectNulBytes",
    # Last, as django-axes asks: it turns a locked-out sign-in into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "courseiva.urls"
# The URL prefix comes from here, never from the request: a client's SCRIPT_NAME header, passed
# on by a proxy, would otherwise prefix every link of a page cached for everyone.
FORCE_SCRIPT_NAME = env_str("FORCE_SCRIPT_NAME", "")

# Content-Security-Policy: scripts and styles from our own origin, or inline ones that carry
# the page's nonce; no inline event handler, no style attribute, no plugin, no framing. A
# page that breaks it is a bug (the browser tests fail on any violation): CSP_MODE=report-only
# is for trying a change on a live site, the reports landing in the log (courseiva.csp).
CSP_MODE = env_str("CSP_MODE", "enforce").strip().lower()
CSP_MODES = {"enforce", "report-only", "off"}
if CSP_MODE not in CSP_MODES:
    raise ImproperlyConfigured(f"CSP_MODE={CSP_MODE!r}: use enforce, report-only or off.")
CONTENT_SECURITY_POLICY = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    # The nonce admits the admin's few inline <style> blocks (its change list has one).
    "style-src": [CSP.SELF, CSP.NONCE],
    # data: for the admin's and the browsers' own small inline images; question images are
    # served by our own view.
    "img-src": [CSP.SELF, "data:"],
    # The mock exam's offline worker (progress.mocks.views.mock_offline_worker), our own.
    "worker-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF],
    "report-uri": f"{FORCE_SCRIPT_NAME.rstrip('/')}/csp-report",
}
SECURE_CSP = CONTENT_SECURITY_POLICY if CSP_MODE == "enforce" else {}
SECURE_CSP_REPORT_ONLY = CONTENT_SECURITY_POLICY if CSP_MODE == "report-only" else {}
WSGI_APPLICATION = "courseiva.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                # csp_nonce: htmx_script and the admin's own inline tags carry it.
                "django.template.context_processors.csp",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "courseiva.context.site",
                "progress.accounts.roles.role",
            ],
        },
    },
]

DEFAULT_DATABASE_URL = f"sqlite:///{BASE_DIR / 'db.sqlite3'}"
_database_url = env_str("DATABASE_URL", DEFAULT_DATABASE_URL)
# A PostgreSQL connection costs a server process forked and authenticated (about 10 ms here on
# a busy machine, against 0.1 ms for a query on a kept one): opened per request, it added a
# third to a signed-in answer. Kept connections are checked before reuse (below). SQLite
# opens a file, cheap enough to open per request.
_default_conn_max_age = 60 if urlsplit(_database_url).scheme.startswith("postgres") else 0
try:
    _database = dj_database_url.parse(
        _database_url, conn_max_age=env_int("CONN_MAX_AGE", _default_conn_max_age, minimum=0)
    )
except ValueError as error:
    raise ImproperlyConfigured(
        f"DATABASE_URL is not a database URL we understand: {error}"
    ) from None
if not _database.get("ENGINE"):
    raise ImproperlyConfigured(f"DATABASE_URL={_database_url!r} names no known database engine.")
# A kept connection (CONN_MAX_AGE > 0) is checked before a request reuses it: after a
# database restart each process would otherwise serve one 500 on its dead connection.
_database["CONN_HEALTH_CHECKS"] = True
if _database["ENGINE"] == "django.db.backends.sqlite3":
    # Wait for a writer instead of failing at once with "database is locked"; IMMEDIATE makes
    # a transaction take the write lock when it starts, so two writers queue instead of
    # deadlocking on lock upgrade.
    _database.setdefault("OPTIONS", {}).update(
        {
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
            # WAL lets readers run beside the writer; NORMAL syncs at checkpoints rather than
            # at every commit, which WAL keeps consistent (a power cut may lose the last
            # commits, never corrupt the file).
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )
    # Tests on a file, not Django's shared-cache in-memory database: that one locks whole
    # tables without waiting, so concurrency tests would not see what production sees.
    _database["TEST"] = {
        "NAME": str(Path(tempfile.gettempdir()) / f"courseiva-test-{os.getpid()}.db")
    }
if _database["ENGINE"] == "django.db.backends.postgresql":
    # Django's backend, with the health check above made without a round trip (see the
    # module).
    _database["ENGINE"] = "courseiva.lib.postgres"
    # Parameters sent apart from the SQL, and a statement run PG_PREPARE_THRESHOLD times on a
    # kept connection prepared: the server then skips parsing and planning it. Planning the
    # quiz item's six-table query took 0.7 ms of its 0.8; the answer's dozen statements are
    # the same text every time. 0 turns preparing off, as a transaction-pooling PgBouncer
    # without max_prepared_statements needs.
    _threshold = env_int("PG_PREPARE_THRESHOLD", 2, minimum=0)
    _database.setdefault("OPTIONS", {}).update(
        {"server_side_binding": True, "prepare_threshold": _threshold or None}
    )
DATABASES = {"default": _database}

CACHE_URL = env_str("CACHE_URL", "locmem://")
_cache_scheme = urlsplit(CACHE_URL).scheme
if _cache_scheme == "locmem":
    _cache: dict[str, object] = {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        # Django's default of 300 entries is fewer than a bank's question pages: past it,
        # a third of the cache is dropped at random on every write.
        "OPTIONS": {"MAX_ENTRIES": env_int("CACHE_MAX_ENTRIES", 5000, minimum=100)},
    }
elif _cache_scheme in {"redis", "rediss"}:
    # Errors are misses, logged: with Redis down the pages come from the database. Redis on
    # the site's own network answers within a millisecond: a longer wait means it is gone, and
    # every page waiting on it would wait as long.
    _cache = {
        "BACKEND": "courseiva.lib.cache.TolerantRedisCache",
        "LOCATION": CACHE_URL,
        "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
    }
elif _cache_scheme == "dummy":
    _cache = {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}
else:
    raise ImproperlyConfigured(
        f"CACHE_URL={CACHE_URL!r}: use locmem://, dummy:// or redis://host:port/db."
    )
CACHES = {
    "default": _cache,
    # The limits on sign-ups and password resets (django-ratelimit) count here: somewhere
    # every process sees the same count. Counted in each process's own memory, they held per
    # process: with three, 9 reset mails went out for one e-mail against a limit of 3. With
    # Redis they count in it (its INCR is atomic); without it, in a table of the database
    # (progress.accounts.limit_store), one statement per count.
    "limits": (
        _cache
        if _cache_scheme in {"redis", "rediss"}
        else {"BACKEND": "progress.accounts.limit_store.DatabaseCounters"}
    ),
}
RATELIMIT_USE_CACHE = "limits"
# While Redis is down the limits are not counted and let requests through: refusing every
# sign-up and reset of the site for the length of a cache outage would be worse than a few
# minutes without a limit (the cache logs the outage). Counted in the database, they cannot
# fail alone: a sign-up or a reset needs the database anyway. (Sign-in lockouts are counted
# in the database by django-axes, Redis or not.)
RATELIMIT_FAIL_OPEN = True
# django-ratelimit knows neither our database counters nor Django's RedisCache (under
# courseiva.lib.cache), whose INCR is just as atomic as django-redis's.
SILENCED_SYSTEM_CHECKS: list[str] = ["django_ratelimit.W001"]

AUTH_USER_MODEL = "progress.User"
AUTHENTICATION_BACKENDS = [
    # Counts failed sign-ins and refuses locked accounts and addresses before anything else.
    "axes.backends.AxesStandaloneBackend",
    "progress.accounts.backends.UsernameOrEmailBackend",
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "progress_home"
LOGOUT_REDIRECT_URL = "home"

# Failed sign-ins lock an account at one address (AXES_FAILURE_LIMIT), an address whatever the
# accounts (AXES_ADDRESS_FAILURE_LIMIT, ours) and an account whatever the addresses
# (AXES_ACCOUNT_FAILURE_LIMIT, ours), each failure counting over the cool-off: the handler
# gives each its own limit (see progress.accounts.lockout). One limit for an address and an
# account alike locked a whole class behind a school's network after one learner's typos.
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5, minimum=1)
AXES_ADDRESS_FAILURE_LIMIT = env_int("AXES_ADDRESS_FAILURE_LIMIT", 100, minimum=1)
AXES_ACCOUNT_FAILURE_LIMIT = env_int("AXES_ACCOUNT_FAILURE_LIMIT", 20, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("AXES_COOLOFF_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address", "username"]
AXES_HANDLER = "progress.accounts.lockout.AccountAtAddressHandler"
# A success forgets that account's failures at that address (not the address's: see the
# handler).
AXES_RESET_ON_SUCCESS = True
# Count failures per account, however it was named (username, or its e-mail in any case).
AXES_USERNAME_CALLABLE = "progress.accounts.lockout.axes_username"
# Behind a proxy the socket's address is the proxy's: the client's is read from the proxy's
# X-Forwarded-For, only for requests that come from one of these addresses.
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES", [])
AXES_CLIENT_IP_CALLABLE = "courseiva.lib.client.client_address"
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_VERBOSE = False

EMAIL_URL = env_str("EMAIL_URL", "") or "console://"
_email = urlsplit(EMAIL_URL)
_mail_backends = {
    "console": "django.core.mail.backends.console.EmailBackend",
    "locmem": "django.core.mail.backends.locmem.EmailBackend",
    "smtp": "django.core.mail.backends.smtp.EmailBackend",
    "smtps": "django.core.mail.backends.smtp.EmailBackend",
}
if _email.scheme not in _mail_backends:
    raise ImproperlyConfigured(
        f"EMAIL_URL={EMAIL_URL!r}: use console://, smtp://user:password@host:587 "
        "or smtps://user:password@host:465."
    )
# With DEBUG off, console mail would print password-reset links into the log, where anyone who
# reads it can take over the account: a real mail server is required, unless a trial site
# says it accepts that in so many words.
_console_mail = _email.scheme in {"console", "locmem"}
if not DEBUG and _console_mail and env_bool("UNSAFE_MAIL_TO_CONSOLE", False):
    # The trial said so: Django's deploy check, which `make serve` runs, need not stop it.
    SILENCED_SYSTEM_CHECKS.append("mail.E001")
elif not DEBUG and _console_mail:
    raise ImproperlyConfigured(
        "EMAIL_URL must name a mail server (smtp://user:password@host:587) when DEBUG is off: "
        "console mail would print password-reset links into the log. For a trial site only, "
        "UNSAFE_MAIL_TO_CONSOLE=1 accepts that."
    )
_mailer: dict[str, object] = {"BACKEND": _mail_backends[_email.scheme]}
if _email.scheme in {"smtp", "smtps"}:
    try:
        _port = _email.port or (465 if _email.scheme == "smtps" else 587)
    except ValueError:
        raise ImproperlyConfigured(f"EMAIL_URL={EMAIL_URL!r} has a bad port.") from None
    if not _email.hostname:
        raise ImproperlyConfigured(f"EMAIL_URL={EMAIL_URL!r} names no host.")
    _mailer["OPTIONS"] = {
        "host": _email.hostname,
        "port": _port,
        "username": unquote(_email.username or ""),
        "password": unquote(_email.password or ""),
        "use_ssl": _email.scheme == "smtps",
        "use_tls": _email.scheme == "smtp" and _port != 25,
        "timeout": 10,
    }
MAILERS = {"default": _mailer}
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Courseiva <noreply@localhost>")

# Background work (django.tasks): queued in the database, run by `manage.py db_worker`; the
# schedule (`manage.py crontask`) enqueues the periodic tasks. The tests use the same backend.
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
# With Redis, only one scheduler process holds the lock and enqueues (several nodes may run
# one each); without it, run a single scheduler.
CRONTASK = {"REDIS_URL": CACHE_URL if _cache_scheme in {"redis", "rediss"} else None}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
# Question images (questions.media), served by questions.media.views.media_file at /media/q/.
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(BASE_DIR / "media")))
MEDIA_URL = "/media/"
QUESTION_MEDIA_MAX_BYTES = env_int("QUESTION_MEDIA_MAX_BYTES", 5 * 1024 * 1024, minimum=1)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# Form bodies (not file uploads, which stream to disk past 2.5 MB) are capped at Django's
# default; a bank file's own cap is on the admin's upload form.
# The question admin posts every option and rationale of a question at once.
DATA_UPLOAD_MAX_NUMBER_FIELDS = 2000

SESSION_COOKIE_HTTPONLY = True
# Django's database sessions, each read with its user by one query (see the module).
SESSION_ENGINE = "progress.accounts.sessions"
CSRF_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
if not DEBUG:
    SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", True)
    CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", True)
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
    # The probes answer over plain HTTP: a load balancer checking them must not get a 301.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0, minimum=0)
    # Both bind more than this site (every subdomain; browsers' built-in lists, slow to leave):
    # off unless the deployment says so.
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)

LOG_LEVEL = env_str("LOG_LEVEL", "INFO").upper()
if LOG_LEVEL not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
    raise ImproperlyConfigured(
        f"LOG_LEVEL={LOG_LEVEL!r} is not one of DEBUG, INFO, WARNING, ERROR."
    )

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    # django-axes logs every sign-in at INFO, the scheduler every run of its jobs (its lock's
    # every few seconds): their warnings are what matter.
    "loggers": {"axes": {"level": "WARNING"}, "apscheduler": {"level": "WARNING"}},
}
