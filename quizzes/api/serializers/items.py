"""An item as a learner sees and answers it, shared by attempts, review packs, the offline upload and the
engine's preview: the question, its numeric or code prompt, the response and the graded result."""

from __future__ import annotations

from rest_framework import serializers

from quizzes.api.fields import StrictCharField, StrictIntegerField
from quizzes.api.serializers.common import question_fields
from quizzes.content.code import MAX_CODE_CHARS
from quizzes.models import Question


def answer_fields(*, option: str, choice_index: str, value: str, code: str) -> tuple[serializers.Field, ...]:
    """option_id, choice_index, value, code: what an answer to an item may be, with the same limits online (the
    answer POST) and offline (a pack answer in the upload); the arguments are each field's help. Fresh fields,
    unpacked in place (DRF orders a serializer's fields by when each was made: see quizzes.api.serializers.reviews)."""
    return (
        StrictCharField(max_length=64, required=False, help_text=option),
        StrictIntegerField(min_value=0, max_value=100, required=False, help_text=choice_index),
        serializers.JSONField(required=False, help_text=value),
        StrictCharField(max_length=MAX_CODE_CHARS, required=False, trim_whitespace=False, help_text=code),
    )


class ItemQuestionSerializer(serializers.Serializer):
    id, key, kind = question_fields()
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


def answer_key_fields(*, option_help: str) -> tuple[serializers.Field, ...]:
    """correct_option_id, correct_choice_index, correct_value, correct_value_latex, answer_shape, solution: an item's
    answer, as a skipped item shows it on request and a review pack carries it. Fresh fields, unpacked in place (DRF
    orders a serializer's fields by when each was made: see quizzes.api.serializers.reviews)."""
    return (
        serializers.CharField(allow_null=True, help_text=option_help),
        serializers.IntegerField(allow_null=True, help_text="Numeric items, answer_form=choice."),
        serializers.JSONField(allow_null=True, help_text="Numeric items."),
        serializers.CharField(allow_null=True),
        serializers.ListField(child=serializers.IntegerField(), allow_null=True),
        SolutionStepSerializer(many=True, help_text="Numeric items: the worked solution."),
    )


class SkippedKeySerializer(serializers.Serializer):
    """The answer of an item left unanswered, shown on request after the attempt finished (recorded as Again)."""

    (correct_option_id, correct_choice_index, correct_value, correct_value_latex, answer_shape, solution) = (
        answer_key_fields(option_help="Choice items: the option id it shows.")
    )
    reference = serializers.CharField(allow_null=True, help_text="Code items: the reference solution.")
    explanation = serializers.CharField(allow_blank=True)
    explanation_html = serializers.CharField(allow_blank=True)
