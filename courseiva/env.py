"""Reading settings from the environment, failing loudly.

Every helper raises ImproperlyConfigured naming the variable, so a typo in a deployment stops
start-up with a message that says what to fix instead of running with a surprise default.
"""

import os

from django.core.exceptions import ImproperlyConfigured

TRUE_WORDS = {"1", "true", "yes", "on"}
FALSE_WORDS = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    word = raw.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ImproperlyConfigured(
        f"{name}={raw!r} is not a boolean: use one of 1/0, true/false, yes/no, on/off."
    )


def env_int(name: str, default: int, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a whole number.") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name}={raw!r} must be at least {minimum}.")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    """A comma-separated list; blanks around items are ignored, empty items are an error."""
    raw = os.environ.get(name)
    if raw is None:
        return list(default)
    if not raw.strip():
        return []
    items = [item.strip() for item in raw.split(",")]
    if any(not item for item in items):
        raise ImproperlyConfigured(f"{name}={raw!r} has an empty item: separate values by commas.")
    return items
