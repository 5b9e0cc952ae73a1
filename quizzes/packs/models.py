"""Review pack tables: a pack issued to one learner, and its items, each pinned to the question version it shows.

Why a pin: a pack item is answered offline days after it was downloaded, against what the pack
showed. The server grades the upload against the pinned version (``packed``: a QuestionVersion, the one
versioning mechanism attempts use too), ``option_order`` and ``packed_variant``,
never against the question as it is now (it may have been edited or unpublished meanwhile) and never
against pack data a client sends back. The copy is also what an Idempotency-Key replay re-renders.

A pack item locks on its first uploaded answer, as an attempt item does on its first click: the same
conditional ``UPDATE … WHERE answered_at IS NULL`` (``quizzes.packs.upload``).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from quizzes.content.models import Question, QuestionVersion
from quizzes.core.constraints import question_slots, set_together
from quizzes.packs.querysets import PackItemQuerySet, ReviewPackQuerySet
from quizzes.practice.models import LockedAnswer


class ReviewPack(models.Model):
    """The items a learner downloaded to review offline, with their answer keys (on purpose: issue 17)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="review_packs")
    device = models.CharField(
        _("device"), max_length=100, blank=True, help_text=_("For information only: the pack belongs to the learner.")
    )
    horizon_days = models.PositiveSmallIntegerField(_("days ahead"), help_text=_("Items due up to this many days on."))
    seed = models.BigIntegerField(_("seed"), help_text=_("Drives this pack's option orders and variant seeds."))
    issued_at = models.DateTimeField(_("issued at"))
    expires_at = models.DateTimeField(_("expires at"))
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True)

    objects = ReviewPackQuerySet.as_manager()

    class Meta:
        ordering = ("user", "-issued_at", "-id")
        verbose_name = _("review pack")
        verbose_name_plural = _("review packs")
        constraints = (
            models.CheckConstraint(condition=Q(expires_at__gt=models.F("issued_at")), name="review_pack_expires_after"),
            models.CheckConstraint(condition=Q(seed__gte=0), name="review_pack_seed_non_negative"),
        )
        indexes = (models.Index(fields=["user", "issued_at"], name="review_pack_user_issued"),)

    def __str__(self) -> str:
        return f"{self.user} · pack {self.pk} ({self.issued_at:%Y-%m-%d})"


class PackedVariant(models.Model):
    """One numeric variant as packs carry it (``Variant.to_dict()``: numbers, answer, choices, solution).

    A variant is a pure function of template, template version, seed and params, and every learner who
    draws that seed shows the same one, so it is stored once (``digest``: SHA-256 of its canonical JSON) and
    shared by reference, as question versions are: a 200-item pack wrote ≈ 100 KB of variants per pack
    before. Stored whole, never regenerated, so an engine or numpy upgrade never changes what a pack showed.
    """

    digest = models.CharField(_("digest"), max_length=64, unique=True)
    template = models.CharField(_("template"), max_length=64)
    template_version = models.PositiveSmallIntegerField(_("template version"))
    seed = models.BigIntegerField(_("seed"))
    variant = models.JSONField(_("numeric variant"))
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("packed variant")
        verbose_name_plural = _("packed variants")

    def __str__(self) -> str:
        return f"{self.template} v{self.template_version} seed {self.seed} @ {self.digest[:8]}"


class PackItem(LockedAnswer):
    """One question as a pack carries it, and the first answer uploaded for it.

    ``packed`` is the question's version as the pack showed it (:class:`~quizzes.content.models.QuestionVersion`);
    ``option_order`` the option ids in this item's order; ``packed_variant`` the numeric variant (shared,
    :class:`PackedVariant`), with its seed and template version beside it, as AttemptItem keeps them.
    """

    pack = models.ForeignKey(ReviewPack, on_delete=models.CASCADE, related_name="items")
    # CASCADE: a question is deleted only when no learner has history with it (content pruning); its pack
    # items go with it, and an upload naming one is rejected as unknown.
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="pack_items")
    position = models.PositiveSmallIntegerField(_("position"))
    # RESTRICT: a question version goes only with its question (which takes its items too); a shared variant
    # also once no item refers to it (quizzes.packs.pruning)
    packed = models.ForeignKey(
        QuestionVersion, on_delete=models.RESTRICT, related_name="pack_items", verbose_name=_("question version")
    )
    option_order = models.JSONField(_("option order"), default=list, blank=True, help_text=_("Option ids as shown."))
    packed_variant = models.ForeignKey(
        PackedVariant,
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="items",
        verbose_name=_("numeric variant"),
    )
    variant_seed = models.BigIntegerField(_("variant seed"), null=True, blank=True)
    template_version = models.PositiveSmallIntegerField(_("template version"), null=True, blank=True)
    due = models.DateTimeField(_("due when packed"))
    # the first uploaded answer (locks the item): LockedAnswer's fields, and the client's UUID of it
    client_uuid = models.UUIDField(_("client UUID"), null=True, blank=True)

    objects = PackItemQuerySet.as_manager()

    class Meta:
        ordering = ("pack", "position")
        verbose_name = _("pack item")
        verbose_name_plural = _("pack items")
        constraints = (
            *question_slots("pack", "pack_item"),
            set_together("pack_item_answer_all_or_nothing", "answered_at", "client_uuid"),
            set_together("pack_item_template_version_with_variant", "packed_variant", "template_version"),
        )

    def __str__(self) -> str:
        return f"pack {self.pack_id} · {self.position}: {self.question_id}"

    @property
    def variant(self) -> dict[str, Any] | None:
        """The numeric variant this item showed (its PackedVariant's copy), or None."""
        if self.packed_variant is None:
            return None
        variant = self.packed_variant.variant
        assert isinstance(variant, dict)
        return variant

    @property
    def snapshot(self) -> dict[str, Any]:
        """The question as this item showed it (its pinned version's snapshot)."""
        snapshot = self.packed.snapshot
        assert isinstance(snapshot, dict)
        return snapshot
