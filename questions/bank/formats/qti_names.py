"""QTI's element and attribute names read in one spelling, QTI 2.1's, whichever version a
file is: `qti-simple-choice` is `simpleChoice`, `max-choices` is `maxChoices`. Shared by the
item reader (`qti`) and its interactions (`qti_interactions`)."""

import functools
import re
from xml.etree.ElementTree import Element


def name_of(element: Element) -> str:
    """An element's local name in QTI 2.1's spelling: `qti-simple-choice` is `simpleChoice`."""
    tag = element.tag
    try:
        return _names[tag]
    except KeyError:
        pass
    except TypeError:  # not hashable: no tag we know
        return ""
    name = _local_name(tag)
    if len(_names) < _NAMES_KEPT:
        _names[tag] = name
    return name


# Reading an item asks for the names of its elements many times over (about 80 per item):
# each tag's name is worked out once. A file is free to invent tags, so only so many are kept.
_names: dict[object, str] = {}
_NAMES_KEPT = 4096


def _local_name(tag: object) -> str:
    local = tag.rpartition("}")[2] if isinstance(tag, str) else ""
    if not local.startswith("qti-"):
        return local
    first, *rest = local[4:].split("-")
    return first + "".join(part.capitalize() for part in rest)


def attribute(element: Element, name: str, default: str = "") -> str:
    """An attribute in 2.1's spelling (`maxChoices`) or 3.0's (`max-choices`)."""
    value = element.get(name)
    if value is None:
        value = element.get(_hyphenated(name))
    return default if value is None else value


@functools.cache
def _hyphenated(name: str) -> str:
    """`maxChoices` as `max-choices` (the names asked for are ours: a handful)."""
    return re.sub(r"([A-Z])", lambda m: "-" + m.group(1).lower(), name)
