"""Model instances from written-out queries.

The hottest requests (a quiz answer, a mock-exam save, the session and user of every signed-in
request) read rows whose query the ORM would compile afresh each time, which cost more than
running it prepared. Those queries are written out once; `Columns` gives the SELECT list of a
model's fields under a table alias and builds back the instance the ORM would have made, each
value through the same converters (text to date-time on SQLite, JSON text to values)."""

from collections.abc import Sequence
from functools import cache
from typing import Any

from django.db import connection, models


class Columns:
    """Some of one model's columns under a table alias, and the instance they make back."""

    def __init__(self, model: type[models.Model], alias: str, names: Sequence[str] = ()) -> None:
        self.model, self.alias = model, alias
        # In the model's order, as Model.from_db expects; all of them unless named, the
        # primary key always. Fields not read are deferred: touched, they load.
        self.fields = [
            f
            for f in model._meta.concrete_fields
            if not names or f.attname in names or f.primary_key
        ]
        self.attnames = [f.attname for f in self.fields]
        self.columns = [f.column or f.attname for f in self.fields]

    def __len__(self) -> int:
        return len(self.fields)

    def select(self) -> str:
        q = connection.ops.quote_name
        return ", ".join(f"{q(self.alias)}.{q(column)}" for column in self.columns)

    def build(self, values: Sequence[Any]) -> Any:
        """The instance, or None for the columns of a LEFT JOIN that found no row."""
        if values[0] is None:
            return None
        converted = [
            _convert(field, value) for field, value in zip(self.fields, values, strict=True)
        ]
        return self.model.from_db(connection.alias, self.attnames, converted)


def build_all(parts: Sequence[Columns], row: Sequence[Any]) -> tuple[list[Any], int]:
    """The instances of `parts`, read in turn from the start of `row`, and where the row's
    other columns start."""
    built, start = [], 0
    for part in parts:
        built.append(part.build(row[start : start + len(part)]))
        start += len(part)
    return built, start


def _convert(field: models.Field[Any, Any], value: Any) -> Any:
    if value is None:
        return None
    column, converters = _converters(connection.vendor, field)
    for converter in converters:
        value = converter(value, column, connection)
    return value


@cache
def _converters(vendor: str, field: models.Field[Any, Any]) -> tuple[Any, list[Any]]:
    """The field's column as the ORM's compiler sees it, and what the compiler applies to its
    values read back: the backend's converters, then the field's own (`from_db_value`). Per
    database vendor, kept for the process."""
    column = field.get_col(field.model._meta.db_table)
    return column, [
        *connection.ops.get_db_converters(column),
        *column.get_db_converters(connection),
    ]
