"""A learner's report of a problem with a question, keyed to exactly what they saw."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models.functions import Length
from django.db.models.lookups import LessThanOrEqual
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from quizzes.content.models import Question
from quizzes.core.constraints import at_most_one_set, known_value
from quizzes.packs.models import PackItem
from quizzes.practice.models import AttemptItem
from quizzes.reports.querysets import ProblemReportQuerySet
from quizzes.reviews.models import ReviewCard

#: The longest report text (characters); the database refuses longer (a check constraint), as do the forms and API.
TEXT_MAX_LENGTH = 2000


class ProblemReport(models.Model):
    """What a learner found wrong with a question, and whether an author resolved it.

    Why a copy of what was shown (``prompt``, ``template_version``, ``variant_seed``) besides the link to the
    attempt item, pack item or card it came from: a numeric question's numbers are drawn per item, and the item
    may be pruned (packs) or the question edited before an author reads the report, so the report carries the
    exact question the learner saw. The text is plain: pages and the admin escape it, nothing renders it.
    """

    class Category(models.TextChoices):
        WRONG_ANSWER = "wrong_answer", _("The answer is wrong")
        UNCLEAR = "unclear", _("Unclear")
        TYPO = "typo", _("Typo")
        OTHER = "other", _("Other")

    class Origin(models.TextChoices):
        ITEM = "item", _("Quiz item")
        PACK_ITEM = "pack_item", _("Offline pack item")
        CARD = "card", _("Review card")

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="problem_reports")
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="problem_reports")
    origin = models.CharField(_("reported from"), max_length=10, choices=Origin.choices)
    # what the report came from; SET_NULL: a pruned pack item or an expired attempt leaves the report (and its copy)
    attempt_item = models.ForeignKey(
        AttemptItem, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", verbose_name=_("attempt item")
    )
    pack_item = models.ForeignKey(
        PackItem, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", verbose_name=_("pack item")
    )
    card = models.ForeignKey(
        ReviewCard, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", verbose_name=_("card")
    )
    prompt = models.TextField(_("prompt as shown"))
    template_version = models.PositiveSmallIntegerField(_("template version"), null=True, blank=True)
    variant_seed = models.BigIntegerField(_("variant seed"), null=True, blank=True)
    category = models.CharField(_("category"), max_length=16, choices=Category.choices)
    text = models.TextField(_("text"), max_length=TEXT_MAX_LENGTH, blank=True)
    created_at = models.DateTimeField(_("reported at"), default=timezone.now)
    resolved_at = models.DateTimeField(_("resolved at"), null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("resolved by"),
    )

    objects = ProblemReportQuerySet.as_manager()

    class Meta:
        ordering = ("-created_at", "-pk")
        verbose_name = _("problem report")
        verbose_name_plural = _("problem reports")
        indexes = (
            models.Index(fields=["question", "resolved_at"], name="report_question_open"),
            models.Index(fields=["user", "created_at"], name="report_user_created"),
        )
        constraints = (
            known_value("report_category_known", "category", ["wrong_answer", "unclear", "typo", "other"]),
            models.CheckConstraint(
                condition=LessThanOrEqual(Length("text"), TEXT_MAX_LENGTH), name="report_text_length"
            ),
            # at most one origin (all three may be gone: pruned, expired)
            at_most_one_set("report_one_origin", "attempt_item", "pack_item", "card"),
        )

    def __str__(self) -> str:
        return f"{self.question.key}: {self.get_category_display()}"

    @property
    def is_resolved(self) -> bool:
        return self.resolved_at is not None
