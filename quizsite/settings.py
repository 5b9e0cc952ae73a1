"""Settings for quizsite, read from the environment (django-environ).

Defaults need nothing installed: SQLite, local-memory cache, eager Celery.
Set DATABASE_URL for PostgreSQL and REDIS_URL for a Redis cache + Celery broker.
See `.env.example` for every variable.
"""

import base64
import hashlib
import re
import sys
from datetime import date, timedelta
from pathlib import Path

import environ
from celery.schedules import crontab
from csp.constants import NONCE, NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _
from kombu import Queue

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
# A local .env (not committed) is read if present; real environment variables win.
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env.bool("DEBUG", default=False)

_DEV_SECRET_KEY = "django-insecure-dev-only-key-do-not-use-in-production"
SECRET_KEY = env.str("SECRET_KEY", default="")
if not SECRET_KEY:
    # The dev key is allowed only with DEBUG on, or inside the test runner (pytest-django forces DEBUG off).
    if not DEBUG and "pytest" not in sys.modules:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    SECRET_KEY = _DEV_SECRET_KEY

ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "rest_framework",
    "knox",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "push_notifications",  # push registrations (FCM, APNs, Web Push) of the learners' devices
    "quizzes",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "quizzes.sitewide.compression.ApiCompressionMiddleware",  # gzip for /api/ (not HTML: BREACH), above a size
    "csp.middleware.CSPMiddleware",
    "quizzes.sitewide.headers.CacheControlMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "quizzes.sitewide.guards.RequestGuardMiddleware",  # body size (API) and NUL characters, before CSRF reads the form
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "quizsite.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "quizsite.wsgi.application"
ASGI_APPLICATION = "quizsite.asgi.application"

# Database: SQLite in the project directory unless DATABASE_URL says otherwise.
DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=0)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = DATABASES["default"]["CONN_MAX_AGE"] > 0
# Covering indexes (INCLUDE) are PostgreSQL's; SQLite (`make run`, the tests' second pass) builds them on their key
# columns alone, all it needs there. Without this Django warns so at every migrate on SQLite.
SILENCED_SYSTEM_CHECKS = ["models.W040"]
# PostgreSQL plans a statement once per connection and reuses the plan: parameters bound on the server and
# statements prepared after their 5th run (psycopg). Planning was 0.3–0.4 ms of each hot statement, more than
# running it (issue 16, bench/README.md). Pays with CONN_MAX_AGE > 0 (a connection lives across requests).
# DB_PREPARED_STATEMENTS=false behind a pooler that cannot keep them (pgbouncer in transaction mode before 1.21).
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env.bool("DB_PREPARED_STATEMENTS", True):
    DATABASES["default"].setdefault("OPTIONS", {}).update(server_side_binding=True, prepare_threshold=5)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The hot paths' SQL fast paths (quizzes.core.rows, quizzes.core.compiled and the statements built on them, issue 26):
# off, each runs the ORM query it replaces instead, so bench/profile.py can measure what each path buys in the same
# tree and the tests can compare their rows. Production keeps them on.
SQL_FAST_PATHS = env.bool("SQL_FAST_PATHS", default=True)

# Cache + Celery: Redis when REDIS_URL is set; otherwise in-process and eager.
REDIS_URL = env.str("REDIS_URL", default="")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {"CLIENT_CLASS": "django_redis.client.DefaultClient"},
            "KEY_PREFIX": "quizsite",
        }
    }
    # Log-in/sign-up/reset counters (quizzes.accounts.throttle): the same Redis, but errors are NOT ignored here, so the
    # throttle knows Redis is down and falls back to per-process counting instead of silently allowing all.
    CACHES["throttle"] = {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": REDIS_URL,
        "OPTIONS": {
            "CLIENT_CLASS": "django_redis.client.DefaultClient",
            "SOCKET_CONNECT_TIMEOUT": 1,
            "SOCKET_TIMEOUT": 1,
        },
        "KEY_PREFIX": "quizsite",
    }
    CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default=REDIS_URL)
    CELERY_RESULT_BACKEND = env.str("CELERY_RESULT_BACKEND", default=REDIS_URL)
    CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "quizsite",
        },
        "throttle": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "quizsite-throttle",
        },
    }
    CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="memory://")
    CELERY_RESULT_BACKEND = env.str("CELERY_RESULT_BACKEND", default="cache+memory://")
    CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=True)
CELERY_TASK_EAGER_PROPAGATES = True
#: One process serves every request and runs every task (`make run`: runserver, eager Celery). Only then may a
#: per-process cache hold what every process must see alike (the learner cache below).
SINGLE_PROCESS = env.bool("SINGLE_PROCESS", default=False)
#: How long a learner's cached due queue may be kept (quizzes/reviews/learner_cache.py); 0 = off. A per-process
#: cache can't see other processes' writes: without Redis it is on only in a single process, refused elsewhere.
LEARNER_CACHE_SECONDS = env.int("LEARNER_CACHE_SECONDS", default=300 if REDIS_URL or SINGLE_PROCESS else 0)
if LEARNER_CACHE_SECONDS > 0 and not REDIS_URL and not SINGLE_PROCESS:
    raise ImproperlyConfigured(
        "LEARNER_CACHE_SECONDS > 0 needs REDIS_URL: with the local-memory cache, one worker's write would not "
        "reach another worker's cached reads. Set SINGLE_PROCESS=true only when one process serves everything."
    )
#: Start each web process's code-grading sandbox when the process starts (quizsite/wsgi.py), not on the
#: first code answer it grades (≈ 2 s of waiting for that learner). Off: one process fewer per worker.
CODECHECK_PRESTART = env.bool("CODECHECK_PRESTART", default=True)
#: Code grading one request may do (seconds of sandbox calls, quizzes.practice.grading_budget): the rest of an
#: upload's code answers are refused grading_budget_exceeded, to send again. Well under gunicorn's --timeout 30.
CODECHECK_REQUEST_GRADING_SECONDS = env.float("CODECHECK_REQUEST_GRADING_SECONDS", default=2.0)
#: Code grading one learner may cause per minute, over all their requests (counted in the throttle cache).
CODECHECK_LEARNER_GRADING_SECONDS = env.float("CODECHECK_LEARNER_GRADING_SECONDS", default=10.0)
CELERY_TIMEZONE = "UTC"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"

# Every authenticate() call (learner and admin log-in pages, the API) goes through the log-in throttle.
# ModelBackend stays listed only so sessions created before the throttle existed keep loading; the
# throttled backend never lets authenticate() fall through to it (see quizzes.accounts.throttle).
# "quizzes.throttle.ThrottledModelBackend" is the same class under its path before issue 12: a session names
# the backend that logged it in, so the alias keeps those sessions loading until they expire (quizzes/throttle.py).
AUTHENTICATION_BACKENDS = [
    "quizzes.accounts.throttle.ThrottledModelBackend",
    "quizzes.throttle.ThrottledModelBackend",
    "django.contrib.auth.backends.ModelBackend",
]

# --- Abuse limits (quizzes.accounts.throttle): "<count>/<period>", period like 15m, 1h, 1d ------------------------
# Log-in follows OWASP's guidance: failures are counted per (account, client address) and per address; the
# account-wide limit is far higher, so nobody can lock an owner out from a handful of addresses; a browser or app
# the owner signed in on before (a device cookie, an app's device id) has its own counter and is held by none of
# the others; a password reset by e-mail clears the account-wide counter (quizzes.accounts.throttle).
THROTTLE_RATES = {
    "login": {
        "pair": env.str("THROTTLE_LOGIN_PER_ACCOUNT_AND_IP", default="5/15m"),  # failures per (account, address)
        "ip": env.str("THROTTLE_LOGIN_PER_IP", default="20/15m"),  # failures per address, whatever the account
        "username": env.str("THROTTLE_LOGIN_PER_ACCOUNT", default="100/1h"),  # failures per account, every address
        "device": env.str("THROTTLE_LOGIN_PER_DEVICE", default="10/15m"),  # failures per (account, known device)
    },
    "password_reset": {
        "username": env.str("THROTTLE_PASSWORD_RESET_PER_EMAIL", default="3/1h"),
        "ip": env.str("THROTTLE_PASSWORD_RESET_PER_IP", default="10/1h"),
    },
    "signup": {
        "username": env.str("THROTTLE_SIGNUP_PER_USERNAME", default="5/1h"),
        "ip": env.str("THROTTLE_SIGNUP_PER_IP", default="10/1h"),
    },
    # the password asked again before an account is deleted (web and API): per account and per client IP
    "password_confirm": {
        "username": env.str("THROTTLE_PASSWORD_CONFIRM_PER_ACCOUNT", default="5/15m"),
        "ip": env.str("THROTTLE_PASSWORD_CONFIRM_PER_IP", default="20/15m"),
    },
    # per-learner quotas (quizzes.accounts.throttle.learner_quota; RateLimit headers, 429 + Retry-After past them)
    "answers": {"learner": env.str("THROTTLE_ANSWERS_PER_LEARNER", default="120/1m")},  # item answers (API)
    "offline_uploads": {"learner": env.str("THROTTLE_OFFLINE_UPLOADS_PER_LEARNER", default="60/1h")},  # ≤ 500 each
    "packs": {"learner": env.str("THROTTLE_PACKS_PER_LEARNER", default="30/1h")},  # review packs issued
    "reports": {"learner": env.str("THROTTLE_REPORTS_PER_LEARNER", default="20/1h")},  # problem reports filed
    # data exports asked for (inline or as a job; polling a job and downloading its files do not count). Sign-up and
    # exports are quotas like the per-learner ones (quizzes.accounts.throttle.request_quotas: RateLimit headers)
    "export": {
        "username": env.str("THROTTLE_EXPORT_PER_LEARNER", default="6/1h"),
        "ip": env.str("THROTTLE_EXPORT_PER_IP", default="30/1h"),
    },
}
#: How long the cookie that makes this browser a known device of the account it signed in to lives (days).
KNOWN_DEVICE_COOKIE_DAYS = env.int("KNOWN_DEVICE_COOKIE_DAYS", default=365)
#: Trusted reverse proxies in front of the app (each appends to X-Forwarded-For). 0: use REMOTE_ADDR.
#: One rule for pages and the API (quizzes.accounts.throttle.client_ip, DRF's NUM_PROXIES).
#: API_NUM_PROXIES is the old name.
NUM_PROXIES = env.int("NUM_PROXIES", default=env.int("API_NUM_PROXIES", default=0))

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Internationalisation: UI strings in English in code, translated to zh-Hans.
LANGUAGE_CODE = env.str("LANGUAGE_CODE", default="en")
LANGUAGES = [
    ("en", _("English")),
    ("zh-hans", _("Simplified Chinese")),
]
LOCALE_PATHS = [BASE_DIR / "quizzes" / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = env.path("STATIC_ROOT", default=BASE_DIR / "staticfiles")

LOGIN_URL = "web:login"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
}

# --- Web pages (learner UI) ---------------------------------------------------------------
LOGIN_REDIRECT_URL = "web:dashboard"
LOGOUT_REDIRECT_URL = "web:dashboard"
# Password-reset mail uses EMAIL_BACKEND from the "Background work" block below (console unless EMAIL_HOST is set).

# --- REST API (/api/v1/) --------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # knox (+ the device's last seen, throttled); first: its "Token" challenge makes anonymous requests 401, not 403
        "quizzes.api.authentication.DeviceTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["quizzes.api.renderers.SafeJSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["quizzes.api.parsers.LimitedJSONParser"],
    "DEFAULT_SCHEMA_CLASS": "quizzes.api.schema.ProjectAutoSchema",
    "EXCEPTION_HANDLER": "quizzes.api.errors.api_exception_handler",
    "NUM_PROXIES": NUM_PROXIES,  # the same trusted-proxy rule as quizzes.accounts.throttle.client_ip
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
    "UNICODE_JSON": True,
}
#: A device's "last seen" is written at most this often per token and process (knox authenticates every request).
DEVICE_SEEN_INTERVAL = timedelta(minutes=env.int("DEVICE_SEEN_INTERVAL_MINUTES", default=15))
REST_KNOX = {
    "TOKEN_TTL": timedelta(days=env.int("API_TOKEN_TTL_DAYS", default=30)),
    "AUTO_REFRESH": False,
    "TOKEN_LIMIT_PER_USER": None,
}
#: Largest request body the API parses (bytes); bigger → 413 (quizzes.api.parsers, quizzes.sitewide.guards).
#: The day the deprecated offline ``correct`` form stops being accepted (the Sunset header, quizzes.api.deprecation).
OFFLINE_CORRECT_SUNSET = date.fromisoformat(env.str("OFFLINE_CORRECT_SUNSET", default="2027-06-30"))
#: API responses shorter than this (bytes) are sent uncompressed (quizzes.sitewide.compression): below it gzip's
#: header and a round trip's packet cost more than they save.
COMPRESS_MIN_BYTES = env.int("COMPRESS_MIN_BYTES", default=512)
API_MAX_BODY_BYTES = env.int("API_MAX_BODY_BYTES", default=512 * 1024)
#: Deepest nesting of arrays/objects in a JSON body; deeper → 400 too_deep (checked before decoding).
API_MAX_JSON_DEPTH = env.int("API_MAX_JSON_DEPTH", default=32)
#: Django's own cap on a request body read into memory (forms; the API's limit above is lower and fires first).
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("DATA_UPLOAD_MAX_MEMORY_SIZE", default=2_621_440)
#: Most fields in one submitted form or query string.
DATA_UPLOAD_MAX_NUMBER_FIELDS = env.int("DATA_UPLOAD_MAX_NUMBER_FIELDS", default=1000)
#: Most entries in one offline upload; more → 400.
API_OFFLINE_MAX_ENTRIES = env.int("API_OFFLINE_MAX_ENTRIES", default=500)
#: How long an Idempotency-Key is remembered.
API_IDEMPOTENCY_TTL = timedelta(hours=env.int("API_IDEMPOTENCY_TTL_HOURS", default=24))
SPECTACULAR_SETTINGS = {
    "TITLE": "quizsite API",
    "DESCRIPTION": (
        "Learn Transformer attention by retrieval practice and spaced review — the REST API for mobile clients.\n\n"
        "Log in with `POST /api/v1/auth/login/` and send `Authorization: Token <token>`. "
        'Every 4xx response has the body `{"error": {"code", "message", "fields"}}`. '
        "POSTs that create something accept an `Idempotency-Key` header.\n\n"
        "Limits: a JSON body is at most 512 KiB (413 `payload_too_large`) and nested at most 32 levels (400 "
        "`too_deep`); numbers must be finite and fit in a signed 64-bit integer, strings may not contain NUL "
        "or unpaired surrogates (400 naming the field). Failed log-ins are limited per (account, client IP), per IP "
        "and, far higher, per account; a `device_id` the account knows has its own limit (429 `throttled` with "
        "`Retry-After`). Code answers are graded within a budget of sandbox time per request and per learner per "
        "minute (`grading_budget_exceeded`: 429 for an answer, a per-entry reason in an offline upload; nothing is "
        "locked, send it again later)."
    ),
    "VERSION": "1.0.0",
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "COMPONENT_NO_READ_ONLY_REQUIRED": False,
    "ENUM_NAME_OVERRIDES": {
        "KindEnum": "quizzes.content.models.Question.Kind",
        "ModeEnum": "quizzes.practice.models.Attempt.Mode",
        "StartModeEnum": "quizzes.api.views.attempts.START_MODES",
        "NextStepKindEnum": "quizzes.api.views.next_step.NEXT_STEP_KINDS",
        "PushServiceEnum": "quizzes.api.views.devices.PUSH_CHOICES",
        "ReportCategoryEnum": "quizzes.reports.models.ProblemReport.Category",
        "ReportOriginEnum": "quizzes.reports.models.ProblemReport.Origin",
        "AxisScaleEnum": "quizzes.api.views.lessons.AXIS_SCALES",
        "HeatmapScaleEnum": "quizzes.api.views.lessons.HEATMAP_SCALES",
    },
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "quizzes.api.schema.add_error_responses",
        "quizzes.api.schema.add_enforced_limits",
    ],
}

# --- Background work and production -----------------------------------------------------------
# Celery reliability. A task's message is acknowledged only after it finished (acks_late), and
# put back if the worker process dies mid-task (reject_on_worker_lost), so every task is written
# to be idempotent. One message at a time per worker process, so a crash strands at most one.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True  # nothing reads results; progress lives in the database
CELERY_TASK_SOFT_TIME_LIMIT = env.int("CELERY_TASK_SOFT_TIME_LIMIT", default=600)
CELERY_TASK_TIME_LIMIT = env.int("CELERY_TASK_TIME_LIMIT", default=660)
#: Longest retry countdown (exponential backoff is capped here).
TASK_RETRY_BACKOFF_MAX = 600
# Redis redelivers a message that was not acknowledged within visibility_timeout. It must exceed
# both the longest countdown/ETA (TASK_RETRY_BACKOFF_MAX) and the hard time limit, or a task
# still waiting or running would be handed to a second worker. Only the worker tests lower it.
BROKER_VISIBILITY_TIMEOUT = env.int(
    "BROKER_VISIBILITY_TIMEOUT", default=max(3600, 2 * max(CELERY_TASK_TIME_LIMIT, TASK_RETRY_BACKOFF_MAX))
)
if CELERY_TASK_SOFT_TIME_LIMIT >= CELERY_TASK_TIME_LIMIT:
    raise ImproperlyConfigured("CELERY_TASK_SOFT_TIME_LIMIT must be below CELERY_TASK_TIME_LIMIT.")
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": BROKER_VISIBILITY_TIMEOUT,
    # Sweep for abandoned messages a few times per visibility window (kombu's default is ~100 s).
    "unacked_restore_interval": max(1, min(10, BROKER_VISIBILITY_TIMEOUT // 3)),
    "unacked_restore_throttle": 1 if BROKER_VISIBILITY_TIMEOUT < 300 else 10,
    # A dead or unreachable Redis must fail a publish quickly, not hang a web request.
    "socket_connect_timeout": 2,
    "socket_timeout": 10,
}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Queues: one per kind of background work, so a burst of one kind cannot delay another (a thousand
# generation jobs ahead of a time zone's reminders). Routed HERE, by task name, not by each task's
# ``queue=``: services (quizzes.core.background) and beat send tasks by name, and the router of the
# *sending* process applies this table whether or not it imported quizzes.tasks; one table also lists
# every queue a worker consumes. A task not listed goes to the default queue, ``celery``.
# ``celery worker`` without ``-Q`` consumes every queue below (the Procfile's one worker, `make serve`);
# ``-Q reminders`` etc. runs a worker per queue (Procfile, README). Eager mode (no Redis) ignores queues.
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_TASK_ROUTES = {
    "quizzes.tasks.send_review_reminders": {"queue": "reminders"},
    "quizzes.tasks.send_review_reminders_chunk": {"queue": "reminders"},
    "quizzes.tasks.run_generation_job": {"queue": "generation"},
    "quizzes.tasks.housekeeping": {"queue": "housekeeping"},
    # Fitting learners' FSRS parameters (issue 30): CPU-bound, so in its own queue behind nothing else.
    "quizzes.tasks.fit_learner_parameters_pass": {"queue": "fitting"},
    "quizzes.tasks.fit_learner_parameters": {"queue": "fitting"},
    "quizzes.tasks.run_data_export": {"queue": "exports"},
}
#: Every queue, the default first, derived from the routes (declared, a worker without -Q consumes them all;
#: undeclared, it would consume the default queue only).
BACKGROUND_QUEUES = list(dict.fromkeys([CELERY_TASK_DEFAULT_QUEUE, *(r["queue"] for r in CELERY_TASK_ROUTES.values())]))
CELERY_TASK_QUEUES = [Queue(name) for name in BACKGROUND_QUEUES]
# Periodic tasks: a static schedule (no database scheduler). Exactly one `celery beat` may run.
CELERY_BEAT_SCHEDULE = {
    "send-review-reminders": {"task": "quizzes.tasks.send_review_reminders", "schedule": 15 * 60},
    "housekeeping": {"task": "quizzes.tasks.housekeeping", "schedule": 60 * 60},
    # Daily: fit the learners with REFIT_NEW_REVIEWS new reviews since their last fit (quizzes.reviews.fitting).
    "fit-learner-parameters": {
        "task": "quizzes.tasks.fit_learner_parameters_pass",
        "schedule": crontab(minute=30, hour=3),
    },
}

# A dead Redis must not take pages down: cache reads miss, writes are dropped, both are logged.
if REDIS_URL:
    CACHES["default"]["OPTIONS"].update({"IGNORE_EXCEPTIONS": True, "SOCKET_CONNECT_TIMEOUT": 1, "SOCKET_TIMEOUT": 1})
DJANGO_REDIS_LOG_IGNORED_EXCEPTIONS = True

# Reminders and housekeeping
SITE_URL = env.str("SITE_URL", default="http://127.0.0.1:8000").rstrip("/")  # absolute links in e-mails
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="quizsite <noreply@localhost>")
EMAIL_BACKEND = env.str(
    "EMAIL_BACKEND",
    default="django.core.mail.backends.smtp.EmailBackend"
    if env.str("EMAIL_HOST", default="")
    else "django.core.mail.backends.console.EmailBackend",
)
EMAIL_HOST = env.str("EMAIL_HOST", default="localhost")
EMAIL_PORT = env.int("EMAIL_PORT", default=587)
EMAIL_HOST_USER = env.str("EMAIL_HOST_USER", default="")
EMAIL_HOST_PASSWORD = env.str("EMAIL_HOST_PASSWORD", default="")
EMAIL_USE_TLS = env.bool("EMAIL_USE_TLS", default=True)
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=20)
EMAIL_FILE_PATH = env.str("EMAIL_FILE_PATH", default=str(BASE_DIR / "sent_emails"))
# Push reminders (quizzes/notifications/push.py, django-push-notifications). Each service is used once its
# credentials are set; unset, its pushes are logged instead of sent (as e-mail goes to the console).
#: A Firebase service-account JSON file: FCM HTTP v1 (Android, and iOS/web apps that use Firebase).
FCM_SERVICE_ACCOUNT_FILE = env.str("FCM_SERVICE_ACCOUNT_FILE", default="")
#: APNs token authentication: the .p8 key, its id, the team id and the app's bundle id (the topic).
APNS_AUTH_KEY_PATH = env.str("APNS_AUTH_KEY_PATH", default="")
APNS_AUTH_KEY_ID = env.str("APNS_AUTH_KEY_ID", default="")
APNS_TEAM_ID = env.str("APNS_TEAM_ID", default="")
APNS_TOPIC = env.str("APNS_TOPIC", default="")
APNS_USE_SANDBOX = env.bool("APNS_USE_SANDBOX", default=DEBUG)
#: Web Push (VAPID): the application server's private key and the contact for the push services.
WEBPUSH_VAPID_PRIVATE_KEY = env.str("WEBPUSH_VAPID_PRIVATE_KEY", default="")
WEBPUSH_VAPID_SUBJECT = env.str("WEBPUSH_VAPID_SUBJECT", default="mailto:admin@localhost")
PUSH_NOTIFICATIONS_SETTINGS = {
    "UNIQUE_REG_ID": False,  # the library's migrations are written for False; one token per device is our rule
    "APNS_USE_SANDBOX": APNS_USE_SANDBOX,
    **(
        {
            "APNS_AUTH_KEY_PATH": APNS_AUTH_KEY_PATH,
            "APNS_AUTH_KEY_ID": APNS_AUTH_KEY_ID,
            "APNS_TEAM_ID": APNS_TEAM_ID,
            "APNS_TOPIC": APNS_TOPIC,
        }
        if APNS_AUTH_KEY_PATH
        else {}
    ),
    **(
        {"WP_PRIVATE_KEY": WEBPUSH_VAPID_PRIVATE_KEY, "WP_CLAIMS": {"sub": WEBPUSH_VAPID_SUBJECT}}
        if WEBPUSH_VAPID_PRIVATE_KEY
        else {}
    ),
}
REMINDER_UNSUBSCRIBE_MAX_AGE_DAYS = env.int("REMINDER_UNSUBSCRIBE_MAX_AGE_DAYS", default=90)
ATTEMPT_ABANDON_AFTER_HOURS = env.int("ATTEMPT_ABANDON_AFTER_HOURS", default=24)

# Data export (quizzes/privacy, README "Your data"). At most EXPORT_INLINE_MAX_ROWS rows (cards + review logs +
# attempt items + pack items) are answered inline by GET /api/v1/profile/export/; more become a job (202).
EXPORT_INLINE_MAX_ROWS = env.int("EXPORT_INLINE_MAX_ROWS", default=2000)
#: How long a finished export's download links work; then housekeeping deletes its files.
EXPORT_LINK_TTL = timedelta(hours=env.int("EXPORT_LINK_TTL_HOURS", default=24))
#: A job still pending or running this long after it was asked for is given up (the learner may ask again).
EXPORT_STALE_AFTER = timedelta(hours=env.int("EXPORT_STALE_AFTER_HOURS", default=2))

# Static files: whitenoise serves them from gunicorn; hashed + compressed names outside DEBUG.
# The test runner keeps plain storage so tests need no collectstatic (same test-runner check as SECRET_KEY).
STATIC_MANIFEST = env.bool("STATIC_MANIFEST", default=not DEBUG and "pytest" not in sys.modules)
# Without collected files (development, tests) whitenoise serves from the apps' static dirs instead.
WHITENOISE_USE_FINDERS = WHITENOISE_AUTOREFRESH = not STATIC_MANIFEST
# Uploaded and generated files (data exports, quizzes/privacy): Django's storage API, local files by default.
# MEDIA_ROOT is never served as static files; an export is downloaded only through its signed link. A deployment
# on more than one host sets FILE_STORAGE_BACKEND to a shared store, e.g. "storages.backends.s3.S3Storage"
# (django-storages, with its AWS_* settings from the environment), so a worker's file is seen by every web host.
MEDIA_ROOT = env.path("MEDIA_ROOT", default=BASE_DIR / "media")
STORAGES = {
    "default": {"BACKEND": env.str("FILE_STORAGE_BACKEND", default="django.core.files.storage.FileSystemStorage")},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if STATIC_MANIFEST
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# HTTPS and cookies: on whenever DEBUG is off, except inside the test runner (the test client and the
# browser tests speak plain HTTP). Each switch can be turned off from the environment, e.g.
# SECURE_SSL_REDIRECT=false behind a proxy that already redirects (`make serve` does that locally).
_SECURE = not DEBUG and "pytest" not in sys.modules
if env.bool("BEHIND_PROXY", default=False):  # only behind a proxy that sets this header itself
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=_SECURE)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # load balancers probe over plain HTTP
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=_SECURE)
#: Django's database sessions, the row read by a compiled statement (quizzes/accounts/sessions.py)
SESSION_ENGINE = "quizzes.accounts.sessions"
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=_SECURE)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=60 * 60 * 24 * 365 if _SECURE else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=_SECURE)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=_SECURE)
SECURE_CONTENT_TYPE_NOSNIFF = True


# Content-Security-Policy (django-csp), enforced. Pages load only our own scripts, styles, images and fonts;
# no inline code except where a nonce is given (Swagger UI) and the one fixed <style> of the 500 page,
# allowed by its hash (that page is rendered without a request, so it cannot carry a nonce). Redoc has a
# route-specific policy (quizzes.api.docs). The browser tests fail on any violation.
def _inline_style_hash(template: Path) -> str:
    found = re.search(r"<style>(.*?)</style>", template.read_text(encoding="utf-8"), re.DOTALL)
    assert found is not None, f"{template} has no <style>"
    return "'sha256-" + base64.b64encode(hashlib.sha256(found.group(1).encode()).digest()).decode() + "'"


CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF, NONCE, _inline_style_hash(BASE_DIR / "quizzes" / "templates" / "500.html")],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
