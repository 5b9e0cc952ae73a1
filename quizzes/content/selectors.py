"""Reads about content: published lessons and questions, live options, interview prompts, learner history.

Read-only, keyword-only. "Published" means what a learner can see (the question *and* its lesson
published): every function here starts from the QuerySet methods in quizzes.content.querysets.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable
from typing import Any

from django.db.models import Prefetch, QuerySet

from quizzes.content.models import ContentSource, Lesson, Option, Question, QuestionVersion
from quizzes.core.compiled import CompiledRead, Later

#: The most prompts a mock interview draws.
MOCK_INTERVIEW_MAX = 10


# --- lessons -------------------------------------------------------------------------------------


def lesson_list_published() -> QuerySet[Lesson]:
    """Published lessons in order, each annotated with ``question_count`` (published questions)."""
    return Lesson.objects.published().with_question_count().order_by("order", "key")


#: the columns ``lesson_heads_published_later`` loads (a lesson's teaching JSON is most of its row)
_LESSON_HEAD_COLUMNS = ("id", "key", "title", "order")


def _lesson_heads_query(_key: object) -> QuerySet[Any]:
    return lesson_list_published().values_list(*_LESSON_HEAD_COLUMNS, "question_count")


_LESSON_HEADS = CompiledRead(_lesson_heads_query, {})


def lesson_heads_published_later() -> Later[list[Lesson]]:
    """``lesson_list_published`` with only id, key, title and order loaded (the rest loads if read), to run
    ``together`` with a page's other reads: the progress tables. Compiled once per process (``CompiledRead``)."""

    def finish(rows: list[tuple[Any, ...]]) -> list[Lesson]:
        lessons = []
        for *values, question_count in rows:
            lesson = Lesson.from_db("default", _LESSON_HEAD_COLUMNS, values)
            lesson.question_count = question_count  # type: ignore[attr-defined]  # as with_question_count() annotates
            lessons.append(lesson)
        return lessons

    return _LESSON_HEADS.later(None, finish)


def lesson_published_get(*, key: str) -> Lesson:
    """A published lesson by key; ``Lesson.DoesNotExist`` for drafts and unknown keys (the page 404s)."""
    return Lesson.objects.published().get(key=key)


def lesson_published_by_id(*, lesson_id: int) -> Lesson | None:
    return Lesson.objects.published().filter(pk=lesson_id).first()


def lessons_with_content() -> QuerySet[Lesson]:
    """Published lessons with their published questions and options prefetched (the lessons API)."""
    questions = Question.objects.published().prefetch_related("options").order_by("order", "key")
    return lesson_list_published().prefetch_related(Prefetch("questions", queryset=questions))


def lesson_with_content(*, lesson_id: int) -> Lesson | None:
    """One published lesson with its published questions and options (the lessons API's detail)."""
    return lessons_with_content().filter(pk=lesson_id).first()


def lesson_quiz_questions(*, lesson: Lesson) -> QuerySet[Question]:
    """The server-graded questions of a lesson that an attempt contains, in lesson order."""
    return lesson.questions.published().quiz().prefetch_related("options").order_by("order", "key")


def lesson_quiz_count(*, lesson: Lesson) -> int:
    return lesson.questions.published().quiz().count()


def lesson_practice_questions(*, lesson: Lesson) -> dict[str, list[Question]]:
    """The lesson's published interview prompts and recall cards (the practice links on its page)."""
    grouped: dict[str, list[Question]] = {"prompt": [], "recall": []}
    for question in lesson.questions.published().self_rated().order_by("order", "key"):
        grouped[question.kind].append(question)
    return grouped


# --- questions -----------------------------------------------------------------------------------


def live_options(*, question: Question) -> list[Option]:
    """The options a new attempt or a content listing shows: not retired, in authoring order.

    Retired options stay in the database (old attempts refer to them and still render them) but are
    never offered again. Reads the prefetched ``options`` when the caller prefetched them.
    """
    return sorted((o for o in question.loaded_options() if not o.retired), key=lambda o: (o.order, o.key))


def question_by_id(*, question_id: int | str) -> Question | None:
    """Any question by id with its lesson, published or not (a service or the admin decides what to do with it)."""
    return Question.objects.select_related("lesson").filter(pk=question_id).first()


def rateable_question(
    *, question_id: int | None = None, key: str | None = None, kind: str | None = None
) -> Question | None:
    """A published interview prompt or recall card of a published lesson, by id or by key (and kind)."""
    questions = Question.objects.rateable().select_related("lesson")
    if question_id is not None:
        questions = questions.filter(pk=question_id)
    if key is not None:
        questions = questions.filter(key=key)
    if kind is not None:
        questions = questions.filter(kind=kind)
    return questions.first()


def interview_prompts() -> list[Question]:
    """Every published interview prompt, lesson by lesson."""
    return list(
        Question.objects.published()
        .filter(kind=Question.Kind.PROMPT)
        .select_related("lesson")
        .order_by("lesson__order", "lesson__key", "order", "key")
    )


def mock_interview_questions(*, n: int, rng: random.Random | None = None) -> list[Question]:
    """``n`` interview prompts drawn at random across lessons (all of them if there are fewer)."""
    prompts = interview_prompts()
    rng = rng or random.Random()
    return rng.sample(prompts, min(n, len(prompts)))


def questions_by_ids(*, ids: list[int]) -> list[Question]:
    """Published questions in the given order (ids that vanished or were unpublished are dropped)."""
    found = Question.objects.published().filter(pk__in=ids).select_related("lesson").in_bulk()
    return [found[pk] for pk in ids if pk in found]


def content_counts() -> dict[str, Counter]:
    """Questions marked published per lesson and kind (for load_lessons' summary and the tests)."""
    counts: dict[str, Counter] = {}
    for lesson_key, kind in Question.objects.marked_published().values_list("lesson__key", "kind"):
        counts.setdefault(lesson_key, Counter())[kind] += 1
    return counts


# --- learner history of content (shared by the loader and the admin) ------------------------------


def questions_with_history(*, question_ids: Iterable[int] | None = None) -> set[int]:
    """Ids of questions some learner has touched (an attempt item or a review card exists)."""
    questions = Question.objects.touched()
    if question_ids is not None:
        questions = questions.filter(pk__in=list(question_ids))
    return set(questions.values_list("pk", flat=True))


def option_ids_shown_to_learners(*, question_ids: Iterable[int] | None = None) -> set[int]:
    """Ids of options that some attempt displayed (``option_order``) or recorded as chosen."""
    questions = Question.objects.filter(attempt_items__isnull=False)
    if question_ids is not None:
        questions = questions.filter(pk__in=list(question_ids))
    shown: set[int] = set()
    for order, chosen in questions.values_list("attempt_items__option_order", "attempt_items__chosen_option_id"):
        shown.update(pk for pk in (order or []) if isinstance(pk, int))
        if chosen:
            shown.add(chosen)
    return shown


def question_options(*, question: Question) -> list[Option]:
    """Every option of a question, retired ones too, in authoring order (the admin's answer key)."""
    return sorted(question.loaded_options(), key=lambda o: (o.order, o.key))


# --- Moodle XML import and export (quizzes.content.moodle) ------------------------------------------


def lesson_by_key(*, key: str) -> Lesson | None:
    """Any lesson by its key, published or not (the authoring tools': import, export)."""
    return Lesson.objects.filter(key=key).first()


def lesson_file_questions(*, lesson: Lesson) -> list[Question]:
    """A lesson's questions that the lesson files own, in lesson order."""
    return list(lesson.questions.filter(source=ContentSource.FILE).order_by("order", "key"))


def lesson_questions_with_options(*, lesson: Lesson) -> list[Question]:
    """Every question of a lesson, published or not, in lesson order, with its lesson and options loaded."""
    return list(
        Question.objects.filter(lesson=lesson)
        .select_related("lesson")
        .prefetch_related("options")
        .order_by("order", "key")
    )


def questions_with_options(*, ids: Iterable[int]) -> list[Question]:
    """The questions with these ids (published or not), in lesson order, with their lessons and options loaded."""
    questions = Question.objects.filter(pk__in=list(ids)).select_related("lesson").prefetch_related("options")
    return list(questions.order_by("lesson__order", "lesson__key", "order", "key"))


def lessons_questions_with_options(*, lesson_ids: Iterable[int]) -> list[Question]:
    """Every question of these lessons, published or not, in lesson order, with their lessons, options and (for a
    generated question) source loaded."""
    questions = Question.objects.filter(lesson_id__in=list(lesson_ids)).select_related("lesson", "generated_from")
    return list(questions.prefetch_related("options").order_by("lesson__order", "lesson__key", "order", "key"))


def published_choice_bank() -> dict[str, list[Option]]:
    """Every published choice question learners can see → its live options (the answer-cue rule b's bank)."""
    questions = Question.objects.published().filter(kind=Question.Kind.CHOICE).prefetch_related("options")
    return {question.key: live_options(question=question) for question in questions}


# --- question versions (quizzes.content.versions) ----------------------------------------------------


def question_versions(*, question: Question) -> list[QuestionVersion]:
    """A question's versions, newest first, with who saved each (the snapshots deferred)."""
    return list(question.versions.select_related("created_by").defer("snapshot").order_by("-number"))


def question_version(*, question: Question, number: int) -> QuestionVersion | None:
    """One version of a question by its number, with its snapshot."""
    return question.versions.select_related("created_by").filter(number=number).first()


def question_version_number(*, question: Question) -> int:
    """The newest version's number (0: none yet): what an editor's form was loaded at."""
    return question.versions.order_by("-number").values_list("number", flat=True).first() or 0


def lessons_of_questions(*, question_ids: Iterable[int]) -> QuerySet[Lesson]:
    """The lessons holding any of these questions, in lesson order (the admin's download of a selection)."""
    return Lesson.objects.filter(questions__pk__in=list(question_ids)).distinct().order_by("order", "key")
