"""The one module that writes SQL text: model rows in written-out queries, many new rows at
once, upserts, writes sent together. Only table and column names, quoted here, and
placeholders go into the text; the values are parameters.

Why written out. The hottest requests (a quiz answer, a mock-exam save, the session and user
of every signed-in request) read rows whose query the ORM would compile afresh each time,
which cost more than running it prepared. Those queries are written out once (in modules
named for them); `Columns` gives the SELECT list of a model's fields under a table alias and
builds back the instance the ORM would have made, each value through the same converters
(text to date-time on SQLite, JSON text to values). The answer's writes are written out for
the same reason: `db_values` prepares an instance's values as the ORM would send them,
`upsert` builds one INSERT ... ON CONFLICT for many rows, and `run_together` sends
independent writes in one round trip on PostgreSQL.

Many new rows: `bulk_create` builds an instance per row and prepares every value of it field
by field: for an import of 10,000 questions (40,000 options, 40,000 rationales) that was most
of the import's time, the database's own work a tenth of it. `insert_rows` writes the same
rows as multi-row INSERT statements, the values as given (see its docstring), in as few
statements as the database's parameter limit allows: the queries it makes do not grow with
the rows but past that limit, as with bulk_create."""

import datetime
import time
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from typing import Any

from django.db import connection, models
from django.utils import timezone


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
        quote = connection.ops.quote_name
        return ", ".join(f"{quote(self.alias)}.{quote(column)}" for column in self.columns)

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


def names(*columns: str) -> list[str]:
    """Column names, quoted for the database in use. Reaching the connection goes through
    its per-thread proxy, several calls each time: a statement built on every answer quotes
    its names after one look-up, not one each (measured: 80 look-ups were 8% of an answer's
    instructions)."""
    quote = connection.ops.quote_name
    return [str(quote(column)) for column in columns]


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
    columns = [*conflict, *written]
    values = [db_values(instance, columns) for instance in instances]
    return upsert_values(model, conflict, columns, values, overwrite=written)


def upsert_values(
    model: type[models.Model],
    conflict: Sequence[str],
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    overwrite: Sequence[str] = (),
    add: Sequence[str] = (),
    returning: Sequence[str] = (),
) -> Statement:
    """One INSERT of `rows` (values of `columns`, the `conflict` ones among them, as the
    database takes them) which, where a row with the same `conflict` values exists, instead
    overwrites its `overwrite` columns with the new values and adds the new values to its
    `add` columns (counters); with neither, leaves it as it is (DO NOTHING). `returning`:
    these columns of each row written (with DO NOTHING, of the rows inserted only). Give the
    rows in one order for every writer (by their conflict values): two writers then lock
    shared rows in the same order and never wait for each other in a circle."""
    quote = connection.ops.quote_name  # see `names`
    target = quote(model._meta.db_table)
    row = f"({placeholders(len(columns))})"
    updates = [f"{quote(c)} = excluded.{quote(c)}" for c in overwrite]
    updates += [f"{quote(c)} = {target}.{quote(c)} + excluded.{quote(c)}" for c in add]
    action = f"DO UPDATE SET {', '.join(updates)}" if updates else "DO NOTHING"
    sql = (
        f"INSERT INTO {target} ({', '.join(quote(c) for c in columns)}) "  # noqa: S608
        f"VALUES {', '.join([row] * len(rows))} "
        f"ON CONFLICT ({', '.join(quote(c) for c in conflict)}) {action}"
    )
    if returning:
        sql += f" RETURNING {', '.join(quote(c) for c in returning)}"
    return sql, [value for values in rows for value in values]


def update(instance: models.Model, fields: Sequence[str]) -> Statement:
    """The UPDATE of these fields (attnames) of the instance's row, found by its primary key,
    with the values the ORM would send."""
    meta = type(instance)._meta
    quote = connection.ops.quote_name  # see `names`
    assignments = ", ".join(f"{quote(attname)} = %s" for attname in fields)
    pk = quote(str(meta.pk.column)) if meta.pk else "id"
    sql = f"UPDATE {quote(meta.db_table)} SET {assignments} WHERE {pk} = %s"  # noqa: S608
    return sql, [*db_values(instance, fields), instance.pk]


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


def fetch_all(statement: Statement) -> list[tuple[Any, ...]]:
    """Run one statement in the caller's transaction; the rows it returns."""
    sql, params = statement
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def fetch_one(statement: Statement) -> tuple[Any, ...] | None:
    """Run one statement in the caller's transaction; the first row it returns, if any."""
    sql, params = statement
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def execute(statement: Statement) -> int:
    """Run one statement in the caller's transaction; the rows it changed."""
    sql, params = statement
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return int(cursor.rowcount)


def advisory_lock(key: int, *, shared: bool = False, patience: float = 0.0) -> None:
    """Take PostgreSQL's advisory lock `key` until the transaction ends, alone (or with
    `shared`, its shared side, which others may hold at once), waiting for whoever holds it
    in a way that conflicts; nothing elsewhere (SQLite runs one writing transaction at a
    time).

    With `patience` (seconds), it is first only tried, every couple of milliseconds, until a
    moment when nobody holds it, and waited for only after that long. A request that waits
    makes every later request for the lock wait behind it, the shared side included
    (PostgreSQL grants a lock in the order it was asked for): a batch waiting for the answers
    in flight would stop every answer that comes meanwhile."""
    if connection.vendor != "postgresql":
        return
    kind = "_shared" if shared else ""
    deadline = time.monotonic() + patience
    while patience and time.monotonic() < deadline:
        taken = fetch_one((f"SELECT pg_try_advisory_xact_lock{kind}(%s)", [key]))
        if taken and taken[0]:
            return
        time.sleep(0.002)
    fetch_one((f"SELECT pg_advisory_xact_lock{kind}(%s)", [key]))


def relaxed_commit() -> None:
    """Let this transaction's commit return before its record reaches the disk (PostgreSQL's
    synchronous_commit off, for this transaction only): for work that a crash may lose, done
    again after one, whose locks should not wait for the disk. Nothing elsewhere."""
    if connection.vendor == "postgresql":
        execute(("SET LOCAL synchronous_commit = off", []))


def ping() -> None:
    """One round trip to the database, which raises DatabaseError when it does not answer."""
    fetch_one(("SELECT 1", []))


# --- Many new rows at once ------------------------------------------------------------

# Fields whose Python values are what the database drivers take as they are: their values
# are passed through unprepared. Any other field's value goes through the field's own
# get_db_prep_save (dates, JSON, decimals...), as bulk_create would.
_PLAIN_FIELDS = (
    models.CharField,
    models.TextField,
    models.BooleanField,
    models.IntegerField,
)

_AUTO_FIELDS = (models.AutoField, models.BigAutoField, models.SmallAutoField)
_NOTHING = object()


def insert_rows(
    model: type[models.Model],
    names: Sequence[str],
    rows: Iterable[Sequence[Any]],
    *,
    returning_pk: bool = False,
) -> list[Any]:
    """Insert `rows` (each a sequence of values, in the order of the field `names`; a foreign
    key is named by its attname, `question_id`) into `model`'s table. The fields not named
    take their default (a callable default is called for each row, as for a new instance);
    `auto_now` / `auto_now_add` date-times take the time of the call. Returns the new rows'
    primary keys in the order of `rows` when `returning_pk`, else an empty list.

    Nothing else of Model.save runs: no signals, no save() override. Use it for models whose
    rows are plain data (no model here listens to saves of options, rationales or questions)."""
    rows = list(rows)
    if not rows:
        return []
    meta = model._meta
    concrete = {field.attname: field for field in meta.concrete_fields}
    if unknown := [name for name in names if name not in concrete]:
        raise ValueError(f"no column {unknown} in {meta.label} (a foreign key is `name_id`)")
    if returning_pk and not connection.features.can_return_rows_from_bulk_insert:
        # A database that cannot say the new keys of a multi-row insert: bulk_create knows.
        instances = [model(**dict(zip(names, row, strict=True))) for row in rows]
        model._default_manager.bulk_create(instances)
        return [instance.pk for instance in instances]
    keys: list[Any] = []
    with connection.cursor() as cursor:
        for sql, params in insert_statements(model, names, rows, returning_pk=returning_pk):
            cursor.execute(sql, params)
            if returning_pk:
                # Both databases return the rows in the order of VALUES, as bulk_create
                # relies on too.
                keys.extend(row[0] for row in cursor.fetchall())
    return keys


def insert_statements(
    model: type[models.Model],
    names: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    returning_pk: bool = False,
) -> list[tuple[str, list[Any]]]:
    """The INSERT statements (SQL, values) of insert_rows, not run: as few as the database's
    parameter limit allows."""
    meta = model._meta
    concrete = {field.attname: field for field in meta.concrete_fields}
    fields = [concrete[name] for name in names]
    preparers = [_preparer(field) for field in fields]
    named = {field.attname for field in fields}
    extra: list[tuple[models.Field[Any, Any], Callable[[], Any]]] = []
    for field in meta.concrete_fields:
        if field.attname in named or isinstance(field, _AUTO_FIELDS) or field.has_db_default():
            continue  # named, or filled by the database
        extra.append((field, _default(field)))
    columns = [str(field.column) for field in [*fields, *(field for field, _ in extra)]]
    prepared = [(index, prepare) for index, prepare in enumerate(preparers) if prepare]
    # The value last prepared in each column, and what it gave: the same object in the next
    # row (one time for a whole import) is not prepared again.
    last: list[tuple[object, Any]] = [(_NOTHING, None)] * len(prepared)
    values: list[list[Any]] = []
    for row in rows:
        value_row = list(row)
        if len(value_row) != len(fields):
            raise ValueError(f"a row of {len(value_row)} values for {len(fields)} fields")
        for column, (index, prepare) in enumerate(prepared):
            value = value_row[index]
            if value is not last[column][0]:
                last[column] = (value, prepare(value))
            value_row[index] = last[column][1]
        value_row.extend(make() for _, make in extra)
        values.append(value_row)
    return _statements(meta, columns, values, returning_pk=returning_pk)


def _statements(
    meta: Any, columns: Sequence[str], values: Sequence[Sequence[Any]], *, returning_pk: bool
) -> list[tuple[str, list[Any]]]:
    """The multi-row INSERTs of these prepared values, as many as the parameter limit asks."""
    quote = connection.ops.quote_name  # see `names`
    head = (
        f"INSERT INTO {quote(meta.db_table)} "  # noqa: S608 - names from the model's meta
        f"({', '.join(quote(column) for column in columns)}) VALUES "
    )
    tail = f" RETURNING {quote(str(meta.pk.column))}" if returning_pk and meta.pk else ""
    row_placeholder = f"({placeholders(len(columns))})"
    limit = connection.features.max_query_params
    batch = max(1, limit // len(columns)) if limit else len(values)
    chunks = [values[start : start + batch] for start in range(0, len(values), batch)]
    return [
        (
            head + ", ".join([row_placeholder] * len(chunk)) + tail,
            [value for row in chunk for value in row],
        )
        for chunk in chunks
    ]


def insert_instances(instances: Sequence[models.Model]) -> None:
    """bulk_create of new instances of one model, each field's value read from the instance
    and given to insert_rows: their `auto_now` / `auto_now_add` date-times are set to the time
    of the call, and their new primary keys."""
    if not instances:
        return
    model = type(instances[0])
    if not connection.features.can_return_rows_from_bulk_insert:
        model._default_manager.bulk_create(instances)
        return
    fields = [
        field
        for field in model._meta.concrete_fields
        if not isinstance(field, _AUTO_FIELDS) and not field.has_db_default()
    ]
    # One time for all of them (save() would take the time of each).
    now = timezone.now()
    for field in fields:
        if isinstance(field, models.DateField) and (field.auto_now or field.auto_now_add):
            value = now if isinstance(field, models.DateTimeField) else datetime.date.today()
            for instance in instances:
                setattr(instance, field.attname, value)
    names = [field.attname for field in fields]
    keys = insert_rows(
        model,
        names,
        ([getattr(instance, name) for name in names] for instance in instances),
        returning_pk=True,
    )
    for instance, key in zip(instances, keys, strict=True):
        instance.pk = key
        instance._state.adding = False
        instance._state.db = connection.alias


def keyed_instance_statements(instances: Sequence[models.Model]) -> list[tuple[str, list[Any]]]:
    """The INSERTs of new instances of one model whose primary keys are set already (taken
    from the table's sequence), every concrete field's value read from the instance; not
    run, for the caller to send with other writes."""
    model = type(instances[0])
    names = [field.attname for field in model._meta.concrete_fields]
    rows = [[getattr(instance, name) for name in names] for instance in instances]
    return insert_statements(model, names, rows)


def _preparer(field: models.Field[Any, Any]) -> Callable[[Any], Any] | None:
    # A foreign key to an integer primary key (an auto field is an integer field) is plain.
    target = field.target_field if isinstance(field, models.ForeignKey) else field
    if isinstance(target, _PLAIN_FIELDS):
        return None
    return lambda value: field.get_db_prep_save(value, connection=connection)


def _default(field: models.Field[Any, Any]) -> Callable[[], Any]:
    """How a field left out of the named ones gets its value, ready for the database."""
    if isinstance(field, models.DateField) and (field.auto_now or field.auto_now_add):
        now = field.get_db_prep_save(
            timezone.now() if isinstance(field, models.DateTimeField) else datetime.date.today(),
            connection=connection,
        )
        return lambda: now
    if field.has_default() and callable(field.default):
        return lambda: field.get_db_prep_save(field.get_default(), connection=connection)
    # No default: what a new instance would have ("" for text, else None), as bulk_create.
    constant = field.get_db_prep_save(field.get_default(), connection=connection)
    return lambda: constant
