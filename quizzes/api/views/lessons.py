"""Lessons for caching clients (ETag / If-None-Match → 304): their questions without correctness data, their
teaching sections as the lesson page shows them (quizzes.content.teaching), and a checkpoint's answer.

A checkpoint is answered with the lesson page's own rules: the learner's own option handles, the first answer
locks per learner (``checkpoint_answer_record``, the web's service: the same ``CheckpointAnswer`` row, so the
web and the app share one lock), nothing about correctness before it, and no card or review log ever.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from quizzes.api import representations as r
from quizzes.api.errors import ApiError
from quizzes.api.fields import StrictCharField
from quizzes.api.idempotency import IDEMPOTENCY_KEY_PARAMETER, idempotent
from quizzes.api.locking import answer_locked, locked_response
from quizzes.api.schema import errors
from quizzes.api.serializers.common import lesson_fields, question_fields
from quizzes.api.types import LearnerApiRequest
from quizzes.api.views.common import IF_NONE_MATCH_PARAMETER, NOT_MODIFIED, etag_response, found, validated_body
from quizzes.content.models import Question
from quizzes.content.selectors import lesson_list_published, lesson_published_by_id, lesson_with_content
from quizzes.content.teaching import FIGURE_NAMES, checkpoint_answer, checkpoint_owner, checkpoint_section
from quizzes.core.errors import DomainError, ErrorCode
from quizzes.practice.services import checkpoint_answer_record

TAG = ["lessons"]
#: The choice sets the figures' schema shares (named once in SPECTACULAR_SETTINGS' ENUM_NAME_OVERRIDES).
AXIS_SCALES = ["linear", "log"]
HEATMAP_SCALES = ["weights", "signed"]


# --- the shapes these views nest ----------------------------------------------------------------------------


class LessonOptionSerializer(serializers.Serializer):
    text = serializers.CharField()
    text_html = serializers.CharField()


class LessonQuestionSerializer(serializers.Serializer):
    id, key, kind = question_fields()
    order = serializers.IntegerField()
    prompt = serializers.CharField(help_text="Markdown with LaTeX in $…$ / $$…$$.")
    prompt_html = serializers.CharField(help_text="The prompt as safe HTML with MathML.")
    answer_form = serializers.ChoiceField(choices=Question.AnswerForm.choices, allow_null=True)
    template = serializers.CharField(allow_null=True)
    options = LessonOptionSerializer(many=True, help_text="Choice questions: the options, in no meaningful order.")
    line_count = serializers.IntegerField(allow_null=True, help_text="Recall cards: how many lines to write.")


class LessonSummarySerializer(serializers.Serializer):
    id, key, title = lesson_fields()
    summary = serializers.CharField(allow_blank=True)
    order = serializers.IntegerField()
    question_count = serializers.IntegerField()


class FigureHeatmapSerializer(serializers.Serializer):
    weights = serializers.ListField(
        child=serializers.ListField(child=serializers.FloatField()), help_text="(rows, columns) attention weights."
    )
    masked = serializers.ListField(
        child=serializers.ListField(child=serializers.BooleanField()),
        help_text="The same shape: true where a cell is masked (drawn grey and dashed, its weight shown as 0).",
    )
    row_labels = serializers.ListField(child=serializers.CharField(), help_text='One per row ("q1", …).')
    col_labels = serializers.ListField(child=serializers.CharField(), help_text='One per column ("k1", …).')
    highlight_row = serializers.IntegerField(
        allow_null=True, help_text="The outlined row (0-based): the one a question asks about; null for none."
    )
    scale = serializers.ChoiceField(
        choices=HEATMAP_SCALES,
        help_text="weights: 0 to 1, light to dark blue (attention weights); signed: −1 orange, 0 light, +1 blue "
        "(a sinusoid table).",
    )
    corner = serializers.CharField(allow_blank=True, help_text='What the rows are ("pos"), above their labels; or "".')


class ShapeStepSerializer(serializers.Serializer):
    step = serializers.CharField(allow_blank=True, help_text='The step ("Project", …); empty for the input X.')
    tensor = serializers.CharField(help_text='The tensor it makes ("Q, K", "W = softmax(S)", …).')
    shape = serializers.ListField(child=serializers.IntegerField(), help_text="(rows, columns).")


class MaskSampleSerializer(serializers.Serializer):
    title = serializers.CharField(help_text="The sample: its length and how much padding precedes it.")
    cells = serializers.ListField(
        child=serializers.ListField(child=serializers.ChoiceField(choices=["visible", "causal", "padding", "both"])),
        help_text="(T, T), query rows by key columns: what blocks each cell (the future, padding, both) or visible.",
    )
    hidden_rows = serializers.ListField(
        child=serializers.IntegerField(), help_text="The rows (0-based) with no visible key: drawn outlined."
    )


class FigureMaskSerializer(serializers.Serializer):
    row_labels = serializers.ListField(child=serializers.CharField(), help_text='One per query row ("q1", …).')
    col_labels = serializers.ListField(child=serializers.CharField(), help_text='One per key column ("k1", …).')
    samples = MaskSampleSerializer(many=True, help_text="One grid per sample of the batch, top to bottom.")


class PlotTickSerializer(serializers.Serializer):
    value = serializers.FloatField(help_text="Where on the axis.")
    text = serializers.CharField(help_text="What the tick reads.")


class PlotSeriesSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="Its legend entry.")
    style = serializers.ChoiceField(choices=["dots", "line"], help_text="Points drawn as dots or joined by a line.")  # type: ignore[assignment]  # a field named style
    points = serializers.ListField(
        child=serializers.ListField(child=serializers.FloatField()), help_text="(x, y) pairs in the axes' units."
    )


class PlotGuideSerializer(serializers.Serializer):
    axis = serializers.ChoiceField(choices=["y"], help_text="A dashed line across the plot at this y.")
    value = serializers.FloatField()
    text = serializers.CharField(help_text="Its label (a threshold).")


class PlotMarkSerializer(serializers.Serializer):
    x = serializers.FloatField()
    y = serializers.FloatField()
    text = serializers.CharField(help_text='What the marked point is ("4d", a value).')
    side = serializers.ChoiceField(
        choices=["above-left", "above-right", "below-left", "below-right"], help_text="Where its text sits."
    )


class FigurePlotSerializer(serializers.Serializer):
    x_label = serializers.CharField()
    y_label = serializers.CharField()
    x_scale = serializers.ChoiceField(choices=AXIS_SCALES)
    y_scale = serializers.ChoiceField(choices=AXIS_SCALES)
    x_range = serializers.ListField(child=serializers.FloatField(), help_text="(low, high) of the x axis.")
    y_range = serializers.ListField(child=serializers.FloatField(), help_text="(low, high) of the y axis.")
    x_ticks = PlotTickSerializer(many=True)
    y_ticks = PlotTickSerializer(many=True)
    series = PlotSeriesSerializer(many=True, help_text="The curves or point sets, in legend order.")
    guides = PlotGuideSerializer(many=True, help_text="Labelled reference lines (thresholds).")
    marks = PlotMarkSerializer(many=True, help_text="Labelled points (crossovers, the first and last value).")


class BarSerializer(serializers.Serializer):
    label = serializers.CharField(help_text='What the bar is ("MHA (40)").')  # type: ignore[assignment]  # a field named label
    value = serializers.FloatField(help_text="Its length in the axis' unit (bytes).")
    text = serializers.CharField(help_text='The number written after it ("4 KiB").')


class BarGroupSerializer(serializers.Serializer):
    title = serializers.CharField(help_text="The configuration the group's bars share.")
    bars = BarSerializer(many=True)


class FigureBarsSerializer(serializers.Serializer):
    axis_label = serializers.CharField()
    scale = serializers.ChoiceField(choices=AXIS_SCALES)
    groups = BarGroupSerializer(many=True, help_text="Groups of horizontal bars, top to bottom, on one shared axis.")


class BlockTableEntrySerializer(serializers.Serializer):
    logical = serializers.IntegerField(help_text="The sequence's logical block (0-based, filled in order).")
    physical = serializers.IntegerField(help_text="The physical block it is stored in.")
    filled = serializers.IntegerField(help_text="How many of its slots hold a token.")


class PagedSequenceSerializer(serializers.Serializer):
    name = serializers.CharField(help_text='"A", "B".')
    title = serializers.CharField(help_text="Its tokens, blocks and empty slots in words.")
    tokens = serializers.IntegerField()
    table = BlockTableEntrySerializer(many=True, help_text="Its block table.")


class PhysicalBlockSerializer(serializers.Serializer):
    block = serializers.IntegerField()
    owner = serializers.CharField(allow_null=True, help_text="The sequence it belongs to; null when free.")
    logical = serializers.IntegerField(allow_null=True, help_text="Which of the owner's logical blocks it is.")
    tokens = serializers.ListField(
        child=serializers.IntegerField(), help_text="The owner's token numbers in it (1-based)."
    )


class FigurePagedSerializer(serializers.Serializer):
    block_size = serializers.IntegerField(help_text="Tokens per block.")
    sequences = PagedSequenceSerializer(many=True)
    physical = PhysicalBlockSerializer(many=True, help_text="Every physical block in memory order.")


class ShareRowSerializer(serializers.Serializer):
    label = serializers.CharField(help_text='The model ("gpt2").')  # type: ignore[assignment]  # a field named label
    title = serializers.CharField(help_text="Its total and the first part's share, in words.")
    total = serializers.IntegerField(help_text="The whole (parameters).")
    values = serializers.ListField(child=serializers.IntegerField(), help_text="One per part, summing to the total.")


class FigureSharesSerializer(serializers.Serializer):
    parts = serializers.ListField(child=serializers.CharField(), help_text="The parts' names, in bar order.")
    rows = ShareRowSerializer(many=True, help_text="One 100 % bar per row, top to bottom.")


class FigureSerializer(serializers.Serializer):
    name = serializers.ChoiceField(choices=list(FIGURE_NAMES), help_text="The picture the section names.")
    kind = serializers.ChoiceField(
        choices=["heatmap", "shapes", "mask", "plot", "bars", "paged", "shares", "demo"],
        help_text="heatmap: `heatmap` is set; shapes: `steps` is set; mask: `mask` is set; plot: `plot` is set (points "
        "or lines on linear or log axes); bars: `bars` is set (horizontal bars); paged: `paged` is set (block "
        "tables); shares: `shares` is set (100 % bars split into parts); demo: the live d_k demo at `demo_path`.",
    )
    label = serializers.CharField(allow_null=True, help_text="Its one-sentence summary (the SVG's title).")  # type: ignore[assignment]  # a field named label
    svg = serializers.CharField(
        allow_null=True, help_text="The SVG the lesson page draws (role=img, title and desc stating every number)."
    )
    heatmap = FigureHeatmapSerializer(allow_null=True)
    steps = ShapeStepSerializer(many=True, allow_null=True, help_text="The five steps' tensors top to bottom.")
    mask = FigureMaskSerializer(allow_null=True, help_text="A combined attention mask, per sample of a batch.")
    plot = FigurePlotSerializer(allow_null=True, help_text="A chart of points or lines (lessons 4 and 6).")
    bars = FigureBarsSerializer(allow_null=True, help_text="Horizontal bars in groups (lesson 7's KV-cache sizes).")
    paged = FigurePagedSerializer(allow_null=True, help_text="PagedAttention's block tables and physical blocks.")
    shares = FigureSharesSerializer(allow_null=True, help_text="Wholes split into parts (lesson 6's parameters).")
    demo_path = serializers.CharField(
        allow_null=True, help_text="The demo's endpoint (GET, with d_k, causal, scaled): lesson 1's d_k demo."
    )


class CheckpointOptionSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="Your own handle for this option: send it as option_id to answer.")
    number = serializers.IntegerField(help_text="Its position as shown (a new random order per learner).")
    text = serializers.CharField(help_text="Markdown with LaTeX in $…$.")
    text_html = serializers.CharField()
    label = serializers.CharField(help_text="The text as plain text (an accessible name for the button).")  # type: ignore[assignment]


class CheckpointResultOptionSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    text = serializers.CharField()
    text_html = serializers.CharField()
    correct = serializers.BooleanField()
    chosen = serializers.BooleanField(help_text="The option you answered first.")
    feedback = serializers.CharField(allow_blank=True)
    feedback_html = serializers.CharField(allow_blank=True)


class CheckpointResultSerializer(serializers.Serializer):
    answered_correctly = serializers.BooleanField()
    feedback = serializers.CharField(allow_blank=True, help_text="The feedback of the option you chose.")
    feedback_html = serializers.CharField(allow_blank=True)
    explanation = serializers.CharField()
    explanation_html = serializers.CharField()
    options = CheckpointResultOptionSerializer(many=True, help_text="In authoring order, marked.")


class CheckpointSerializer(serializers.Serializer):
    section = serializers.CharField(help_text="The section's key: /lessons/{id}/checkpoints/{section_key}/answer/.")
    prompt = serializers.CharField()
    prompt_html = serializers.CharField()
    locked = serializers.BooleanField(help_text="Answered: the first answer stands.")
    options = CheckpointOptionSerializer(many=True, help_text="Before the answer; empty once locked.")
    result = CheckpointResultSerializer(allow_null=True, help_text="null until the first answer.")


class SectionSerializer(serializers.Serializer):
    key = serializers.CharField()
    title = serializers.CharField()
    body = serializers.CharField(help_text="Markdown with LaTeX in $…$ / $$…$$.")
    body_html = serializers.CharField(help_text="The body as safe HTML with MathML (as the lesson page shows it).")
    figure = FigureSerializer(allow_null=True)
    checkpoint = CheckpointSerializer(allow_null=True)


# --- views -----------------------------------------------------------------------------------------------------


class LessonListView(APIView):
    class OutputSerializer(serializers.Serializer):
        lessons = LessonSummarySerializer(many=True)

        class Meta:
            ref_name = "LessonList"

    @extend_schema(
        tags=TAG,
        operation_id="lessons_list",
        summary="Published lessons in order",
        parameters=[IF_NONE_MATCH_PARAMETER],
        responses={200: OutputSerializer, 304: NOT_MODIFIED, **errors(401)},
    )
    def get(self, request: Request) -> Response:
        lessons = [r.lesson_summary(lesson) for lesson in lesson_list_published()]
        return etag_response(request, self.OutputSerializer({"lessons": lessons}).data)


class LessonDetailView(APIView):
    class OutputSerializer(LessonSummarySerializer):
        questions = LessonQuestionSerializer(many=True)
        sections = SectionSerializer(many=True, help_text="The teaching text, read before the quiz.")

        class Meta:
            ref_name = "LessonDetail"

    @extend_schema(
        tags=TAG,
        operation_id="lessons_read",
        summary="A lesson: its teaching sections (figures, checkpoints) and its published questions (no answers)",
        description=(
            "The sections are the lesson page's: Markdown and its HTML with MathML, each figure as data and as "
            "SVG, and each checkpoint as you see it now: before your first answer its options with your own ids "
            "and nothing about correctness (`result` null); after it the marks, feedback and explanation. The "
            "questions carry no answers, explanations or feedback. The ETag changes when you answer a checkpoint."
        ),
        parameters=[IF_NONE_MATCH_PARAMETER],
        responses={200: OutputSerializer, 304: NOT_MODIFIED, **errors(401, 404)},
    )
    def get(self, request: LearnerApiRequest, lesson_id: int) -> Response:
        lesson = found(lesson_with_content(lesson_id=lesson_id))
        return etag_response(request, self.OutputSerializer(r.lesson_detail(lesson, user=request.user)).data)


class CheckpointAnswerView(APIView):
    class InputSerializer(serializers.Serializer):
        option_id = StrictCharField(max_length=64, help_text="One of the checkpoint's option ids (your own handles).")

        class Meta:
            ref_name = "CheckpointAnswer"

    class OutputSerializer(serializers.Serializer):
        checkpoint = CheckpointSerializer()

        class Meta:
            ref_name = "CheckpointAnswerResult"

    @extend_schema(
        tags=TAG,
        operation_id="lessons_checkpoint_answer",
        summary="Answer a lesson's checkpoint: the first answer locks it",
        description=(
            "Send one of the checkpoint's option ids (`sections[].checkpoint.options[].id`, your own). The first "
            "answer locks, per learner (the lesson page shows the same one), and the response reveals the result. "
            "The same answer again returns the same result; a different one is refused with 409 and the locked "
            "checkpoint. An id that is not one of this checkpoint's options for you is a 400 (`foreign_option`, "
            "on `option_id`); a section without a checkpoint (or another lesson's) is a 404. Checkpoints are "
            "self-checks: no card, no review, never part of the schedule."
        ),
        parameters=[IDEMPOTENCY_KEY_PARAMETER],
        request=InputSerializer,
        responses={
            200: OutputSerializer,
            409: locked_response(
                "CheckpointConflict",
                checkpoint=CheckpointSerializer(help_text="The locked checkpoint: your first answer stands."),
            ),
            **errors(400, 401, 404, 422),
        },
    )
    @idempotent
    def post(self, request: LearnerApiRequest, lesson_id: int, section_key: str) -> Response:
        lesson = found(lesson_published_by_id(lesson_id=lesson_id))
        handle = validated_body(self.InputSerializer, request)["option_id"]
        owner = checkpoint_owner(user_id=request.user.pk)
        where = {"lesson_key": lesson.key, "sections": lesson.teaching, "section_key": section_key}
        try:
            answered = checkpoint_answer(owner=owner, handle=handle, **where)
            chosen = checkpoint_answer_record(user=request.user, lesson=lesson, section_key=section_key, handle=handle)
        except DomainError as exc:
            if exc.error_code == ErrorCode.NOT_FOUND:
                raise ApiError(status_code=404, code=ErrorCode.NOT_FOUND, message=exc.messages[0]) from exc
            raise ApiError(
                status_code=400, code=exc.error_code, message=exc.messages[0], fields={"option_id": exc.messages}
            ) from exc
        shown = r.checkpoint_public(checkpoint_section(owner=owner, chosen=chosen, **where))
        data = self.OutputSerializer({"checkpoint": shown}).data
        if chosen != answered:
            raise answer_locked(
                _("This checkpoint is already answered with a different answer; the first answer counts."),
                checkpoint=data["checkpoint"],
            )
        return Response(data)
