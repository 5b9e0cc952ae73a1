"""The practice domain's hand-written SQL (issue 26, item 2), in one place.

Each statement here is kept because bench/README.md ("SQL fast paths") measures what it saves on the answer
POST, names that measurement, and has the ORM query it replaces beside it: ``SQL_FAST_PATHS=false`` runs that
query instead, and tests/quizzes/core/test_fast_paths.py holds the two to the same rows. The scoping rules stay
the QuerySets' (``owned_by``, ``unfinished``); the statements are built from the models' own columns through
quizzes.core.rows, so a model change or a Django upgrade that moves them fails those tests, not a learner.
"""

from __future__ import annotations

import functools

from django.contrib.auth.models import User
from django.db import connection
from django.db.models import Exists, F, OuterRef, Prefetch

from quizzes.content.models import LOADED_OPTIONS, Option, Question, QuestionVersion
from quizzes.content.versions import version_question_of
from quizzes.core import rows
from quizzes.core.rows import quote
from quizzes.practice.models import Attempt, AttemptItem


@functools.cache
def _item_sql(_vendor: str) -> str:  # the quoting and the JSON functions are the backend's
    items, attempts, questions, versions = (
        quote(model._meta.db_table) for model in (AttemptItem, Attempt, Question, QuestionVersion)
    )
    options = rows.json_rows(
        Option,
        "o",
        source=f"FROM {quote(Option._meta.db_table)} o WHERE o.question_id = q.id",
        order_by=f"o.{quote('order')}, o.{quote('key')}",  # Option's ordering, within one question
    )
    return (
        f"SELECT {rows.select_list(AttemptItem, 'i')}, {rows.select_list(Attempt, 'a')}, "
        f"{rows.select_list(Question, 'q')}, {options}, v.digest FROM {items} i "
        f"JOIN {attempts} a ON a.id = i.attempt_id JOIN {questions} q ON q.id = i.question_id "
        f"LEFT JOIN {versions} v ON v.id = i.version_id "
        f"WHERE i.id = %s AND a.user_id = %s"
    )


def item_read(*, user: User, item_id: int) -> AttemptItem | None:
    """The learner's item with its attempt, and the question version it showed with its options
    (``question.loaded_options()``; an item without a version: the question as it is).

    One plain statement (issue 16: the answer POST): the item joined to its attempt, question and version's digest,
    the options as a JSON array beside them, attached as ``Prefetch(to_attr=...)`` would attach them; the version's
    question is built once per process (quizzes.content.versions). Kept for its measurement (issue 26; bench/README.md,
    "SQL fast paths", ``bench/sql_paths.py --only "item read"``): 1.3 ms of CPU against 7.0 ms for ``item_read_orm``'s
    ``select_related`` + ``prefetch_related`` and its second round trip; tests/quizzes/core/test_fast_paths.py
    compares the two (an id within the column's range: the selector checks).
    """
    with connection.cursor() as cursor:
        cursor.execute(_item_sql(connection.vendor), [item_id, user.pk])
        row = cursor.fetchone()
    if row is None:
        return None
    cut, end = rows.width(AttemptItem), rows.width(AttemptItem) + rows.width(Attempt)
    item = rows.instance_from_row(AttemptItem, row[:cut])
    item.attempt = rows.instance_from_row(Attempt, row[cut:end])
    item.question = question = rows.instance_from_row(Question, row[end:-2])
    # where Prefetch("question__options", to_attr=LOADED_OPTIONS) would put them (Question.loaded_options)
    setattr(question, LOADED_OPTIONS, rows.instances_from_json(Option, row[-2]))
    if item.version_id is not None:  # what the item showed (a dict lookup once the process built the version)
        item.question = version_question_of(version_id=item.version_id, digest=row[-1])
    return item


def item_read_orm(*, user: User, item_id: int) -> AttemptItem | None:
    """``item_read`` by the ORM: the query its statement replaces, scoped by ``AttemptItem.objects.owned_by``
    (tests/quizzes/core/test_fast_paths.py compares the two; ``SQL_FAST_PATHS=false`` runs this one)."""
    options = Prefetch("question__options", queryset=Option.objects.order_by("order", "key"), to_attr=LOADED_OPTIONS)
    found = (
        AttemptItem.objects.owned_by(user)
        .select_related("attempt", "question")
        .prefetch_related(options)
        .annotate(version_digest=F("version__digest"))  # the digest only, as the statement reads it
        .filter(pk=item_id)
        .first()
    )
    if found is not None and found.version_id is not None:
        found.question = version_question_of(version_id=found.version_id, digest=found.version_digest)
    return found


@functools.cache
def attempt_unfinished_guard() -> tuple[str, Exists]:
    """The answer lock's "its attempt is unfinished" (``Attempt.objects.unfinished()``), as SQL over the item's row
    and as the ORM's ``Exists``; tests/quizzes/core/test_fast_paths.py holds the two to the same rows.

    Built once: the pair never changes, and building the ``Exists`` took ≈ 0.25 ms of every answer (cProfile of
    ``bench/profile.py answer``). Sharing it is safe because Django copies an expression (its query cloned)
    when a filter resolves it."""
    items, attempts = quote(AttemptItem._meta.db_table), quote(Attempt._meta.db_table)
    sql = f"EXISTS (SELECT 1 FROM {attempts} a WHERE a.id = {items}.attempt_id AND a.finished_at IS NULL)"
    return sql, Exists(Attempt.objects.unfinished().filter(pk=OuterRef("attempt_id")))
