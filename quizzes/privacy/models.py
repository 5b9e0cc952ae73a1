"""Data export jobs: one learner's export, its progress and its files (kept through Django's storage API)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from quizzes.core.constraints import done_within_total, known_value
from quizzes.privacy.querysets import DataExportQuerySet

#: The statuses of a job that is still to finish: at most one per learner (the database's word).
ACTIVE_STATUSES = ("pending", "running")


class DataExport(models.Model):
    """A learner's data export: the JSON document and an Anki deck of their cards, written by a Celery job.

    Asked for twice at once, there is still one job: the partial unique constraint below allows one pending or
    running export per learner, and a second request gets the first one back (``data_export_request``). Its
    files live in ``default_storage`` under a random directory and are deleted when the links expire
    (``expires_at``: housekeeping) or when the account is deleted.
    """

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting")
        RUNNING = "running", _("Running")
        READY = "ready", _("Ready")
        FAILED = "failed", _("Failed")

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="data_exports")
    status = models.CharField(_("status"), max_length=8, choices=Status.choices, default=Status.PENDING)
    done = models.PositiveIntegerField(_("rows written"), default=0)
    total = models.PositiveIntegerField(_("rows to write"), default=0)
    created_at = models.DateTimeField(_("asked for at"), default=timezone.now)
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    expires_at = models.DateTimeField(_("links expire at"), null=True, blank=True)
    json_file = models.FileField(_("JSON file"), max_length=255, blank=True)
    apkg_file = models.FileField(_("Anki deck"), max_length=255, blank=True)
    error = models.CharField(_("why it failed"), max_length=200, blank=True)

    objects = DataExportQuerySet.as_manager()

    class Meta:
        ordering = ("-created_at", "-id")
        verbose_name = _("data export")
        verbose_name_plural = _("data exports")
        constraints = (
            models.UniqueConstraint(
                fields=["user"], condition=Q(status__in=ACTIVE_STATUSES), name="data_export_one_active_per_user"
            ),
            known_value("data_export_status_known", "status", ["pending", "running", "ready", "failed"]),
            done_within_total("data_export_done_le_total"),
            models.CheckConstraint(
                condition=Q(status="ready", expires_at__isnull=False) | ~Q(status="ready"),
                name="data_export_ready_expires",
            ),
        )
        indexes = (
            models.Index(fields=["user", "created_at"], name="data_export_user_created"),
            models.Index(fields=["expires_at"], name="data_export_expires"),
        )

    def __str__(self) -> str:
        return f"{self.user_id} · export {self.pk} ({self.status})"

    @property
    def files(self) -> dict[str, str]:
        """The stored files' names by kind ("json", "apkg"), those that exist."""
        return {kind: str(field.name) for kind, field in (("json", self.json_file), ("apkg", self.apkg_file)) if field}
