"""Model rows in written-out queries: instances read back, values written, writes run together.

The hottest requests (a quiz answer, a mock-exam save, the session and user of every signed-in
request) read rows whose query the ORM would compile afresh each time, which cost more than
running it prepared. Those queries are written out once; `Columns` gives the SELECT list of a
model's fields under a table alias and builds back the instance the ORM would have made, each
value through the same converters (text to date-time on SQLite, JSON text to values).

The answer's writes are written out for the same reason: `db_values` prepares an instance's
values as the ORM would send them, `upsert` builds one INSERT ... ON CONFLICT for many rows,
and `run_together` sends independent writes in one round trip on PostgreSQL."""

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
        self._converting: dict[str, list[Any]] = {}  # per database vendor, see _converting

    def __len__(self) -> int:
        return len(self.fields)

    def select(self) -> str:
        q = connection.ops.quote_name
        return ", ".join(f"{q(self.alias)}.{q(column)}" for column in self.columns)

    def source(self) -> str:
        """The model's table under the alias, for a FROM or a JOIN."""
        return f"{table(self.model)} {self.alias}"

    def build(self, values: Sequence[Any]) -> Any:
        """The instance, or None for the columns of a LEFT JOIN that found no row."""
        if values[0] is None:
            return None
        converted = list(values)
        vendor = connection.vendor
        if (converting := self._converting.get(vendor)) is None:
            converting = self._converting[vendor] = _converting(self.fields)
        for index, column, converters in converting:
            value = converted[index]
            if value is not None:
                for converter in converters:
                    value = converter(value, column, connection)
                converted[index] = value
        return self.model.from_db(connection.alias, self.attnames, converted)


def table(model: type[models.Model]) -> str:
    """The model's table, its name quoted for the database in use. Table and column names
    are the only text a written-out query takes from elsewhere; the values are parameters."""
    return str(connection.ops.quote_name(model._meta.db_table))


def placeholders(count: int) -> str:
    """`count` parameter placeholders, for an IN list of that many values."""
    return ", ".join(["%s"] * count)


def build_all(parts: Sequence[Columns], row: Sequence[Any]) -> tuple[list[Any], int]:
    """The instances of `parts`, read in turn from the start of `row`, and where the row's
    other columns start."""
    built, start = [], 0
    for part in parts:
        built.append(part.build(row[start : start + len(part)]))
        start += len(part)
    return built, start


def _converting(fields: Sequence[models.Field[Any, Any]]) -> list[Any]:
    """(position, column, converters) of the fields whose values read back need converting
    (see _converters). Most fields need none."""
    found = []
    for index, field in enumerate(fields):
        column, converters = _converters(connection.vendor, field)
        if converters:
            found.append((index, column, converters))
    return found


@cache
def _converters(vendor: str, field: models.Field[Any, Any]) -> tuple[Any, list[Any]]:
    """The field's column as the ORM's compiler sees it, and what the compiler applies to its
    values read back: the backend's converters (text to date-time on SQLite), then the
    field's own (`from_db_value`). Per database vendor, kept for the process."""
    column = field.get_col(field.model._meta.db_table)
    return column, [
        *connection.ops.get_db_converters(column),
        *column.get_db_converters(connection),
    ]


def read_value(field: models.Field[Any, Any], value: Any) -> Any:
    """One value of `field` read by a written-out query, as the ORM would give it."""
    if value is None:
        return None
    column, converters = _converters(connection.vendor, field)
    for converter in converters:
        value = converter(value, column, connection)
    return value


Statement = tuple[str, list[Any]]


def db_values(instance: models.Model, names: Sequence[str]) -> list[Any]:
    """The instance's values of these fields (attnames), as the ORM would send them: each
    through its field's get_db_prep_save (JSON, date-times)."""
    fields = _by_attname(type(instance))
    return [
        fields[name].get_db_prep_save(getattr(instance, name), connection=connection)
        for name in names
    ]


@cache
def _by_attname(model: type[models.Model]) -> dict[str, models.Field[Any, Any]]:
    return {field.attname: field for field in model._meta.concrete_fields}


def upsert(
    model: type[models.Model],
    conflict: Sequence[str],
    written: Sequence[str],
    instances: Sequence[models.Model],
) -> Statement:
    """One INSERT of the instances' `conflict` and `written` fields (attnames) which, where a
    row with the same `conflict` values exists, overwrites its `written` ones instead."""
    q = connection.ops.quote_name
    columns = [*conflict, *written]
    row = f"({placeholders(len(columns))})"
    updates = ", ".join(f"{q(name)} = excluded.{q(name)}" for name in written)
    sql = (
        f"INSERT INTO {table(model)} ({', '.join(q(c) for c in columns)}) "  # noqa: S608
        f"VALUES {', '.join([row] * len(instances))} "
        f"ON CONFLICT ({', '.join(q(c) for c in conflict)}) DO UPDATE SET {updates}"
    )
    return sql, [value for instance in instances for value in db_values(instance, columns)]


def run_together(statements: Sequence[Statement | None]) -> tuple[Any, ...] | None:
    """Run writes that touch different rows, in the caller's transaction: on PostgreSQL as one
    statement (all but the last as data-modifying WITH queries, which see the same snapshot
    and must not touch the same rows), one round trip instead of one each; elsewhere in turn.
    Returns the first row the last statement returns (its RETURNING), if any."""
    given = [statement for statement in statements if statement is not None]
    if not given:
        return None
    with connection.cursor() as cursor:
        if connection.vendor != "postgresql" or len(given) == 1:
            for sql, params in given:
                cursor.execute(sql, params)
        else:
            *first, (last, _) = given
            heads = ", ".join(f"w{n} AS ({sql})" for n, (sql, _) in enumerate(first))
            cursor.execute(f"WITH {heads} {last}", [v for _, params in given for v in params])
        return cursor.fetchone() if cursor.description else None
