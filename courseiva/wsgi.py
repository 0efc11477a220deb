"""WSGI entry point for gunicorn (`make serve`)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "courseiva.settings")

application = get_wsgi_application()
