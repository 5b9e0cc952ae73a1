"""Explicit request and response serializers, one per shape, with unique component names.

Requests use the strict fields (quizzes.api.fields): the wrong JSON type is a 400, never coerced.
Unknown keys in a request body are ignored (server-owned fields such as ``user``, ``correct``,
``score``, ``due`` or ``stability`` are simply not fields of any request serializer).
Responses are built from plain dicts (quizzes.api.representations; attempt items from the one item
presenter, quizzes.practice.presenter), so nothing reaches a client that a representation helper did
not put there on purpose.
"""

from __future__ import annotations

from django.conf import settings
from rest_framework import serializers

from quizzes.accounts.models import MAX_RETENTION, MIN_RETENTION
from quizzes.api.fields import (
    StrictBooleanField,
    StrictCharField,
    StrictDateTimeField,
    StrictFloatField,
    StrictIntegerField,
    StrictUUIDField,
)
from quizzes.api.scheduling_serializers import ParametersStatusSerializer
from quizzes.content.code import MAX_CODE_CHARS
from quizzes.models import Attempt, Question, ReviewCard
from quizzes.packs import rules as pack_rules
from quizzes.practice.next_step import NextStepKind

#: How reminders reach the learner (the profile's reminder_channel, or "none" when reminders are off).
REMINDER_CHANNELS = ["push", "email", "none"]
MAX_DURATION_MS = 24 * 60 * 60 * 1000
MAX_COUNT = 32767  # PositiveSmallIntegerField


# --- errors ------------------------------------------------------------------------------------


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Machine-readable, e.g. validation_error, not_found, answer_locked.")
    message = serializers.CharField(help_text="Human-readable, in the request's language.")
    fields = serializers.DictField(  # type: ignore[assignment]  # the error shape's key, not Serializer.fields
        child=serializers.ListField(child=serializers.CharField()),
        help_text='Field path → messages, e.g. {"entries.3.reviewed_at": ["…"]}; {} when not about a field.',
    )


class ErrorResponseSerializer(serializers.Serializer):
    error = ErrorDetailSerializer()


# --- profile -----------------------------------------------------------------------------------


class ProfileSerializer(serializers.Serializer):
    username = serializers.CharField()
    time_zone = serializers.CharField()
    day_rollover_hour = serializers.IntegerField(min_value=0, max_value=23)
    desired_retention = serializers.FloatField(min_value=MIN_RETENTION, max_value=MAX_RETENTION)
    new_per_day = serializers.IntegerField(min_value=0)
    reviews_per_day = serializers.IntegerField(min_value=0)
    reminder_opt_in = serializers.BooleanField()
    reminder_channel = serializers.ChoiceField(
        choices=REMINDER_CHANNELS,
        help_text="push: to your signed-in devices with a push registration, e-mail when none takes it; "
        "email: e-mail only; none: no reminders (reminder_opt_in false).",
    )
    reminder_hour = serializers.IntegerField(min_value=0, max_value=23)
    parameters = ParametersStatusSerializer(help_text="The FSRS parameters that schedule you (read-only).")


class ProfileUpdateSerializer(serializers.Serializer):
    time_zone = StrictCharField(max_length=64, required=False, help_text='An IANA zone, e.g. "Asia/Shanghai".')
    day_rollover_hour = StrictIntegerField(min_value=0, max_value=23, required=False)
    desired_retention = StrictFloatField(min_value=MIN_RETENTION, max_value=MAX_RETENTION, required=False)
    new_per_day = StrictIntegerField(min_value=0, max_value=MAX_COUNT, required=False)
    reviews_per_day = StrictIntegerField(min_value=0, max_value=MAX_COUNT, required=False)
    reminder_opt_in = StrictBooleanField(required=False)
    reminder_channel = serializers.ChoiceField(
        choices=REMINDER_CHANNELS, required=False, help_text="none turns reminders off, push or email on."
    )
    reminder_hour = StrictIntegerField(min_value=0, max_value=23, required=False)


# --- lessons -----------------------------------------------------------------------------------


class LessonOptionSerializer(serializers.Serializer):
    text = serializers.CharField()
    text_html = serializers.CharField()


class LessonQuestionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    key = serializers.CharField()
    kind = serializers.ChoiceField(choices=Question.Kind.choices)
    order = serializers.IntegerField()
    prompt = serializers.CharField(help_text="Markdown with LaTeX in $…$ / $$…$$.")
    prompt_html = serializers.CharField(help_text="The prompt as safe HTML with MathML.")
    answer_form = serializers.ChoiceField(choices=Question.AnswerForm.choices, allow_null=True)
    template = serializers.CharField(allow_null=True)
    options = LessonOptionSerializer(many=True, help_text="Choice questions: the options, in no meaningful order.")
    line_count = serializers.IntegerField(allow_null=True, help_text="Recall cards: how many lines to write.")


class LessonSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    key = serializers.CharField()
    title = serializers.CharField()
    summary = serializers.CharField(allow_blank=True)
    order = serializers.IntegerField()
    question_count = serializers.IntegerField()


class LessonListSerializer(serializers.Serializer):
    lessons = LessonSummarySerializer(many=True)


# --- attempts ----------------------------------------------------------------------------------


#: The modes a client may start: missed-items attempts start from an earlier attempt (POST /attempts/{id}/missed/).
START_MODES = [(mode.value, mode.label) for mode in (Attempt.Mode.STUDY, Attempt.Mode.REVIEW)]
NEXT_STEP_KINDS = [(kind.value, kind.value) for kind in NextStepKind]


class AttemptStartSerializer(serializers.Serializer):
    lesson_id = StrictIntegerField(min_value=1)
    mode = serializers.ChoiceField(choices=START_MODES, default=Attempt.Mode.STUDY)


class AttemptLessonSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    key = serializers.CharField()
    title = serializers.CharField()


class ItemQuestionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    key = serializers.CharField()
    kind = serializers.ChoiceField(choices=Question.Kind.choices)
    prompt = serializers.CharField()
    prompt_html = serializers.CharField()
    answer_form = serializers.ChoiceField(choices=Question.AnswerForm.choices, allow_null=True)


class ItemOptionSerializer(serializers.Serializer):
    id = serializers.CharField(source="handle", help_text="Opaque option id for this item; answer with it.")
    text = serializers.CharField()
    text_html = serializers.CharField()


class GivenValueSerializer(serializers.Serializer):
    name = serializers.CharField()
    value = serializers.JSONField(help_text="A number, a vector or a matrix (null where a score is masked).")
    latex = serializers.CharField()


class NumericChoiceSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    label = serializers.CharField(source="label_zh")  # type: ignore[assignment]  # a field, not Field.label
    label_en = serializers.CharField()


class NumericPromptSerializer(serializers.Serializer):
    template = serializers.CharField()
    prompt = serializers.CharField()
    prompt_html = serializers.CharField()
    given = GivenValueSerializer(many=True)
    expected_shape = serializers.ListField(child=serializers.IntegerField(), help_text="[] for a scalar.")
    answer_format = serializers.CharField(
        allow_blank=True,
        help_text=(
            "answer_form=input: how to type the answer, e.g. “写出 3 个数，保留两位小数”; show it under the prompt. "
            '"" for answer_form=choice and for variants whose prompt already says it.'
        ),
    )
    unit = serializers.CharField(
        allow_blank=True,
        help_text='Number questions (kind=number): the unit to show after the answer box, e.g. "MiB"; "" otherwise.',
    )
    choices = NumericChoiceSerializer(many=True, help_text="answer_form=choice: the values to choose from.")


class CodeInputSerializer(serializers.Serializer):
    name = serializers.CharField()
    kind = serializers.CharField(help_text="normal | uniform (an array), value | dim (a plain value).")
    shape = serializers.ListField(
        child=serializers.CharField(), help_text='In the inputs\' dimension names; "..." = any batch axes.'
    )
    shape_text = serializers.CharField(help_text='e.g. "(..., T, d_k)"; "scalar" for a plain value.')
    dtype = serializers.CharField()


class CodeCaseSerializer(serializers.Serializer):
    name = serializers.CharField()
    note = serializers.CharField(allow_blank=True, help_text="English, e.g. “T = 1, causal”.")
    adversarial = serializers.BooleanField(help_text="Large logits, T = 1, d_k ≠ d_v, batched …")
    required = serializers.BooleanField(help_text="false: failing it still passes the card (with rating Hard).")  # type: ignore[assignment]  # a field, not Field.required


class CodePromptSerializer(serializers.Serializer):
    """A code question before the lock: what the editor page shows besides the prompt (never the reference)."""

    spec = serializers.CharField(help_text="The checker spec's key.")
    spec_version = serializers.IntegerField()
    display_code = serializers.CharField(
        allow_blank=True,
        help_text="The given code, read-only: helpers, then the scaffold whose `name = ...` lines are the TODO lines.",
    )
    inputs = CodeInputSerializer(many=True, help_text="The names the code receives.")
    required = serializers.ListField(child=serializers.CharField(), help_text="The names the code must define.")  # type: ignore[assignment]
    outputs = serializers.ListField(
        child=serializers.CharField(), help_text="Names the given code computes from them (also checked)."
    )
    helpers = serializers.ListField(child=serializers.CharField(), help_text="Given functions, e.g. softmax.")
    cases = CodeCaseSerializer(many=True, help_text="The inputs the code will run on.")


class CodeMessageSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="See attention_engine/codecheck/messages.py for every code.")
    params = serializers.DictField()
    message = serializers.CharField(help_text="English, with the place.")
    line = serializers.IntegerField(allow_null=True, help_text="1-based, in `where`'s text.")
    col = serializers.IntegerField(allow_null=True)
    where = serializers.ChoiceField(choices=["code", "scaffold"], help_text="Your code, or the given code.")
    name = serializers.CharField(allow_null=True)
    case = serializers.CharField(allow_null=True)


class CodeLineMarkSerializer(serializers.Serializer):
    line = serializers.IntegerField()
    end_line = serializers.IntegerField()
    names = serializers.ListField(child=serializers.CharField())
    mark = serializers.ChoiceField(choices=["correct", "incorrect", "fails_optional", "error", "unchecked"])
    code = serializers.CharField(allow_null=True)


class CodeCaseResultSerializer(serializers.Serializer):
    name = serializers.CharField()
    adversarial = serializers.BooleanField()
    required = serializers.BooleanField()  # type: ignore[assignment]
    batch = serializers.ListField(child=serializers.IntegerField())
    note = serializers.CharField(allow_blank=True)
    passed = serializers.BooleanField()


class CodeExampleSerializer(serializers.Serializer):
    case = serializers.CharField()
    note = serializers.CharField(allow_blank=True)
    name = serializers.CharField(help_text="The name this example is about.")
    inputs = serializers.DictField(help_text="The input values (rounded; 'nan', 'inf', '-inf' as text).")
    input_shapes = serializers.DictField()
    got = serializers.JSONField(allow_null=True, help_text="Your value (first 8 rows/columns, first batch entry).")
    got_shape = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    expected = serializers.JSONField()
    expected_shape = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    error = CodeMessageSerializer(allow_null=True)
    truncated = serializers.BooleanField()


class CodeCheckSerializer(serializers.Serializer):
    """The sandbox's verdict on a code answer (``CheckResult.to_dict()`` of attention_engine.codecheck)."""

    format = serializers.IntegerField()
    spec = serializers.CharField()
    spec_version = serializers.IntegerField()
    seed = serializers.IntegerField()
    verdict = serializers.ChoiceField(choices=["correct", "accepted", "incorrect", "rejected"])
    runnable = serializers.BooleanField(help_text="false: refused before running; nothing was locked.")
    passed = serializers.BooleanField(help_text="Counts as correct: correct, or accepted (optional inputs fail).")
    suggested_rating = serializers.IntegerField(allow_null=True, help_text="3 Good, 2 Hard, 1 Again; null if rejected.")
    code = serializers.CharField(help_text="The verdict's code, e.g. misconception, works_2d_only, incorrect.")
    params = serializers.DictField()
    message = serializers.CharField(help_text="English; message_display is in the request's language.")
    misconception = serializers.CharField(allow_null=True, help_text="An id of attention_engine.misconceptions.")
    messages = CodeMessageSerializer(many=True)
    lines = CodeLineMarkSerializer(many=True, help_text="One mark per statement of your code.")
    cases = CodeCaseResultSerializer(many=True)
    example = CodeExampleSerializer(allow_null=True, help_text="Your value vs the expected one on the first failure.")
    work = serializers.IntegerField()


class ItemResponseSerializer(serializers.Serializer):
    option_id = serializers.CharField(required=False, allow_null=True)
    choice_index = serializers.IntegerField(required=False)
    value = serializers.JSONField(required=False)
    code = serializers.CharField(required=False, help_text="Code questions: the code as submitted.")


class MisconceptionSerializer(serializers.Serializer):
    id = serializers.CharField()
    title_zh = serializers.CharField(required=False)
    title_en = serializers.CharField(required=False)
    explanation_zh = serializers.CharField(required=False)
    explanation_en = serializers.CharField(required=False)


class SolutionStepSerializer(serializers.Serializer):
    name = serializers.CharField()
    formula = serializers.CharField(allow_blank=True)
    value = serializers.JSONField(allow_null=True)
    shape = serializers.ListField(child=serializers.IntegerField())


class ItemResultSerializer(serializers.Serializer):
    """The reveal, stored when the item locked. Choice and numeric items fill different fields."""

    kind = serializers.ChoiceField(choices=Question.Kind.choices)
    correct = serializers.BooleanField()
    score = serializers.FloatField()
    explanation = serializers.CharField(allow_blank=True)
    explanation_html = serializers.CharField(allow_blank=True)
    feedback = serializers.CharField(required=False, allow_blank=True, help_text="Choice: the chosen option's.")
    feedback_html = serializers.CharField(allow_blank=True)
    chosen_option_id = serializers.CharField(required=False, allow_null=True)
    correct_option_id = serializers.CharField(required=False, allow_null=True)
    answer_form = serializers.CharField(required=False)
    elements = serializers.JSONField(required=False, allow_null=True)
    message = serializers.CharField(
        required=False, allow_blank=True, help_text="Numeric: the grading message as stored, in English."
    )
    message_code = serializers.ChoiceField(
        choices=["correct", "incorrect", "partly_correct", "wrong_shape", "unreadable", "empty", "not_finite"],
        required=False,
        help_text="Numeric, answer_form=input: what the grader found; absent on results stored before codes existed.",
    )
    message_params = serializers.DictField(
        required=False,
        help_text=(
            'The code\'s details: partly_correct {"correct": 2, "total": 3, "unit": "values" | "rows"}; '
            'wrong_shape {"expected": [3, 3], "got": [3]} (got: the row lengths typed); '
            'unreadable and not_finite {"token": "x", "expected": [3]}; empty {"expected": [3]}; '
            "correct and incorrect {}. expected is the answer's shape, [] for a single number."
        ),
    )
    message_display = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text=(
            "Numeric: the grading message worded in the request's language (Accept-Language: en or zh-Hans), "
            'e.g. "2 of 3 rows correct" / "3 行中有 2 行正确"; the stored message for results without a code. '
            'Code: the checker\'s verdict, e.g. "line 2 (mask): The mask also hid the diagonal".'
        ),
    )
    chosen_choice_index = serializers.IntegerField(required=False)
    correct_choice_index = serializers.IntegerField(required=False)
    misconception = MisconceptionSerializer(required=False, allow_null=True)
    correct_value = serializers.JSONField(required=False)
    correct_value_latex = serializers.CharField(required=False)
    tolerance = serializers.FloatField(
        required=False, help_text="Number questions: an answer within ± this of correct_value is right."
    )
    unit = serializers.CharField(required=False, allow_blank=True, help_text='Number questions: the unit, or "".')
    answer_shape = serializers.ListField(child=serializers.IntegerField(), required=False)
    solution = SolutionStepSerializer(many=True, required=False)
    suggested_rating = serializers.IntegerField(
        required=False,
        help_text=(
            "Code: the rating the checks suggest (3 Good: every input passes; 2 Hard: only the plain ones, or "
            "accepted; 1 Again), recorded when the item locked. Change it with POST /items/{id}/rate/."
        ),
    )
    check = CodeCheckSerializer(required=False, help_text="Code: the sandbox's verdict.")
    reference = serializers.CharField(required=False, help_text="Code: the reference solution (after the lock).")
    display_code = serializers.CharField(required=False, allow_blank=True, help_text="Code: the given code.")


class SkippedKeySerializer(serializers.Serializer):
    """The answer of an item left unanswered, shown on request after the attempt finished (recorded as Again)."""

    correct_option_id = serializers.CharField(allow_null=True, help_text="Choice items: the option id it shows.")
    correct_choice_index = serializers.IntegerField(allow_null=True, help_text="Numeric items, answer_form=choice.")
    correct_value = serializers.JSONField(allow_null=True, help_text="Numeric items.")
    correct_value_latex = serializers.CharField(allow_null=True)
    answer_shape = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    solution = SolutionStepSerializer(many=True, help_text="Numeric items: the worked solution.")
    reference = serializers.CharField(allow_null=True, help_text="Code items: the reference solution.")
    explanation = serializers.CharField(allow_blank=True)
    explanation_html = serializers.CharField(allow_blank=True)


class AttemptItemSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    attempt_id = serializers.IntegerField()
    position = serializers.IntegerField()
    question = ItemQuestionSerializer()
    options = ItemOptionSerializer(many=True, help_text="Choice questions: the options in this attempt's order.")
    numeric = NumericPromptSerializer(allow_null=True)
    code = CodePromptSerializer(allow_null=True, help_text="Code questions: the given code and names.")
    answered = serializers.BooleanField()
    answered_at = serializers.DateTimeField(allow_null=True)
    response = ItemResponseSerializer(allow_null=True)
    result = ItemResultSerializer(allow_null=True, help_text="null until the item is answered (locked).")
    skipped_key = SkippedKeySerializer(
        allow_null=True,
        help_text=(
            "null, except for an item left unanswered in a finished attempt whose skipped answers you asked to see "
            "(POST /attempts/{id}/show-skipped/, which records each of them as Again): its answer."
        ),
    )


class AttemptSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    lesson = AttemptLessonSerializer()
    number = serializers.IntegerField()
    mode = serializers.ChoiceField(choices=Attempt.Mode.choices)
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    item_count = serializers.IntegerField()
    answered_count = serializers.IntegerField()
    skipped_count = serializers.IntegerField(
        help_text="A finished attempt's unanswered items (0 while open): their answers stay hidden until asked for."
    )
    skipped_shown_at = serializers.DateTimeField(
        allow_null=True,
        help_text="When you asked to see the skipped items' answers (POST /attempts/{id}/show-skipped/); null: never.",
    )
    score = serializers.FloatField(
        allow_null=True, help_text="Mean over items (unanswered = 0); null before any answer."
    )


class AttemptSerializer(AttemptSummarySerializer):
    items = AttemptItemSerializer(many=True)


class AttemptPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    page = serializers.IntegerField()
    page_size = serializers.IntegerField()
    results = AttemptSummarySerializer(many=True)


class AnswerSerializer(serializers.Serializer):
    option_id = StrictCharField(max_length=64, required=False, help_text="Choice questions: an option id of this item.")
    choice_index = StrictIntegerField(
        min_value=0, max_value=100, required=False, help_text="Numeric, answer_form=choice."
    )
    value = serializers.JSONField(
        required=False,
        help_text=(
            'Numeric, answer_form=input: a number, list, nested list or text like "0.54, 0.46". '
            'Number questions (kind=number): one number, or text like "512" or "512 MiB" (its unit after it). '
            "One number (a string, a list's string, one value of a text): a point for decimals (0.25, -1.5, 1e-3), "
            'full-width digits and the minus sign "−" read as plain ones; when the answer is a single number, '
            'a space may group thousands ("1 000"). A comma between digits ("1,5", "1,000") or a "%" is '
            "ambiguous: refused (400, the reason in fields.value) and nothing locks. A text of several numbers "
            'separates them by commas ("，", "、") or spaces and rows by ";", newlines or "], [" — so there '
            '"1 000" and "1,5" are two values.'
        ),
    )
    code = StrictCharField(
        max_length=MAX_CODE_CHARS,
        required=False,
        trim_whitespace=False,
        help_text="Code questions: your lines (for a scaffold: one line per TODO, in order).",
    )
    duration_ms = StrictIntegerField(min_value=0, max_value=MAX_DURATION_MS, required=False)


class AnswerResultSerializer(serializers.Serializer):
    replayed = serializers.BooleanField(
        help_text="true: the item was already answered with this answer; nothing stored."
    )
    item = AttemptItemSerializer()


class CodeNotRunnableSerializer(ErrorResponseSerializer):
    check = CodeCheckSerializer(
        required=False,
        help_text="code_not_runnable only: the refusal, every message with its line and column. Nothing was locked.",
    )


class ItemRateSerializer(serializers.Serializer):
    rating = StrictIntegerField(min_value=1, max_value=4, help_text="1 Again, 2 Hard, 3 Good, 4 Easy.")


class ItemRateResultSerializer(serializers.Serializer):
    rating = serializers.IntegerField(help_text="The rating the scheduler now has for this answer.")
    item = AttemptItemSerializer()


class AnswerConflictSerializer(ErrorResponseSerializer):
    item = AttemptItemSerializer(help_text="The item with its locked response and result.")


# --- reviews -----------------------------------------------------------------------------------


class CardQuestionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    key = serializers.CharField()
    kind = serializers.ChoiceField(choices=Question.Kind.choices)
    lesson_id = serializers.IntegerField()
    lesson_key = serializers.CharField()
    prompt = serializers.CharField()
    prompt_html = serializers.CharField()


class ReviewCardSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    question = CardQuestionSerializer()
    state = serializers.ChoiceField(choices=ReviewCard.State.choices)
    state_label = serializers.CharField()
    due = serializers.DateTimeField()
    due_today = serializers.BooleanField()
    last_review = serializers.DateTimeField(allow_null=True)
    stability = serializers.FloatField(allow_null=True)
    difficulty = serializers.FloatField(allow_null=True)
    reps = serializers.IntegerField()
    lapses = serializers.IntegerField()
    suspended = serializers.BooleanField()
    is_leech = serializers.BooleanField()


class DashboardCountsSerializer(serializers.Serializer):
    due = serializers.IntegerField(help_text="Cards due today (capped by reviews per day).")
    new = serializers.IntegerField(help_text="New questions available today (capped by new per day).")
    reviewed_today = serializers.IntegerField()
    streak = serializers.IntegerField(help_text="Consecutive study days with a rating.")
    next_due_after_today = serializers.DateTimeField(allow_null=True)
    study_day = serializers.DateField()


class DueQueueSerializer(serializers.Serializer):
    counts = DashboardCountsSerializer()
    count = serializers.IntegerField(help_text="Cards in the queue (all pages).")
    page = serializers.IntegerField()
    page_size = serializers.IntegerField()
    results = ReviewCardSerializer(many=True, help_text="Most overdue first.")


class CardPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    page = serializers.IntegerField()
    page_size = serializers.IntegerField()
    results = ReviewCardSerializer(many=True)


class RateSerializer(serializers.Serializer):
    question_id = StrictIntegerField(min_value=1)
    rating = StrictIntegerField(min_value=1, max_value=4, help_text="1 Again, 2 Hard, 3 Good, 4 Easy.")
    reviewed_at = StrictDateTimeField(required=False, help_text="Default: now.")
    duration_ms = StrictIntegerField(min_value=0, max_value=MAX_DURATION_MS, required=False)
    client_uuid = StrictUUIDField(required=False, help_text="Makes a retried rating harmless.")


class UndoSerializer(serializers.Serializer):
    card_id = StrictIntegerField(min_value=1, required=False, help_text="Default: the newest rating of any card.")


class UndoResultSerializer(serializers.Serializer):
    question_id = serializers.IntegerField()
    card = ReviewCardSerializer(allow_null=True, help_text="null: that was the card's only rating (new again).")


class RatingPreviewSerializer(serializers.Serializer):
    rating = serializers.IntegerField()
    label = serializers.CharField()  # type: ignore[assignment]  # a field, not Field.label
    due = serializers.DateTimeField()
    interval_seconds = serializers.IntegerField()
    counts = serializers.BooleanField(help_text="false: a same-day repeat, logged without moving the schedule.")


class QuestionReferenceSerializer(serializers.Serializer):
    question_id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=Question.Kind.choices)
    reference_answer = serializers.CharField(allow_blank=True)
    reference_answer_html = serializers.CharField(allow_blank=True)
    rubric = serializers.ListField(child=serializers.CharField())
    expected_lines = serializers.ListField(child=serializers.CharField())
    explanation = serializers.CharField(allow_blank=True)
    explanation_html = serializers.CharField(allow_blank=True)
    rating_previews = RatingPreviewSerializer(many=True)


class DayCountSerializer(serializers.Serializer):
    day = serializers.DateField()
    count = serializers.IntegerField()


class ForecastSerializer(serializers.Serializer):
    days = DayCountSerializer(many=True, help_text="Due cards per study day from today; today includes the overdue.")


class HeatmapSerializer(serializers.Serializer):
    days = DayCountSerializer(many=True, help_text="Ratings per study day, oldest first, ending today.")


# --- offline upload ----------------------------------------------------------------------------


class OfflineEntrySerializer(serializers.Serializer):
    client_uuid = StrictUUIDField(help_text="Generated by the client once per review; makes re-uploads harmless.")
    pack_item_id = StrictIntegerField(
        min_value=1,
        required=False,
        help_text=(
            "An item of one of your review packs: send what the learner did (option_id, choice_index or value; "
            "rating for a prompt or recall card), never correct. The server grades it against its own copy."
        ),
    )
    question_id = StrictIntegerField(min_value=1, required=False)
    question_key = StrictCharField(max_length=100, required=False)
    option_id = StrictCharField(
        max_length=64, required=False, help_text="Pack answers, choice items: the option id the pack showed."
    )
    choice_index = StrictIntegerField(
        min_value=0, max_value=100, required=False, help_text="Pack answers, numeric items with answer_form=choice."
    )
    value = serializers.JSONField(
        required=False,
        help_text="Pack answers, numeric items with answer_form=input: a number, list, nested list or text.",
    )
    code = StrictCharField(
        max_length=MAX_CODE_CHARS,
        required=False,
        trim_whitespace=False,
        help_text="Pack answers, code items: the code written offline; graded by the server at upload.",
    )
    shown_correct = StrictBooleanField(
        required=False,
        help_text="Pack answers: what the phone showed. Only compared: the server's grade stands (overrides_client).",
    )
    correct = StrictBooleanField(
        required=False,
        help_text=(
            "Deprecated (client-graded, marked so in the logs): a quiz question's result as the client judged it. "
            "It may update a card you have, never create one (rejected: not_studied). "
            "Answer from a review pack instead (pack_item_id + what the learner did)."
        ),
    )
    rating = StrictIntegerField(min_value=1, max_value=4, required=False, help_text="Prompt and recall cards: 1–4.")
    reviewed_at = StrictDateTimeField()
    duration_ms = StrictIntegerField(min_value=0, max_value=MAX_DURATION_MS, required=False)

    def validate(self, attrs: dict) -> dict:
        if "pack_item_id" in attrs:
            if "correct" in attrs:
                message = "A pack answer says what the learner did (option_id, choice_index, value), never correct."
                raise serializers.ValidationError({"correct": message})
            return attrs
        if "question_id" not in attrs and "question_key" not in attrs:
            raise serializers.ValidationError({"question_id": "Give question_id or question_key."})
        if ("correct" in attrs) == ("rating" in attrs):
            raise serializers.ValidationError({"rating": "Give exactly one of correct (quiz) and rating (self-rated)."})
        return attrs


class OfflineUploadSerializer(serializers.Serializer):
    entries = OfflineEntrySerializer(  # type: ignore[call-arg]  # ListSerializer's arguments, unknown to the stubs
        many=True, min_length=1, max_length=settings.API_OFFLINE_MAX_ENTRIES
    )


class OfflineEntryResultSerializer(serializers.Serializer):
    client_uuid = serializers.UUIDField()
    status = serializers.ChoiceField(choices=["applied", "already_stored", "duplicate", "rejected"])
    reason = serializers.CharField(
        allow_null=True,
        help_text=(
            "rejected: unknown_question, wrong_outcome, in_future, not_studied (correct for a quiz question you "
            "have no card for), …; pack answers also unknown_pack_item, "
            "before_pack_issued, pack_revoked, pack_expired, answered_twice, foreign_option, unreadable_answer, "
            "code_not_runnable (the checker's message, with line and column; nothing locked: fix it and upload again), "
            "grading_budget_exceeded (the upload's code grading time, 2 s by default, or the learner's for the minute "
            "was spent before this code entry: nothing graded or locked, upload it again later)."
        ),
    )
    message = serializers.CharField(allow_blank=True)
    question_id = serializers.IntegerField(allow_null=True)
    card_id = serializers.IntegerField(allow_null=True)
    pack_item_id = serializers.IntegerField(allow_null=True)
    graded = ItemResultSerializer(
        allow_null=True,
        help_text="Pack answers to quiz items: the server's grade (the result a locked attempt item shows).",
    )
    overrides_client = serializers.BooleanField(
        allow_null=True,
        help_text="true: the server's grade differs from shown_correct, and the server's stands; null: not compared.",
    )


class OfflineUploadResultSerializer(serializers.Serializer):
    entries = OfflineEntryResultSerializer(many=True, help_text="One per uploaded entry, in upload order.")
    cards = ReviewCardSerializer(many=True, help_text="The cards of every question the batch touched, as they are now.")


# --- offline review packs ----------------------------------------------------------------------


class PackCreateSerializer(serializers.Serializer):
    device = StrictCharField(
        max_length=100, required=False, default="", allow_blank=True, help_text='For information, e.g. "Pixel 8".'
    )
    days = StrictIntegerField(
        min_value=0,
        max_value=pack_rules.MAX_DAYS,
        default=pack_rules.DEFAULT_DAYS,
        help_text="Items due today and in this many more study days.",
    )
    max_items = StrictIntegerField(min_value=1, max_value=pack_rules.MAX_ITEMS, default=pack_rules.MAX_ITEMS)


class PackOptionKeySerializer(serializers.Serializer):
    id = serializers.CharField(help_text="The option id the item shows.")
    correct = serializers.BooleanField()
    feedback = serializers.CharField(allow_blank=True)
    feedback_html = serializers.CharField(allow_blank=True)


class PackChoiceKeySerializer(serializers.Serializer):
    index = serializers.IntegerField()
    correct = serializers.BooleanField()
    misconception = MisconceptionSerializer(allow_null=True, help_text="The mistake this value comes from.")


class PackToleranceSerializer(serializers.Serializer):
    atol = serializers.FloatField()
    rtol = serializers.FloatField()
    rule = serializers.CharField(help_text="How the server grades a typed value, element by element.")


class PackTestVectorSerializer(serializers.Serializer):
    value = serializers.JSONField(help_text="A typed answer…")
    correct = serializers.BooleanField(help_text="…and the server's grade of it: check your grader against these.")
    score = serializers.FloatField()
    elements = serializers.JSONField(allow_null=True)


class PackKeySerializer(serializers.Serializer):
    """The answer key of a quiz item, for immediate feedback offline. The server grades the upload itself."""

    correct_option_id = serializers.CharField(allow_null=True, help_text="Choice items.")
    correct_choice_index = serializers.IntegerField(allow_null=True, help_text="Numeric items, answer_form=choice.")
    correct_value = serializers.JSONField(allow_null=True, help_text="Numeric items.")
    correct_value_latex = serializers.CharField(allow_null=True)
    answer_shape = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    solution = SolutionStepSerializer(many=True, help_text="Numeric items: the worked solution.")
    explanation = serializers.CharField(allow_blank=True)
    explanation_html = serializers.CharField(allow_blank=True)
    option_feedback = PackOptionKeySerializer(many=True, help_text="Choice items: every option's feedback.")
    choice_feedback = PackChoiceKeySerializer(many=True, help_text="Numeric items, answer_form=choice.")
    tolerance = PackToleranceSerializer(allow_null=True, help_text="Numeric items: the grading rule.")
    test_vectors = PackTestVectorSerializer(many=True, help_text="Numeric items, answer_form=input.")
    graded_at_upload = serializers.BooleanField(
        help_text=(
            "Code items: true — a phone cannot run the checker; show the reference solution and "
            '"graded when you are back online", and upload the code.'
        )
    )
    reference_solution = serializers.CharField(
        allow_null=True, help_text="Code items: the reference solution, to show after the learner's answer."
    )


class PackSelfRatedSerializer(serializers.Serializer):
    reference_answer = serializers.CharField(allow_blank=True)
    reference_answer_html = serializers.CharField(allow_blank=True)
    rubric = serializers.ListField(child=serializers.CharField())
    expected_lines = serializers.ListField(child=serializers.CharField())
    explanation = serializers.CharField(allow_blank=True)
    explanation_html = serializers.CharField(allow_blank=True)


class PackItemSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="Upload the answer with this pack_item_id.")
    position = serializers.IntegerField()
    due = serializers.DateTimeField(help_text="When the card was due as the pack was issued.")
    question = ItemQuestionSerializer()
    options = ItemOptionSerializer(many=True, help_text="Choice questions: the options in this item's order.")
    numeric = NumericPromptSerializer(allow_null=True)
    code = CodePromptSerializer(allow_null=True, help_text="Code questions: the given code and the names to define.")
    variant_seed = serializers.IntegerField(allow_null=True, help_text="Numeric: the engine's seed of these numbers.")
    template_version = serializers.IntegerField(allow_null=True)
    key = PackKeySerializer(allow_null=True, help_text="Quiz items: the answer key (on purpose, see the operation).")
    self_rated = PackSelfRatedSerializer(allow_null=True, help_text="Prompts and recall cards: the reference.")
    answered = serializers.BooleanField(help_text="An answer to this item was uploaded (the first one counts).")


class PackSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    device = serializers.CharField(allow_blank=True)
    horizon_days = serializers.IntegerField()
    issued_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    upload_until = serializers.DateTimeField(
        help_text="Answers reviewed up to this moment (the expiry plus a grace period) are accepted."
    )
    revoked_at = serializers.DateTimeField(allow_null=True)
    status = serializers.CharField(help_text="active, revoked or expired (revoked and expired packs are not served).")
    item_count = serializers.IntegerField()
    answered_count = serializers.IntegerField()


class PackSerializer(PackSummarySerializer):
    server_time = serializers.DateTimeField(
        help_text=(
            "The server's clock when it sent this pack (also the response's Date header): the app's clock minus "
            "this, taken when the pack arrives, is how far off the phone's clock is. Not covered by the ETag."
        )
    )
    items = PackItemSerializer(many=True)


class PackListSerializer(serializers.Serializer):
    packs = PackSummarySerializer(many=True, help_text="Newest first.")


# --- engine ------------------------------------------------------------------------------------


class DemoMatrixSerializer(serializers.Serializer):
    d_k = serializers.IntegerField()
    causal = serializers.BooleanField()
    scaled = serializers.BooleanField()
    tokens = serializers.IntegerField()
    seed = serializers.IntegerField()
    weights = serializers.ListField(child=serializers.ListField(child=serializers.FloatField()))
    row_max = serializers.ListField(child=serializers.FloatField())
    mean_max_weight = serializers.FloatField()
    score_std = serializers.FloatField()


class VariantPreviewRequestSerializer(serializers.Serializer):
    template = StrictCharField(max_length=64)
    version = StrictIntegerField(
        min_value=1, max_value=32767, required=False, help_text="The template version; default: the newest."
    )
    seed = StrictIntegerField(min_value=0, max_value=2**31 - 1, default=0)
    params = serializers.DictField(required=False, default=dict, help_text="Template parameters.")


class PreviewChoiceSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    value = serializers.JSONField()
    label_zh = serializers.CharField()
    label_en = serializers.CharField()
    correct = serializers.BooleanField()
    misconception = MisconceptionSerializer(allow_null=True)


class VariantPreviewSerializer(serializers.Serializer):
    template = serializers.CharField()
    version = serializers.IntegerField()
    seed = serializers.IntegerField()
    params = serializers.DictField()
    prompt = serializers.CharField()
    prompt_html = serializers.CharField()
    given = GivenValueSerializer(many=True)
    answer = serializers.JSONField()
    answer_latex = serializers.CharField()
    answer_shape = serializers.ListField(child=serializers.IntegerField())
    answer_format = serializers.CharField(
        allow_blank=True, help_text='How to type the answer (shown to learners who type it); "" if the prompt says it.'
    )
    choices = PreviewChoiceSerializer(many=True)
    solution = SolutionStepSerializer(many=True)


# --- the next step -------------------------------------------------------------------------------


class NextStepSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(
        choices=NEXT_STEP_KINDS,
        help_text=(
            "review: reviews are due (GET /reviews/due/); attempt: continue attempt_id; lesson: study lesson_id "
            "(its text, then POST /attempts/ with lesson_id); prompt / recall: self-rate question_id "
            "(GET /questions/{id}/reference/, POST /reviews/rate/); wait: nothing to do until next_review_at "
            "(null: nothing is scheduled)."
        ),
    )
    due_count = serializers.IntegerField(help_text="Cards due today (non-zero only for kind=review).")
    lesson_id = serializers.IntegerField(allow_null=True)
    lesson_key = serializers.CharField(allow_null=True)
    lesson_title = serializers.CharField(allow_null=True)
    attempt_id = serializers.IntegerField(allow_null=True, help_text="kind=attempt: the open attempt.")
    question_id = serializers.IntegerField(
        allow_null=True, help_text="kind=prompt/recall: the question to rate; kind=lesson: its first unstudied one."
    )
    question_key = serializers.CharField(allow_null=True)
    next_review_at = serializers.DateTimeField(allow_null=True, help_text="kind=wait: when the next card falls due.")
