"""One row in, one row out, in SQL written once — for the answer POST's statements (issue 16).

Why: on this CPU the ORM spends 0.3–1 ms of Python building each statement of the answer POST (cloning
the QuerySet, compiling joins, select_related), several times PostgreSQL's own work for these primary-key
reads and writes; the answer runs seven of them. These helpers keep the ORM's meaning where it matters —
values go through each field's ``get_db_prep_save`` and ``pre_save`` (JSON, datetimes, ``auto_now``), rows
come back through the same converters the ORM applies (SQLite hands datetimes, booleans and JSON back as
text) — and leave out the statement building. Table and column names come from the models' ``_meta``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from django.db import connection
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


Converters = list[tuple[list[Callable[..., Any]], Any]]  # per column: the functions, the expression they get

#: Per (model, backend): the converters depend on the backend and the fields only (read once, not per row).
_CONVERTERS: dict[tuple[type[Model], str], Converters] = {}


def _converters(model: type[Model]) -> Converters:
    key = (model, connection.vendor)
    found = _CONVERTERS.get(key)
    if found is None:
        found = []
        for field in _fields(model):
            col = field.get_col(model._meta.db_table)
            found.append(([*connection.ops.get_db_converters(col), *col.get_db_converters(connection)], col))
        _CONVERTERS[key] = found
    return found


def instance_from_row(model: type[M], values: Sequence[Any]) -> M:
    """A model instance from ``select_list``'s columns, converted as the ORM would convert them."""
    converted = []
    for (functions, expression), value in zip(_converters(model), values, strict=True):
        for function in functions:
            value = function(value, expression, connection)
        converted.append(value)
    return model.from_db(connection.alias, [field.attname for field in _fields(model)], converted)


def convert(model: type[Model], field_name: str, value: Any) -> Any:
    """One column (e.g. a subquery's) as the ORM would hand over ``model.field_name``'s values."""
    col = _field(model, field_name).get_col(model._meta.db_table)
    for function in [*connection.ops.get_db_converters(col), *col.get_db_converters(connection)]:
        value = function(value, col, connection)
    return value


def row_update(
    model: type[Model],
    *,
    pk: Any,
    values: Mapping[str, Any],
    where: str = "",
    where_params: Iterable[Any] = (),
) -> int:
    """``UPDATE table SET …values WHERE pk = %s [AND where]``: how many rows matched (0 or 1).

    ``values`` maps attnames (``chosen_option_id``, not ``chosen_option``) to Python values, prepared by each
    field as ``QuerySet.update`` prepares them. ``where`` is extra SQL over the table's own columns.
    """
    sql, fields = _update_sql(model, tuple(values), where, connection.vendor)
    params = [field.get_db_prep_save(values[field.attname], connection) for field in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, model._meta.pk.get_db_prep_value(pk, connection), *where_params])
        return cursor.rowcount


@functools.cache
def _update_sql(model: type[Model], names: tuple[str, ...], where: str, _vendor: str) -> tuple[str, list[Field]]:
    meta = model._meta
    fields = [_field(model, name) for name in names]
    assert all(field.attname == name for field, name in zip(fields, names, strict=True))  # attnames only
    assignments = ", ".join(f"{quote(field.column)} = %s" for field in fields)
    sql = f"UPDATE {quote(meta.db_table)} SET {assignments} WHERE {quote(meta.pk.column)} = %s"
    return (f"{sql} AND {where}" if where else sql), fields


def row_insert(instance: Model) -> None:
    """``INSERT … RETURNING id`` of one unsaved instance, sending no signals (like ``bulk_create``); sets its pk."""
    if not connection.features.can_return_columns_from_insert:  # pragma: no cover - PostgreSQL and SQLite ≥ 3.35
        type(instance).objects.bulk_create([instance])  # type: ignore[attr-defined]
        return
    meta = instance._meta
    fields = [field for field in _fields(type(instance)) if field is not meta.pk]
    values = [field.pre_save(instance, add=True) for field in fields]
    if any(hasattr(value, "resolve_expression") for value in values):  # a database default: the ORM's way
        type(instance).objects.bulk_create([instance])  # type: ignore[attr-defined]
        return
    params = [field.get_db_prep_save(value, connection) for field, value in zip(fields, values, strict=True)]
    with connection.cursor() as cursor:
        cursor.execute(_insert_sql(type(instance), connection.vendor), params)
        instance.pk = cursor.fetchone()[0]
    instance._state.adding = False
    instance._state.db = connection.alias


@functools.cache
def _insert_sql(model: type[Model], _vendor: str) -> str:
    meta = model._meta
    fields = [field for field in _fields(model) if field is not meta.pk]
    return (
        f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(field.column) for field in fields)}) "
        f"VALUES ({', '.join(['%s'] * len(fields))}) RETURNING {quote(meta.pk.column)}"
    )
