"""One row in, one row out, in SQL written once — for the answer POST's statements (issue 16).

Why: on this CPU the ORM spends 0.3–1 ms of Python building each statement of the answer POST (cloning
the QuerySet, compiling joins, select_related), several times PostgreSQL's own work for these primary-key
reads and writes. These helpers keep the ORM's meaning where it matters — values go through each field's
``get_db_prep_save`` and ``pre_save`` (JSON, datetimes, ``auto_now``), rows come back through the same
converters the ORM applies (SQLite hands datetimes, booleans and JSON back as text) — and leave out the
statement building. Table and column names come from the models' ``_meta``.

Statements count too: a parent row brings its children as JSON (``json_rows``), and the answer's log and card
are written by one statement. Independent reads can go in one round trip (``read_together``, psycopg's pipeline
mode): that pays for three reads of many rows (the due queue, the dashboard), but not for two one-row
statements — sending the answer's two locks that way measured ≈ 10 % slower in wall and CPU time on this host
(a loopback round trip costs less than the pipeline's own Python).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, IntegrityError, connection, connections, transaction
from django.db.models import Field, Model

M = TypeVar("M", bound=Model)


def quote(name: str | None) -> str:
    assert name is not None  # a concrete column or table always has a name
    return connection.ops.quote_name(name)


def _field(model: type[Model], name: str) -> Field:
    field = model._meta.get_field(name)
    assert isinstance(field, Field)  # a column, not a reverse relation
    return field


@functools.cache
def _fields(model: type[Model]) -> tuple[Field, ...]:
    return tuple(model._meta.concrete_fields)


def pk_in_range(model: type[Model], value: int) -> bool:
    """Whether ``value`` can be a primary key of ``model`` in this database: the ORM answers "no such row"
    to an id beyond the column's range (a client's 99999999999999999999999), a raw statement would fail."""
    low, high = connection.ops.integer_field_range(model._meta.pk.get_internal_type())
    return (low is None or low <= value) and (high is None or value <= high)


def select_list(model: type[Model], alias: str) -> str:
    """Every concrete column of ``model`` as ``alias.column``, in ``instance_from_row``'s order."""
    return _select_list(model, alias, connection.vendor)


@functools.cache
def _select_list(model: type[Model], alias: str, _vendor: str) -> str:  # the quoting is the backend's
    return ", ".join(f"{alias}.{quote(field.column)}" for field in _fields(model))


def width(model: type[Model]) -> int:
    """How many columns ``select_list`` gives."""
    return len(_fields(model))


@dataclass(frozen=True)
class _Reader:
    """How rows of one model come back from one backend: the columns that need converting (most need none on
    PostgreSQL), their converters and expressions, and the attnames ``Model.from_db`` takes."""

    converters: tuple[tuple[int, tuple[Callable[..., Any], ...], Any], ...]
    attnames: tuple[str, ...]


#: Per (model, backend): the converters depend on the backend and the fields only (read once, not per row).
_READERS: dict[tuple[type[Model], str], _Reader] = {}


def _reader(model: type[Model], conn: Any) -> _Reader:
    key = (model, conn.vendor)
    found = _READERS.get(key)
    if found is None:
        converters = []
        for index, field in enumerate(_fields(model)):
            col = field.get_col(model._meta.db_table)
            functions = (*conn.ops.get_db_converters(col), *col.get_db_converters(conn))
            if functions:
                converters.append((index, functions, col))
        found = _READERS[key] = _Reader(tuple(converters), tuple(field.attname for field in _fields(model)))
    return found


def instance_from_row(model: type[M], values: Sequence[Any]) -> M:
    """A model instance from ``select_list``'s columns, converted as the ORM would convert them.

    The connection is looked up once per row, not once per column through ``django.db.connection``'s
    per-thread proxy (that lookup was a third of an answer POST's row reading, issue 16)."""
    conn = connections[DEFAULT_DB_ALIAS]
    reader = _reader(model, conn)
    if len(values) != len(reader.attnames):
        raise ValueError(f"{model.__name__}: {len(values)} columns for {len(reader.attnames)} fields")
    return model.from_db(conn.alias, reader.attnames, converted_row(values, reader.converters, conn))


Converters = Sequence[tuple[int, Sequence[Callable[..., Any]], Any]]  # column index, functions, expression


def converted_row(values: Sequence[Any], converters: Converters, conn: Any) -> list[Any]:
    """A row's values through the ORM's converters (only the columns that have any), as the ORM applies them."""
    row = list(values)
    for index, functions, expression in converters:
        value = row[index]
        for function in functions:
            value = function(value, expression, conn)
        row[index] = value
    return row


def json_rows(model: type[Model], alias: str, *, source: str, order_by: str) -> str:
    """A subquery giving every row of ``source`` (``FROM table alias WHERE …``) as one JSON array of
    ``select_list`` arrays, in ``order_by`` order: a parent row and its children in one statement (``item_for``:
    an item and its question's options), where ``prefetch_related`` would send a second one. Read it back with
    ``instances_from_json``."""
    assert _json_safe(model), f"{model.__name__} has a column JSON would hand back changed (a date, a decimal …)"
    columns = _json_select_list(model, alias, connection.vendor)
    if connection.vendor == "postgresql":
        return f"(SELECT COALESCE(json_agg(json_build_array({columns}) ORDER BY {order_by}), '[]') {source})"
    # SQLite (the dev database): json_group_array keeps the order of an ordered inner query
    return f"(SELECT json_group_array(json(r)) FROM (SELECT json_array({columns}) AS r {source} ORDER BY {order_by}))"


#: Columns a JSON array carries as themselves, so the ORM's own converters still apply on the way back. A
#: JSONField travels as its text (``_json_select_list``), which is what its converter reads in an ordinary row.
_JSON_SAFE_TYPES = frozenset(
    {"AutoField", "BigAutoField", "BooleanField", "CharField", "ForeignKey", "IntegerField", "JSONField",
     "PositiveIntegerField", "PositiveSmallIntegerField", "SlugField", "SmallIntegerField", "TextField"}
)  # fmt: skip


@functools.cache
def _json_select_list(model: type[Model], alias: str, vendor: str) -> str:
    """``select_list`` for ``json_rows``: PostgreSQL would nest a jsonb column as an object, so it is cast to
    text (SQLite keeps JSON as text already)."""

    def column(field: Field) -> str:
        name = f"{alias}.{quote(field.column)}"
        return f"{name}::text" if vendor == "postgresql" and field.get_internal_type() == "JSONField" else name

    return ", ".join(column(field) for field in _fields(model))


@functools.cache
def _json_safe(model: type[Model]) -> bool:
    return all(field.get_internal_type() in _JSON_SAFE_TYPES for field in _fields(model))


def instances_from_json(model: type[M], value: Any) -> list[M]:
    """``json_rows``'s column as model instances, each converted as the ORM converts its rows."""
    if isinstance(value, str | bytes):  # SQLite hands JSON back as text, psycopg decodes it
        value = json.loads(value)
    return [instance_from_row(model, row) for row in value]


def convert(model: type[Model], field_name: str, value: Any) -> Any:
    """One column (e.g. a subquery's) as the ORM would hand over ``model.field_name``'s values."""
    col = _field(model, field_name).get_col(model._meta.db_table)
    for function in [*connection.ops.get_db_converters(col), *col.get_db_converters(connection)]:
        value = function(value, col, connection)
    return value


@dataclass(frozen=True)
class Statement:
    """One read and its parameters, to send with others in one round trip (``read_together``)."""

    sql: str
    params: Sequence[Any]


def read_together(*statements: Statement, using: str = "default") -> list[list[tuple[Any, ...]]]:
    """Each read's rows, in order: on PostgreSQL sent in one round trip (psycopg's pipeline mode), elsewhere one
    after the other. Why: a page's independent reads of one learner each waited for the server in turn (issue 16:
    the due queue's three reads of many rows). Not for one-row statements: there the pipeline's own Python costs
    more than the round trip it saves (see the module docstring)."""
    conn = connections[using]
    cursors = []
    try:
        if len(statements) > 1 and conn.vendor == "postgresql" and _pipeline_supported():
            conn.ensure_connection()
            cursors = [conn.cursor() for _ in statements]
            with conn.wrap_database_errors, conn.connection.pipeline():
                for cursor, statement in zip(cursors, statements, strict=True):
                    cursor.execute(statement.sql, statement.params)
        else:
            for statement in statements:
                cursors.append(cursor := conn.cursor())
                cursor.execute(statement.sql, statement.params)
        return [cursor.fetchall() for cursor in cursors]
    finally:
        for cursor in cursors:
            cursor.close()


@functools.cache
def _pipeline_supported() -> bool:
    import psycopg  # only on PostgreSQL

    return bool(psycopg.Pipeline.is_supported())


def row_update(model: type[Model], *, pk: Any, values: Mapping[str, Any], where: str = "") -> int:
    """``UPDATE table SET …values WHERE pk = %s [AND where]``: how many rows matched (0 or 1).

    ``values`` maps attnames (``chosen_option_id``, not ``chosen_option``) to Python values, prepared by each
    field as ``QuerySet.update`` prepares them. ``where`` is extra SQL over the table's own columns (the caller
    checks it against its QuerySet in a test).
    """
    sql, fields = _update_sql(model, tuple(values), where, connection.vendor)
    params = [field.get_db_prep_save(values[field.attname], connection) for field in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, model._meta.pk.get_db_prep_value(pk, connection)])
        return cursor.rowcount


@functools.cache
def _update_sql(model: type[Model], names: tuple[str, ...], where: str, _vendor: str) -> tuple[str, list[Field]]:
    meta = model._meta
    fields = [_field(model, name) for name in names]
    assert all(field.attname == name for field, name in zip(fields, names, strict=True))  # attnames only
    assignments = ", ".join(f"{quote(field.column)} = %s" for field in fields)
    sql = f"UPDATE {quote(meta.db_table)} SET {assignments} WHERE {quote(meta.pk.column)} = %s"
    return (f"{sql} AND {where}" if where else sql), fields


def _insert_params(instance: Model) -> list[Any] | None:
    """The INSERT's parameters, prepared as the ORM prepares them; None when the ORM must write the row itself
    (no RETURNING on this backend, a field whose value is a database expression, or ``SQL_FAST_PATHS`` off)."""
    if not settings.SQL_FAST_PATHS:
        return None
    if not connection.features.can_return_columns_from_insert:  # pragma: no cover - PostgreSQL and SQLite ≥ 3.35
        return None
    fields = [field for field in _fields(type(instance)) if field is not instance._meta.pk]
    values = [field.pre_save(instance, add=True) for field in fields]
    if any(hasattr(value, "resolve_expression") for value in values):  # a database default: the ORM's way
        return None
    return [field.get_db_prep_save(value, connection) for field, value in zip(fields, values, strict=True)]


def _inserted(instance: Model, pk: Any) -> None:
    instance.pk = pk
    instance._state.adding = False
    instance._state.db = connection.alias


def row_insert(instance: Model) -> None:
    """``INSERT … RETURNING id`` of one unsaved instance, sending no signals (like ``bulk_create``); sets its pk."""
    params = _insert_params(instance)
    if params is None:
        type(instance).objects.bulk_create([instance])  # type: ignore[attr-defined]
        return
    with connection.cursor() as cursor:
        cursor.execute(_insert_sql(type(instance), connection.vendor), params)
        _inserted(instance, cursor.fetchone()[0])


def row_insert_unless_taken(instance: Model) -> bool:
    """``INSERT … ON CONFLICT DO NOTHING RETURNING id``: whether the row went in (False: a unique key of it is
    taken, e.g. by a concurrent transaction that committed it first). Sets the pk when it went in. One
    statement where ``bulk_create`` in a savepoint would send three (SAVEPOINT, INSERT, RELEASE): kept for its
    measurement (issue 26; bench/README.md, "SQL fast paths"): 0.88 ms of CPU and 11 ms of wall time on a loaded
    host against the savepoint's (``SQL_FAST_PATHS=false``), and the answer's statement budget
    (tests/bench_queries/test_query_counts.py)."""
    params = _insert_params(instance)
    if params is None:
        try:
            with transaction.atomic():
                type(instance).objects.bulk_create([instance])  # type: ignore[attr-defined]
        except IntegrityError:
            return False
        return True
    sql = _insert_sql(type(instance), connection.vendor).replace(" RETURNING ", " ON CONFLICT DO NOTHING RETURNING ")
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        return False
    _inserted(instance, row[0])
    return True


def _orm_update(model: type[Model], pk: Any, values: Mapping[str, Any]) -> int:
    return int(model._default_manager.filter(pk=pk).update(**values))


def row_insert_and_update(instance: Model, model: type[Model], *, pk: Any, values: Mapping[str, Any]) -> None:
    """``row_insert(instance)`` and ``row_update(model, pk=pk, values=values)`` of an existing row, in one statement
    where the backend allows it (PostgreSQL: the INSERT in a WITH clause of the UPDATE): one round trip and one
    statement's Python fewer for the answer POST, which writes its review log and its card together (issue 16).
    Elsewhere, the two statements one after the other. The updated row must exist (the caller holds its lock).
    Kept for its measurement (issue 26; bench/README.md, "SQL fast paths", ``bench/sql_paths.py --only "log + card"``):
    1.3 ms of CPU against 2.7 ms for the ORM's ``bulk_create`` + ``QuerySet.update`` (``SQL_FAST_PATHS=false``);
    tests/quizzes/core/test_fast_paths.py and test_rows.py compare what both store."""
    missing = model.DoesNotExist(f"{model._meta.label} {pk}: no row to update alongside the insert")  # type: ignore[attr-defined]
    params = _insert_params(instance)
    if connection.vendor != "postgresql" or params is None:
        row_insert(instance)
        if not (row_update(model, pk=pk, values=values) if settings.SQL_FAST_PATHS else _orm_update(model, pk, values)):
            raise missing  # the caller's lock was not held; its transaction undoes the insert
        return
    update, fields = _update_sql(model, tuple(values), "", connection.vendor)
    insert = _insert_sql(type(instance), connection.vendor)
    sql = f"WITH inserted AS ({insert}) {update} RETURNING (SELECT * FROM inserted)"
    update_params = [field.get_db_prep_save(values[field.attname], connection) for field in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, *update_params, model._meta.pk.get_db_prep_value(pk, connection)])
        row = cursor.fetchone()
    if row is None:
        raise missing  # as above
    _inserted(instance, row[0])


@functools.cache
def _insert_sql(model: type[Model], _vendor: str) -> str:
    meta = model._meta
    fields = [field for field in _fields(model) if field is not meta.pk]
    return (
        f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(field.column) for field in fields)}) "
        f"VALUES ({', '.join(['%s'] * len(fields))}) RETURNING {quote(meta.pk.column)}"
    )
