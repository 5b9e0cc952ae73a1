"""Provenance in the admin: where a lesson or question came from, and what the next import does with an edit.

``load_lessons`` manages only the rows the files own (quizzes.content.ownership); an author editing one
here must know that the next import stops on the edit until someone decides, and that rows made here
or by a generation job are never touched by an import.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from quizzes.content.generation import generated_questions_remove
from quizzes.content.models import ContentSource, Lesson, Question
from quizzes.content.ownership import edited_since_import
from quizzes.content.selectors import lesson_file_questions


def provenance_notice(obj: Lesson | Question) -> str:
    """One paragraph for the change page: the row's source and the import's rule for it."""
    if obj.pk is None:
        return _("Made in the admin: load_lessons never changes, unpublishes or deletes it.")
    if obj.source == ContentSource.FILE:
        text = _(
            "From the lesson files (fixtures/lessons). An edit saved here stays until the next load_lessons, "
            "which then stops with a conflict naming this row, the field and both texts: run it with "
            "--keep-admin to keep your text or --take-files to restore the file's (make run reports the "
            "conflict and serves as is). To make a change permanent, make it in the file too."
        )
        edited = edited_since_import(obj)
        if edited:
            text = " ".join([text, _("Edited here since the last import: %(fields)s.") % {"fields": ", ".join(edited)}])
        return text
    if obj.source == ContentSource.JOB and isinstance(obj, Question) and obj.generated_from_id:
        return _(
            "Made by a generation job from %(source)s (seed %(seed)s): load_lessons never changes, unpublishes "
            "or deletes it."
        ) % {"source": obj.generated_from, "seed": obj.fixed_seed}
    return _("Made in the admin: load_lessons never changes, unpublishes or deletes it.")


def file_rows_in(objs: Iterable[Lesson | Question]) -> list[str]:
    """The rows among ``objs`` (and a lesson's questions) that the files own, each with why it is not deleted here.

    A deletion is the one admin edit the next import could not see (the row that records what the import wrote
    is gone): it would create the row again from the file, silently. Unpublishing is the same intent, and an
    edit the import does see (a conflict, until someone decides).
    """
    refused = []
    for obj in objs:
        rows = [obj] if obj.source == ContentSource.FILE else []
        if isinstance(obj, Lesson):
            rows += lesson_file_questions(lesson=obj)
        for row in rows:
            refused.append(
                _(
                    "%(row)s comes from the lesson files; the next load_lessons would create it again. Untick "
                    "“published” instead, or remove it from the file."
                )
                % {"row": f"{row._meta.verbose_name} '{row.key}'"}
            )
    return refused


class ProvenanceAdminMixin:
    """Adds the read-only ``provenance`` field (the notice above) to a lesson's or question's change page, and
    keeps the files' rows from being deleted here (:func:`file_rows_in`: listed as protected, nothing deleted)."""

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> tuple[Any, Any, Any, list[Any]]:
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)  # type: ignore[misc]
        return deleted, counts, perms_needed, [*protected, *file_rows_in(objs)]

    @admin.display(description=gettext_lazy("source"))
    def provenance(self, obj: Lesson | Question) -> str:
        return format_html('<div class="help">{}</div>', provenance_notice(obj))


@admin.action(description=gettext_lazy("Remove generated questions (retire those learners saw)"))
def remove_generated_questions(
    modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Question]
) -> None:
    """The generation service's rule (``generated_questions_remove``); other selected questions stay."""
    deleted, retired = generated_questions_remove(questions=queryset)
    modeladmin.message_user(
        request,
        _("Generated questions: %(deleted)d deleted, %(retired)d retired (learners saw them).")
        % {"deleted": deleted, "retired": retired},
        messages.SUCCESS,
    )
