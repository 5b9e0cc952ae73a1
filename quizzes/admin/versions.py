"""Question versions in the admin (issue 27, item 2): the list, one version, a comparison, a revert, and the
stale-save check of the change form.

Every save of the change form records a version when the content changed (quizzes.content.versions, the one
mechanism the import, the generation jobs and the revert use too). The form carries the version it was loaded
at and a digest of everything it showed (hidden fields); a save based on an older version than the newest, or on
a lesson, order, publication or options changed since, is refused, naming who saved when, so two authors editing
one question never silently overwrite each other.
"""

from __future__ import annotations

import difflib
import functools
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from quizzes.content.models import ContentSource, Question, QuestionVersion
from quizzes.content.selectors import question_by_id, question_version, question_version_number, question_versions
from quizzes.content.versions import (
    question_edit_state,
    question_revert,
    version_check_fresh,
    version_lines,
    version_record_saved,
)


class VersionedFormMixin(forms.Form):
    """The question form's hidden ``loaded_version`` and ``loaded_state`` (content, options, lesson, order,
    publication), and the one check that neither changed since."""

    loaded_version = forms.IntegerField(required=False, min_value=0, widget=forms.HiddenInput)
    loaded_state = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        instance = getattr(self, "instance", None)
        if instance is not None and instance.pk and not self.is_bound:
            self.fields["loaded_version"].initial = question_version_number(question=instance)
            options = list(instance.options.all())
            self.fields["loaded_state"].initial = question_edit_state(question=instance, options=options)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        instance = getattr(self, "instance", None)
        if instance is not None and instance.pk:
            try:
                version_check_fresh(
                    question_id=instance.pk, loaded=cleaned.get("loaded_version"), state=cleaned.get("loaded_state")
                )
            except ValidationError as exc:
                raise ValidationError(exc.messages) from exc
        return cleaned


@functools.cache
def versioned_form(base: type[forms.ModelForm]) -> type[forms.ModelForm]:
    """``base`` with the hidden loaded version and the stale-save check."""
    return type(f"Versioned{base.__name__}", (VersionedFormMixin, base), {})


class CompareForm(forms.Form):
    a = forms.IntegerField(min_value=1)
    b = forms.IntegerField(min_value=1)


class VersionedQuestionAdmin(admin.ModelAdmin):
    """Mixed into QuestionAdmin: records a version on every save, and serves the version pages."""

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        kwargs.setdefault("form", versioned_form(self.form))
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        fieldsets = list(super().get_fieldsets(request, obj))
        return [*fieldsets, (gettext_lazy("Versions"), {"fields": ("versions_link", "loaded_version", "loaded_state")})]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return (*super().get_readonly_fields(request, obj), "versions_link")

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        """After the question and its options are saved: a new version if the content changed (the admin's)."""
        super().save_related(request, form, formsets, change)
        user = request.user
        version_record_saved(question_id=form.instance.pk, source=ContentSource.ADMIN, user=user)  # type: ignore[arg-type]

    @admin.display(description=gettext_lazy("versions"))
    def versions_link(self, obj: Question) -> str:
        if not obj.pk:
            return "—"
        url = reverse("admin:quizzes_question_versions", args=[obj.pk])
        return format_html('<a href="{}">{}</a>', url, _("Every saved version: view, compare, revert"))

    def get_urls(self) -> list[URLPattern]:
        def view(function: Any, suffix: str, name: str) -> URLPattern:
            return path(f"<path:object_id>/versions/{suffix}", self.admin_site.admin_view(function), name=name)

        return [
            view(self.versions_view, "", "quizzes_question_versions"),
            view(self.compare_view, "compare/", "quizzes_question_compare"),
            view(self.version_view, "<int:number>/", "quizzes_question_version"),
            view(require_POST(self.revert_view), "<int:number>/revert/", "quizzes_question_revert"),
            *super().get_urls(),
        ]

    def _question(self, request: HttpRequest, object_id: str, *, change: bool = False) -> Question:
        question = question_by_id(question_id=object_id) if object_id.isdigit() else None
        if question is None:
            raise Http404(_("No such question."))
        allowed = self.has_change_permission(request, question) if change else self.has_view_permission(request)
        if not allowed:
            raise PermissionDenied
        return question

    def _version(self, question: Question, number: int) -> QuestionVersion:
        version = question_version(question=question, number=number)
        if version is None:
            raise Http404(_("This question has no version %(number)d.") % {"number": number})
        return version

    def _render(self, request: HttpRequest, question: Question, template: str, **context: Any) -> HttpResponse:
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "original": question,
            "question": question,
            **context,
        }
        return TemplateResponse(request, f"admin/quizzes/question/{template}", context)

    def versions_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        question = self._question(request, object_id)
        versions = question_versions(question=question)
        return self._render(
            request,
            question,
            "versions.html",
            title=_("Versions of %(key)s") % {"key": question.key},
            versions=versions,
            newest=versions[0].number if versions else None,
            may_revert=self.has_change_permission(request, question),
        )

    def version_view(self, request: HttpRequest, object_id: str, number: int) -> HttpResponse:
        question = self._question(request, object_id)
        version = self._version(question, number)
        return self._render(
            request,
            question,
            "version.html",
            title=_("%(key)s, version %(number)d") % {"key": question.key, "number": number},
            version=version,
            lines=version_lines(version.snapshot),
        )

    def compare_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        question = self._question(request, object_id)
        form = CompareForm(request.GET)
        if not form.is_valid():
            return HttpResponseBadRequest(_("Name two version numbers to compare: ?a=1&b=2."))
        a, b = (self._version(question, form.cleaned_data[name]) for name in ("a", "b"))
        diff = difflib.unified_diff(
            version_lines(a.snapshot),
            version_lines(b.snapshot),
            fromfile=_("version %(number)d") % {"number": a.number},
            tofile=_("version %(number)d") % {"number": b.number},
            lineterm="",
        )
        kinds = {"+": "added", "-": "removed", "@": "hunk"}
        lines = [{"text": line, "kind": kinds.get(line[:1], "same")} for line in diff]
        return self._render(
            request,
            question,
            "compare.html",
            title=_("%(key)s: version %(a)d → %(b)d") % {"key": question.key, "a": a.number, "b": b.number},
            a=a,
            b=b,
            lines=lines,
        )

    def revert_view(self, request: HttpRequest, object_id: str, number: int) -> HttpResponse:
        question = self._question(request, object_id, change=True)
        version = self._version(question, number)
        try:
            new = question_revert(question=question, version=version, user=request.user)  # type: ignore[arg-type]
        except ValidationError as exc:
            messages.error(
                request,
                _("Version %(number)d cannot come back: %(problems)s")
                % {"number": number, "problems": " ".join(exc.messages)},
            )
            return redirect("admin:quizzes_question_versions", question.pk)
        if new.number == number:
            messages.info(request, _("Version %(number)d is already the current content.") % {"number": number})
        else:
            messages.success(
                request,
                _("Version %(old)d's content is back, as version %(new)d; learners' history still shows what they saw.")
                % {"old": number, "new": new.number},
            )
        return redirect("admin:quizzes_question_change", question.pk)
