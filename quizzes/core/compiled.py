"""Hot read queries compiled to SQL once per process, then run with each request's values.

Why (issue 16): on a learner's first due-queue fetch and on the dashboard, building, cloning and compiling
a QuerySet costs 1–3 ms of Python per query on this CPU — several times PostgreSQL's own work for these
index-range reads of one learner's rows. The rule stays written once, as a QuerySet (``build``);
``CompiledRead`` compiles it with two sets of sample values, finds which SQL parameters each value
became, checks that nothing else moved, and from then on binds the request's values into the stored SQL
and applies the same converters the ORM would (SQLite hands datetimes and booleans back as text and ints).

Only plain values can be bound: ints (ids), strings compared as they are (a session key) and aware datetimes.
Anything that changes the SQL's text (a time zone's name, an hour compared in SQL, a slice) goes in ``key``:
one compilation per distinct key.
A build whose values do not land in the parameters exactly as given raises ``CompiledReadError`` at its
first use, so a test of the selector catches it on SQLite and PostgreSQL alike.

The compiler calls (``QuerySet.query.get_compiler().as_sql()``, ``compiler.select``, ``get_converters``) are
Django's undocumented internals, kept here only for what they measured to buy (issue 26; bench/README.md, "SQL fast
paths", ``bench/sql_paths.py``: web CPU per call, compiled against the QuerySet): the due queue's three reads 2.8
against 11.5 ms, the dashboard's four 3.0 against 25.3 ms, ``profile_for`` 0.58 against 1.74 ms, a session's user 0.54
against 1.62 ms. ``SQL_FAST_PATHS=false`` evaluates every build as a plain QuerySet instead, and
tests/quizzes/core/test_fast_paths.py runs every compiled read beside its QuerySet and compares the rows, so a
Django upgrade that changes the compiler fails there.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.conf import settings
from django.db import connections
from django.db.models import QuerySet

from quizzes.core import rows

#: Distinct keys kept per read before the oldest compilation is dropped (keys are zones × hours × pages; one
#: compilation costs about 1 ms).
MAX_KEYS = 1024

Value = int | str | dt.datetime
T = TypeVar("T")

_SAMPLES: dict[type, tuple[Any, Any]] = {
    int: (2_000_000_011, 2_000_000_029),
    str: ("compiled-read-sample-1", "compiled-read-sample-2"),
    dt.datetime: (
        dt.datetime(2003, 4, 5, 6, 7, 8, 901234, tzinfo=dt.UTC),
        dt.datetime(2004, 5, 6, 7, 8, 9, 123457, tzinfo=dt.UTC),
    ),
}


class CompiledReadError(RuntimeError):
    """A build whose values cannot be bound into its compiled SQL (a programming error, caught by tests)."""


@dataclass(frozen=True)
class _Compiled:
    sql: str
    params: tuple[Any, ...]
    slots: dict[str, tuple[int, ...]]  # value name → parameter positions
    converters: list[tuple[int, list[Callable[..., Any]], Any]]  # column, converters, expression


def _bind(connection: Any, value: Value) -> Any:
    """A value as the ORM hands it to the driver (a datetime lookup adapts it; an id goes as it is)."""
    if isinstance(value, dt.datetime):
        return connection.ops.adapt_datetimefield_value(value)
    return value


class CompiledRead:
    """``build(key, **values)`` → QuerySet, compiled once per (database, key); ``rows(key, **values)`` runs it.

    ``values`` names the bound values and their types, e.g. ``{"user_id": int, "end": dt.datetime}``.
    """

    def __init__(self, build: Callable[..., QuerySet[Any]], values: Mapping[str, type]) -> None:
        self.build = build
        self.values = dict(values)
        self._compiled: dict[tuple[str, Hashable], _Compiled] = {}

    def _compile_with(self, key: Hashable, values: dict[str, Any]) -> tuple[str, tuple[Any, ...], Any]:
        queryset = self.build(key, **values)
        compiler = queryset.query.get_compiler(using=queryset.db)
        sql, params = compiler.as_sql()
        return sql, tuple(params), compiler

    def _compile(self, using: str, key: Hashable) -> _Compiled:
        connection = connections[using]
        first = {name: _SAMPLES[kind][0] for name, kind in self.values.items()}
        sql, params, compiler = self._compile_with(key, first)
        slots: dict[str, tuple[int, ...]] = {}
        for name, kind in self.values.items():
            other_sql, other_params, _ = self._compile_with(key, {**first, name: _SAMPLES[kind][1]})
            moved = tuple(i for i, (a, b) in enumerate(zip(params, other_params, strict=False)) if a != b)
            expected = (_bind(connection, _SAMPLES[kind][0]), _bind(connection, _SAMPLES[kind][1]))
            if (
                other_sql != sql
                or len(other_params) != len(params)
                or not moved
                or any((params[i], other_params[i]) != expected for i in moved)
                or any(i in taken for taken in slots.values() for i in moved)
            ):
                raise CompiledReadError(f"{self.build.__qualname__}: {name!r} does not bind as a plain parameter")
            slots[name] = moved
        expressions = [column for column, _sql, _alias in compiler.select]
        converters = [
            (index, functions, expression)
            for index, (functions, expression) in compiler.get_converters(expressions).items()
        ]
        return _Compiled(sql=sql, params=params, slots=slots, converters=converters)

    def _statement(self, key: Hashable, using: str, values: Mapping[str, Value]) -> tuple[_Compiled, list[Any]]:
        compiled = self._compiled.get((using, key))
        if compiled is None:
            if len(self._compiled) >= MAX_KEYS:
                del self._compiled[next(iter(self._compiled))]  # the oldest compilation
            compiled = self._compiled[(using, key)] = self._compile(using, key)
        connection = connections[using]
        params = list(compiled.params)
        for name, positions in compiled.slots.items():
            bound = _bind(connection, values[name])
            for position in positions:
                params[position] = bound
        return compiled, params

    def rows(self, key: Hashable, *, using: str = "default", **values: Value) -> list[tuple[Any, ...]]:
        """The rows (tuples in the build's ``values_list()`` order), converted as the ORM would convert them."""
        return together(Later(self, key, values, list), using=using)[0]

    def orm_rows(self, key: Hashable, *, using: str = "default", **values: Value) -> list[tuple[Any, ...]]:
        """The same rows by the ORM (the build's QuerySet evaluated): what ``rows`` replaces, which the tests
        compare it with (tests/quizzes/core/test_fast_paths.py) and ``SQL_FAST_PATHS=false`` runs instead."""
        return [tuple(row) for row in self.build(key, **values).using(using)]

    def later(self, key: Hashable, finish: Callable[[list[tuple[Any, ...]]], T], **values: Value) -> Later[T]:
        """This read bound to its values, with what to make of its rows, to run ``together`` with others."""
        return Later(self, key, values, finish)


def _converted(compiled: _Compiled, found: list[Any], connection: Any) -> list[tuple[Any, ...]]:
    if not compiled.converters:
        return [tuple(row) for row in found]
    return [tuple(rows.converted_row(row, compiled.converters, connection)) for row in found]


@dataclass(frozen=True)
class Later(Generic[T]):
    """A compiled read bound to its values, and the function that makes its result from its rows."""

    read: CompiledRead
    key: Hashable
    values: Mapping[str, Value]
    finish: Callable[[list[tuple[Any, ...]]], T]


def together(*reads: Later[Any], using: str = "default") -> list[Any]:
    """Each read's result, in order: on PostgreSQL sent in one round trip (``rows.read_together``), elsewhere one
    after the other. Why: a page's independent reads of one learner each waited for the server in turn; on a busy
    host every round trip is a millisecond or more of wall time. Still one statement per read."""
    if not settings.SQL_FAST_PATHS:  # the QuerySets themselves, one after the other (what the fast path replaces)
        return [later.finish(later.read.orm_rows(later.key, using=using, **later.values)) for later in reads]
    connection = connections[using]
    statements = [later.read._statement(later.key, using, later.values) for later in reads]
    found = rows.read_together(*(rows.Statement(compiled.sql, params) for compiled, params in statements), using=using)
    return [
        later.finish(_converted(compiled, result, connection))
        for later, (compiled, _params), result in zip(reads, statements, found, strict=True)
    ]
