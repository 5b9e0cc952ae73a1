"""Database constraints that several tables state alike: one function per rule.

Each table still names its columns and its constraint (the names are in the migrations and must not change);
the condition is written once here. A function builds the same ``CheckConstraint`` or ``UniqueConstraint``
the table would spell out inline, so ``makemigrations`` sees no difference.
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Iterable

from django.db import models
from django.db.models import Q


def known_value(name: str, field: str, values: Iterable[object]) -> models.CheckConstraint:
    """The column holds one of its choices' values: the database refuses anything else."""
    return models.CheckConstraint(condition=Q(**{f"{field}__in": list(values)}), name=name)


def set_together(name: str, *fields: str) -> models.CheckConstraint:
    """The columns are all empty or all set: an answer's parts, a variant and its template version."""
    empty = Q(**{f"{field}__isnull": True for field in fields})
    filled = Q(**{f"{field}__isnull": False for field in fields})
    return models.CheckConstraint(condition=empty | filled, name=name)


def at_most_one_set(name: str, *fields: str) -> models.CheckConstraint:
    """Of three columns at most one is set (all may be empty): some two of them are both empty. Written for
    three only: with more columns "some two empty" would allow several set."""
    if len(fields) != 3:
        raise ValueError(f"{name}: at_most_one_set is written for three columns, not {len(fields)}")
    pairs = (
        Q(**{f"{first}__isnull": True, f"{second}__isnull": True})
        for first, second in itertools.combinations(fields, 2)
    )
    return models.CheckConstraint(condition=functools.reduce(operator.or_, pairs), name=name)


def done_within_total(name: str) -> models.CheckConstraint:
    """A job's progress counter never passes its total."""
    return models.CheckConstraint(condition=Q(done__lte=models.F("total")), name=name)


def question_slots(parent: str, prefix: str) -> tuple[models.UniqueConstraint, models.UniqueConstraint]:
    """The items of one parent (an attempt, a pack) list each question once, each at its own position."""
    return (
        models.UniqueConstraint(fields=[parent, "question"], name=f"{prefix}_one_per_question"),
        models.UniqueConstraint(fields=[parent, "position"], name=f"{prefix}_position_unique"),
    )
