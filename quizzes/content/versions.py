"""Question versions (issue 27): the one mechanism that keeps every change to a question's content.

A version (:class:`~quizzes.content.models.QuestionVersion`) is an immutable snapshot of a question: its
fields, every option (text, correct, feedback, ``retired``), the template, its version and parameters, and
a code question's resolved checker spec. The services that save question content call
:func:`versions_record` after they saved it — the admin's change form, ``load_lessons``, a generation job,
:func:`question_revert` — and a new version is written only when the snapshot's digest differs from the
newest version's, so an unchanged import writes none. Attempt starts and pack issues pin the newest version
of each question they show (:func:`versions_current`, which records one first if the content changed by a
path that does not record, so what is pinned is always what is shown); the readers of history build the
question from the pinned version (:func:`version_question`), never from the question as it is now.

Why a table of our own rather than django-simple-history or django-reversion: a version here is a unit of
*meaning* (a question with its options and resolved spec, shared by every attempt and pack item that showed
it, identified by its digest), not a row-level audit log of one model; learner rows must reference it with a
foreign key; and packs already stored exactly this snapshot, so one table serves both (Moodle's question
versions work the same way). Neither library is installed.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from quizzes.content.code import GRADING_SEED, CodeSpecError, spec_from_field
from quizzes.content.models import LOADED_OPTIONS, ContentSource, Option, Question, QuestionVersion

#: The question fields a version keeps (besides id, key, kind and lesson) and a revert restores.
CONTENT_FIELDS = (
    "prompt",
    "explanation",
    "answer_form",
    "template",
    "template_version",
    "params",
    "fixed_seed",
    "reference_answer",
    "rubric",
    "expected_lines",
    "code_spec",
    "number_answer",
    "number_tolerance",
    "number_unit",
)
#: The option fields a version keeps and a revert restores (besides id and key).
OPTION_CONTENT_FIELDS = ("text", "is_correct", "feedback", "order", "retired")
RECORD_RETRIES = 3


# --- the snapshot ------------------------------------------------------------------------------------


def code_snapshot(*, spec: Any, seed: int = GRADING_SEED) -> dict[str, Any]:
    """What a version keeps of a code question's checker: the code shown (helpers, scaffold with TODO lines),
    the names to define, the reference solution, and the resolved spec and seed it is graded with."""
    return {
        "spec": spec.to_dict(),
        "seed": seed,
        "display_code": spec.display_code(),
        "describe": spec.describe(),
        "reference_solution": spec.reference,
    }


def version_snapshot(*, question: Question, options: Sequence[Option]) -> dict[str, Any]:
    """A question's content as a version keeps it (JSON), with every option given, retired ones too.

    A code question also keeps its checker spec resolved (:func:`code_snapshot`), so a later fix of a
    built-in spec does not change what an attempt or a pack that showed this version grades.
    """
    fields = {name: getattr(question, name) for name in CONTENT_FIELDS}
    fields["rubric"], fields["expected_lines"] = list(question.rubric or []), list(question.expected_lines or [])
    snapshot: dict[str, Any] = {
        "question": {
            "id": question.pk,
            "key": question.key,
            "kind": question.kind,
            "lesson_id": question.lesson_id,
            **fields,
        },
        "options": [
            {"id": o.pk, "key": o.key, **{name: getattr(o, name) for name in OPTION_CONTENT_FIELDS}}
            for o in sorted(options, key=lambda o: (o.order, o.key))
        ],
    }
    if question.kind == Question.Kind.CODE:
        try:
            snapshot["code"] = code_snapshot(spec=spec_from_field(question.code_spec), seed=GRADING_SEED)
        except CodeSpecError:  # an unusable spec (refused when saved): the item shows no code and cannot be graded
            snapshot["code"] = None
    return snapshot


def snapshot_digest(snapshot: dict[str, Any]) -> str:
    """A content's identity: SHA-256 of its canonical JSON (sorted keys, no spaces)."""
    canonical = json.dumps(snapshot, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


#: (digest, template version) -> the version's in-memory Question with its options. A version never changes
#: (its digest is its content), so each is built once per process and shared read-only by every item that
#: showed it (building 200 questions and their options was ≈ 10 % of a pack's build, bench/packs.py).
_QUESTIONS: dict[tuple[str, int | None], Question] = {}
_MAX_QUESTIONS = 4096


def version_question(*, digest: str, snapshot: dict[str, Any], template_version: int | None = None) -> Question:
    """A version as an unsaved Question whose ``loaded_options()`` are the version's options (shared, read-only:
    ``options.all()`` on it would read the current rows).

    ``template_version``: the item's own, for versions packs stored before versions kept it (then the item's
    is the only record of it). Versions stored before this mechanism lack some fields; they read as empty.
    """
    key = (digest, template_version)
    question = _QUESTIONS.get(key)
    if question is not None:
        return question
    fields = snapshot["question"]
    question = Question(
        pk=fields["id"],
        key=fields["key"],
        kind=fields["kind"],
        lesson_id=fields["lesson_id"],
        **{name: fields[name] for name in CONTENT_FIELDS if name in fields},
    )
    if template_version is not None:
        question.template_version = template_version
    if "code" in snapshot:  # the version's resolved spec, never the current one
        question.code_spec = (snapshot["code"] or {}).get("spec")
    options = [
        Option(
            pk=o["id"],
            question_id=fields["id"],
            key=o["key"],
            **{name: o[name] for name in OPTION_CONTENT_FIELDS if name in o},
        )
        for o in snapshot["options"]
    ]
    setattr(question, LOADED_OPTIONS, options)  # read through Question.loaded_options, never options.all()
    if len(_QUESTIONS) >= _MAX_QUESTIONS:
        _QUESTIONS.clear()
    _QUESTIONS[key] = question
    return question


def version_question_of(*, version_id: int, digest: str) -> Question:
    """:func:`version_question` of a version whose digest the caller read (the answer POST's statement does): a dict
    lookup once the process built that content, else one query for the snapshot."""
    question = _QUESTIONS.get((digest, None))
    if question is None:
        snapshot = QuestionVersion.objects.values_list("snapshot", flat=True).get(pk=version_id)
        question = version_question(digest=digest, snapshot=snapshot)
    return question


# --- writes ------------------------------------------------------------------------------------------


def _newest(question_ids: Iterable[int]) -> dict[int, QuestionVersion]:
    """Each question's newest version (snapshot deferred). Reads every version of the questions, newest first: a
    question has a handful, and this plain ordered read is half the cost of an anti-join (1.2 vs 2.4 ms for a
    30-question attempt start)."""
    newest: dict[int, QuestionVersion] = {}
    rows = (
        QuestionVersion.objects.filter(question_id__in=list(question_ids))
        .order_by("question_id", "-number")
        .only("id", "question_id", "number", "digest", "source", "created_at", "created_by")
    )
    for version in rows:
        newest.setdefault(version.question_id, version)
    return newest


def versions_record(
    *,
    questions: Sequence[Question],
    source: str | None = None,
    user: User | None = None,
    now: dt.datetime | None = None,
) -> dict[int, QuestionVersion]:
    """Each question's newest version, recording a new one for each whose content changed: id → version.

    Call after saving a question's content (options included). ``source`` is where the change came from
    (ContentSource; default: the question's own source), ``user`` who made it. Reads ``question.options.all()``
    (prefetch them for many questions). Race-safe: two writers numbering the same version insert it once
    (the unique (question, number); the loser reads the winner's back and compares again). The returned
    versions carry their snapshots.
    """
    now = now or timezone.now()
    snapshots = {q.pk: version_snapshot(question=q, options=list(q.options.all())) for q in questions}
    digests = {pk: snapshot_digest(snapshot) for pk, snapshot in snapshots.items()}
    by_id = {q.pk: q for q in questions}
    for _try in range(RECORD_RETRIES):
        newest = _newest(digests)
        missing = [
            QuestionVersion(
                question_id=pk,
                number=(newest[pk].number + 1) if pk in newest else 1,
                digest=digest,
                snapshot=snapshots[pk],
                source=source or by_id[pk].source or ContentSource.ADMIN,
                created_by=user,
                created_at=now,
            )
            for pk, digest in digests.items()
            if pk not in newest or newest[pk].digest != digest
        ]
        if not missing:
            break
        QuestionVersion.objects.bulk_create(missing, ignore_conflicts=True)
    else:
        newest = _newest(digests)
    for pk, version in newest.items():
        if version.digest == digests[pk]:
            version.snapshot = snapshots[pk]  # the same content: no need to read it back
    return newest


def version_record_saved(*, question_id: int, source: str, user: User | None = None) -> QuestionVersion:
    """:func:`versions_record` for one question just saved (read back with its options): the admin's form."""
    question = Question.objects.prefetch_related("options").get(pk=question_id)
    return versions_record(questions=[question], source=source, user=user)[question_id]


def versions_current(*, questions: Sequence[Question]) -> dict[int, QuestionVersion]:
    """The versions a new attempt or pack pins: each question's newest, matching its content now (recorded if a
    path that does not record changed it, with the question's own source)."""
    return versions_record(questions=questions)


def question_revert(*, question: Question, version: QuestionVersion, user: User | None) -> QuestionVersion:
    """Put an older version's content back, as a **new** version (learners' history keeps what it pinned).

    Options are matched by key: the version's are restored (created again if deleted since), any other
    option is retired (never deleted: an attempt may have shown it). Kind, key and lesson stay as they are.
    Raises ValidationError when the old content breaks a rule that holds now (e.g. a template version gone).
    """
    assert version.question_id == question.pk
    fields = version.snapshot["question"]
    with transaction.atomic():
        question = Question.objects.select_for_update().get(pk=question.pk)
        for name in CONTENT_FIELDS:
            if name in fields:
                setattr(question, name, fields[name])
        question.full_clean(exclude=["lesson", "generated_from"], validate_unique=False)
        question.save()
        current = {o.key: o for o in Option.objects.filter(question=question)}
        kept = {o["key"]: o for o in version.snapshot["options"]}
        for key, stored in kept.items():
            option = current.get(key) or Option(question=question, key=key, source=ContentSource.ADMIN)
            for name in OPTION_CONTENT_FIELDS:
                if name in stored:
                    setattr(option, name, stored[name])
            option.save()
        dropped = Option.objects.filter(question=question).exclude(key__in=list(kept))
        dropped.update(retired=True)  # the version did not list them: retired, never deleted
        question = Question.objects.prefetch_related("options").get(pk=question.pk)
        return versions_record(questions=[question], source=ContentSource.ADMIN, user=user)[question.pk]


def question_edit_state(*, question: Question, options: Sequence[Option]) -> str:
    """Everything an editor's form shows of a question, as one digest: its content (what a version keeps, options
    included) and where it stands, which no version keeps (its lesson, order and publication)."""
    snapshot = version_snapshot(question=question, options=options)
    placement = {"lesson_id": question.lesson_id, "order": question.order, "published": question.published}
    return snapshot_digest({"content": snapshot, **placement})


def version_check_fresh(*, question_id: int, loaded: int | None, state: str | None = None) -> None:
    """Refuse a save of a question based on an older state than the one saved now (no lost update).

    ``loaded``: the version number the editor's form was loaded at; ``state``: its :func:`question_edit_state`
    (None: a new question, or a form that does not say). A newer version names who saved it when; a changed
    lesson, order or publication (no version records those) names when. Locks the question's row until the
    caller's transaction ends, so two saves of one question are checked one after the other (PostgreSQL; SQLite
    serialises writers). Raises ValidationError.
    """
    if loaded is None and state is None:
        return
    question = Question.objects.select_for_update().filter(pk=question_id).first()
    if question is None:
        return
    newest = _newest([question_id]).get(question_id)
    if loaded is not None and newest is not None and newest.number > loaded:
        saved_at = date_format(timezone.localtime(newest.created_at), "H:i")
        by = newest.created_by.get_username() if newest.created_by else newest.get_source_display()
        raise ValidationError(
            _(
                "Someone saved this question at %(time)s (version %(number)d, by %(by)s) after you opened it; your "
                "changes were not saved. Reload the page to see theirs, then make your edit again."
            )
            % {"time": saved_at, "number": newest.number, "by": by},
            code="stale",
        )
    if state and question_edit_state(question=question, options=list(question.options.all())) != state:
        raise ValidationError(
            _(
                "Someone changed this question's lesson, order, publication or options at %(time)s after you "
                "opened it; your changes were not saved. Reload the page to see theirs, then make your edit again."
            )
            % {"time": date_format(timezone.localtime(question.updated_at), "H:i")},
            code="stale",
        )


def version_lines(snapshot: dict[str, Any]) -> list[str]:
    """A version as numbered text lines, field by field and option by option: what the admin shows and diffs."""
    fields = snapshot["question"]
    lines = [f"kind: {fields['kind']}", f"key: {fields['key']}"]
    for name in CONTENT_FIELDS:
        value = fields.get(name)
        if value in (None, "", [], {}):
            continue
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
        lines += [f"{name}:", *(f"    {line}" for line in text.splitlines() or [""])]
    for option in snapshot["options"]:
        marks = " ".join(
            mark for mark, on in (("[correct]", option.get("is_correct")), ("[retired]", option.get("retired"))) if on
        )
        lines.append(f"option {option['key']} {marks}".rstrip())
        lines += [f"    text: {line}" for line in str(option.get("text", "")).splitlines()]
        lines += [f"    feedback: {line}" for line in str(option.get("feedback", "")).splitlines()]
    return lines
