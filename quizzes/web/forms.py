"""Forms for the learner shell: sign-up, log-in, learner settings, the d_k demo controls."""

from __future__ import annotations

import zoneinfo
from functools import lru_cache
from typing import Any, ClassVar

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.http import QueryDict
from django.urls import reverse_lazy
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from quizzes.accounts.models import MAX_RETENTION, MIN_RETENTION, REMINDERS_OFF, ReminderChannel
from quizzes.accounts.selectors import email_taken, username_confusable
from quizzes.accounts.services import EMAIL_TAKEN_MESSAGE, USERNAME_CONFUSABLE_MESSAGE
from quizzes.content import attention_demo as demo
from quizzes.core.errors import ErrorCode


class LoginForm(AuthenticationForm):
    """Django's log-in form; kept as a hook for autocomplete hints."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["username"].widget.attrs.update({"autocomplete": "username", "autocapitalize": "none"})
        self.fields["password"].widget.attrs.update({"autocomplete": "current-password"})


class SignupForm(UserCreationForm):
    """Username, optional e-mail (only used for password resets), password twice."""

    email = forms.EmailField(
        label=_("E-mail (optional)"),
        required=False,
        help_text=_("Only used to reset a forgotten password."),
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["username"].widget.attrs.update({"autocomplete": "username", "autocapitalize": "none"})

    def clean_username(self) -> str:
        """Django's rules and uniqueness, and no username confusable with an existing one (quizzes.accounts.usernames:
        a Cyrillic "а" for a Latin "a", "0" for "O", another case); the skeleton's unique index is the final word."""
        username = super().clean_username()
        if username and username_confusable(username=username):
            raise forms.ValidationError(USERNAME_CONFUSABLE_MESSAGE, code=ErrorCode.USERNAME_CONFUSABLE)
        return username

    def clean_email(self) -> str:
        """One account per address (case-insensitive); the database's unique index is the final word."""
        email = self.cleaned_data.get("email") or ""
        if email and email_taken(email=email):
            raise forms.ValidationError(EMAIL_TAKEN_MESSAGE, code=ErrorCode.EMAIL_TAKEN)
        return email


@lru_cache(maxsize=1)
def _time_zone_choices() -> list[tuple[str, str]]:
    zones = sorted(z for z in zoneinfo.available_timezones() if "/" in z or z == "UTC")
    return [(z, z.replace("_", " ")) for z in zones]


class LearnerSettingsForm(forms.Form):
    """The learner's study preferences. Saved through ``learner_profile_update`` (which validates again)."""

    time_zone = forms.ChoiceField(
        label=_("Time zone"),
        choices=_time_zone_choices,
        help_text=_("Your study day and reminders follow this time zone."),
    )
    day_rollover_hour = forms.TypedChoiceField(
        label=_("New day starts at"),
        coerce=int,
        choices=[(h, f"{h:02d}:00") for h in range(24)],
        help_text=_("Reviews done before this hour count for the previous day (Anki's default is 04:00)."),
    )
    language = forms.ChoiceField(label=_("Language"), choices=settings.LANGUAGES)
    desired_retention = forms.FloatField(
        label=_("Desired retention"),
        min_value=MIN_RETENTION,
        max_value=MAX_RETENTION,
        step_size=0.01,
        # htmx: the workload panel below follows the value as it is typed (before anything is saved)
        widget=forms.NumberInput(
            attrs={
                "step": "0.01",
                "inputmode": "decimal",
                "hx-get": reverse_lazy("web:settings_workload"),
                "hx-target": "#workload",
                "hx-trigger": "input changed delay:300ms",
                "aria-controls": "workload",
            }
        ),
        help_text=_(
            "The chance you still remember an item when it comes due (0.70–0.97). Higher means more frequent reviews."
        ),
    )
    new_per_day = forms.IntegerField(
        label=_("New questions per day"),
        min_value=0,
        max_value=500,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )
    reminders = forms.ChoiceField(
        label=_("Remind me when reviews are due"),
        choices=[*ReminderChannel.choices, (REMINDERS_OFF, _("No reminders"))],
        widget=forms.RadioSelect,
        help_text=_("At most one reminder a day. A push goes to the phones and browsers you are signed in on."),
    )


class RetentionPreviewForm(forms.Form):
    """A desired retention to preview (the settings page's workload panel): the settings form's own field."""

    desired_retention = LearnerSettingsForm.base_fields["desired_retention"]


_D_K_RANGE = format_lazy(_("d_k must be from {low} to {high}."), low=demo.MIN_D_K, high=demo.MAX_D_K)


class DemoForm(forms.Form):
    """The d_k slider and the two toggles. A submitted form always carries ``demo=1``, so an
    unchecked box means "off" rather than "use the default"."""

    d_k = forms.IntegerField(
        label=_("d_k (dimensions of Q and K)"),
        min_value=demo.MIN_D_K,
        max_value=demo.MAX_D_K,
        error_messages={
            "min_value": _D_K_RANGE,
            "max_value": _D_K_RANGE,
            "invalid": _("d_k must be a whole number."),
            "required": _("d_k must be a whole number."),
        },
    )
    scaled = forms.BooleanField(label=_("Divide by √d_k (scaled)"), required=False)
    causal = forms.BooleanField(label=_("Causal mask"), required=False)

    DEFAULTS: ClassVar[dict] = {"d_k": 16, "scaled": False, "causal": False}

    @classmethod
    def from_query(cls, query: QueryDict) -> DemoForm:
        """Bound to the query string when the demo form was submitted, else to the defaults."""
        if "demo" in query or "d_k" in query:
            return cls(query)
        return cls(cls.DEFAULTS)


class AccountDeleteForm(forms.Form):
    """The password asked again, and a box that says what deleting means (``account_delete`` checks the password)."""

    password = forms.CharField(
        label=_("Your password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )
    confirm = forms.BooleanField(
        label=_("I understand: my account, progress and review history are deleted for good, now."),
        error_messages={"required": _("Tick the box to confirm.")},
    )
