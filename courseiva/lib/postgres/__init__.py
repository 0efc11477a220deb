"""Django's PostgreSQL backend, with a kept connection's health checked without a query
(see base.py). DATABASE_URL's postgres:// URLs select it (courseiva.settings)."""
