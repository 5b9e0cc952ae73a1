"""The data export's JSON document, described for openapi.yaml (``ExportDocument``).

The document is built by ``quizzes.privacy.document`` (one builder for the inline answer and the job's file);
these serializers only *describe* it — the API returns the builder's dict as it is, and a test checks that
serializing a real document through them changes nothing (tests/quizzes/privacy/test_export_api.py).
"""

from __future__ import annotations

from rest_framework import serializers

from quizzes.api.serializers.packs import pack_issue_fields
from quizzes.api.serializers.reviews import card_memory_fields
from quizzes.reports.models import ProblemReport

ANY_JSON = serializers.JSONField
#: A moment, as the document writes every one: ISO 8601 text, UTC.
ISO_TIME = serializers.CharField


class ExportSettingsSerializer(serializers.Serializer):
    time_zone = serializers.CharField()
    day_rollover_hour = serializers.IntegerField()
    desired_retention = serializers.FloatField()
    new_per_day = serializers.IntegerField()
    reviews_per_day = serializers.IntegerField()
    reminder_opt_in = serializers.BooleanField()
    reminder_channel = serializers.CharField(help_text="push or email (used while reminder_opt_in is true).")
    reminder_hour = serializers.IntegerField()


class ExportProfileSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    email = serializers.CharField(allow_blank=True)
    date_joined = ISO_TIME(help_text="ISO 8601, UTC.")
    last_login = ISO_TIME(allow_null=True)
    settings = ExportSettingsSerializer()
    last_reminded_on = serializers.CharField(allow_null=True, help_text="YYYY-MM-DD, the learner's local day.")
    fsrs_parameters = serializers.ListField(
        child=serializers.FloatField(),
        allow_null=True,
        help_text="The FSRS-6 parameters fitted to your own reviews, or null while the defaults schedule you.",
    )


class ExportDeviceSerializer(serializers.Serializer):
    device_name = serializers.CharField(allow_blank=True)
    created = ISO_TIME()
    expiry = ISO_TIME(allow_null=True)


class ExportReminderSerializer(serializers.Serializer):
    local_date = serializers.CharField()
    due_count = serializers.IntegerField()
    sent_at = ISO_TIME(allow_null=True)


class ExportQuestionSerializer(serializers.Serializer):
    key = serializers.CharField()
    kind = serializers.CharField()
    lesson = serializers.CharField(help_text="The lesson's key.")
    prompt = serializers.CharField(help_text="Markdown with LaTeX, as authored.")


class ExportCardSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    question = ExportQuestionSerializer()
    state = serializers.ChoiceField(choices=["learning", "review", "relearning"])
    due = ISO_TIME()
    last_review = ISO_TIME(allow_null=True)
    stability, difficulty, reps, lapses, suspended, is_leech = card_memory_fields()
    created_at = ISO_TIME()
    fsrs = ANY_JSON(help_text="The FSRS-6 card state (py-fsrs ``Card.to_dict()``), the scheduler's source of truth.")


class ExportReviewLogSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    card_id = serializers.IntegerField()
    question_key = serializers.CharField()
    rating = serializers.IntegerField(help_text="1 Again, 2 Hard, 3 Good, 4 Easy.")
    reviewed_at = ISO_TIME()
    duration_ms = serializers.IntegerField(allow_null=True)
    # a declared field named like DRF's Field.source attribute: the serializer's metaclass takes it as a field
    source = serializers.ChoiceField(choices=["web", "api", "offline"])  # type: ignore[assignment]
    role = serializers.ChoiceField(choices=["first", "review", "repeat"])
    client_uuid = serializers.CharField(allow_null=True)
    client_graded = serializers.BooleanField()
    attempt_item_id = serializers.IntegerField(allow_null=True)


class ExportOptionSerializer(serializers.Serializer):
    key = serializers.CharField()
    text = serializers.CharField()


class ExportAttemptItemSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    position = serializers.IntegerField()
    question_key = serializers.CharField()
    question_kind = serializers.CharField()
    prompt = serializers.CharField(help_text="What the item showed (a numeric item: its variant's prompt).")
    given = ANY_JSON(allow_null=True, help_text="A numeric item's given values; null otherwise.")
    options = ExportOptionSerializer(many=True, help_text="A choice item's options in the order shown.")
    answered_at = ISO_TIME(allow_null=True)
    chosen_option = serializers.CharField(allow_null=True, help_text="The chosen option's key.")
    response = ANY_JSON(allow_null=True, help_text="The answer as given (a value, text or code); null if unanswered.")
    is_correct = serializers.BooleanField(allow_null=True)
    score = serializers.FloatField(allow_null=True)
    result = ANY_JSON(allow_null=True, help_text="What the lock revealed (grading, feedback, explanation).")


class ExportAttemptSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    lesson = serializers.CharField(help_text="The lesson's key.")
    number = serializers.IntegerField()
    mode = serializers.ChoiceField(choices=["study", "review", "missed"])
    started_at = ISO_TIME()
    finished_at = ISO_TIME(allow_null=True)
    score = serializers.FloatField(allow_null=True)
    items = ExportAttemptItemSerializer(many=True)


class ExportPackItemSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    question_key = serializers.CharField()
    due = ISO_TIME()
    answered_at = ISO_TIME(allow_null=True)
    response = ANY_JSON(allow_null=True)
    is_correct = serializers.BooleanField(allow_null=True)
    result = ANY_JSON(allow_null=True)
    client_uuid = serializers.CharField(allow_null=True)


class ExportPackSerializer(serializers.Serializer):
    id, device, horizon_days, issued_at, expires_at = pack_issue_fields(ISO_TIME)
    revoked_at = ISO_TIME(allow_null=True)
    items = ExportPackItemSerializer(many=True)


class ExportReportSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    question_key = serializers.CharField()
    origin = serializers.ChoiceField(choices=ProblemReport.Origin.choices)
    attempt_item_id = serializers.IntegerField(allow_null=True)
    pack_item_id = serializers.IntegerField(allow_null=True)
    card_id = serializers.IntegerField(allow_null=True)
    prompt = serializers.CharField(help_text="The question as you saw it.")
    template_version = serializers.IntegerField(allow_null=True)
    variant_seed = serializers.IntegerField(allow_null=True)
    category = serializers.ChoiceField(choices=ProblemReport.Category.choices)
    text = serializers.CharField(allow_blank=True)
    created_at = ISO_TIME()
    resolved_at = ISO_TIME(allow_null=True, help_text="When an author resolved it; null while open.")


class ExportDocumentSerializer(serializers.Serializer):
    format = serializers.ChoiceField(choices=["quizsite-export"])
    version = serializers.IntegerField(help_text="1; a key that changes meaning or goes away bumps it.")
    exported_at = ISO_TIME(help_text="ISO 8601, UTC (every time in the document is).")
    profile = ExportProfileSerializer()
    devices = ExportDeviceSerializer(many=True, help_text="Signed-in API devices (never a token).")
    reminders = ExportReminderSerializer(many=True)
    cards = ExportCardSerializer(many=True)
    review_logs = ExportReviewLogSerializer(many=True, help_text="Every rating, oldest first.")
    attempts = ExportAttemptSerializer(many=True)
    packs = ExportPackSerializer(many=True)
    reports = ExportReportSerializer(many=True, help_text="Your problem reports about questions, oldest first.")
