"""Notification tables: the review reminders sent, one per learner per local study day."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class ReminderDelivery(models.Model):
    """One review reminder per learner per local day; the unique constraint is what makes it once."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reminder_deliveries")
    local_date = models.DateField(_("local date"))
    due_count = models.PositiveIntegerField(_("items due"), default=0)
    sent_at = models.DateTimeField(_("sent at"), null=True, blank=True)
    channel = models.CharField(_("sent by"), max_length=8, blank=True, help_text=_("push or email; empty until sent."))
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("reminder delivery")
        verbose_name_plural = _("reminder deliveries")
        constraints = (models.UniqueConstraint(fields=["user", "local_date"], name="reminder_once_per_user_local_day"),)

    def __str__(self) -> str:
        return f"{self.user_id} {self.local_date}"
