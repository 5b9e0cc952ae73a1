"""Admin for content: authoring lessons/questions/options, previewing a question as the learner sees it,
and the "generate N standalone questions" action.

Thin on purpose: per-kind question rules are ``Question.clean()`` (quizzes.content.validation, including
the numeric 50-seed check at the question's template version), the option rules (two or more, one correct,
the answer cues of quizzes.content.cues; live options only) are ``choice_options_problems``, and which
questions may generate others is ``generation_source_check`` — the same functions the content loader and
the generation service use, so the admin and they can never disagree. The preview's learner side comes
from the item presenter (quizzes.practice.presenter) that the pages and the API use.

The forms and the options' formset live in quizzes.admin.content_forms, the preview's parts in
quizzes.admin.content_preview.

An option a learner has been shown cannot be deleted (old attempts list it): the admin retires it
(the inline's "retired" box), which hides it from new attempts and keeps it for the history. Nor can a row the
lesson files own (quizzes.admin.provenance): the next import would put it back; unpublish or retire it instead.
"""

from __future__ import annotations

from typing import Any, ClassVar, cast

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from quizzes.admin.content_forms import (
    GenerateQuestionsForm,
    LessonForm,
    OptionForm,
    OptionFormSet,
    PreviewSeedForm,
    QuestionForm,
)
from quizzes.admin.content_preview import code_preview, numeric_preview
from quizzes.admin.moodle import MoodleLessonAdmin, export_lessons_as_moodle, export_questions_as_moodle
from quizzes.admin.provenance import ProvenanceAdminMixin, remove_generated_questions
from quizzes.admin.statistics import StatisticsLessonAdmin
from quizzes.admin.versions import VersionedQuestionAdmin
from quizzes.content.generation import generation_job_create, generation_source_check
from quizzes.content.models import Lesson, Option, Question
from quizzes.content.querysets import LessonQuerySet
from quizzes.content.selectors import question_by_id, question_options
from quizzes.content.teaching import parse_teaching, teaching_sections
from quizzes.core.errors import DomainError
from quizzes.core.rendering import render_markdown, render_value
from quizzes.practice.presenter import question_view


class OptionInline(admin.TabularInline):
    model = Option
    form = OptionForm
    formset = OptionFormSet
    fields = ("order", "key", "text", "is_correct", "feedback", "retired")
    extra = 0
    ordering = ("order", "key")

    def get_extra(self, request: HttpRequest, obj: Question | None = None, **kwargs: Any) -> int:
        return 4 if obj is None else 0


class QuestionInline(admin.TabularInline):
    """Questions listed on their lesson's page; edited on their own page (with options)."""

    model = Question
    fields = ("order", "key", "kind", "template", "published")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True
    ordering = ("order", "key")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Lesson)
class LessonAdmin(ProvenanceAdminMixin, StatisticsLessonAdmin, MoodleLessonAdmin):  # + statistics, Moodle XML
    form = LessonForm
    actions = (export_lessons_as_moodle,)
    list_display = ("order", "key", "title", "published", "source", "question_count", "updated_at")
    list_display_links = ("key", "title")
    list_filter = ("published", "source")
    search_fields = ("key", "title", "summary")
    ordering = ("order", "key")
    readonly_fields = ("created_at", "updated_at", "teaching_preview", "provenance")
    fields = (
        "provenance",
        "key",
        "title",
        "order",
        "published",
        "summary",
        "teaching",
        "teaching_preview",
        "created_at",
        "updated_at",
    )
    inlines = (QuestionInline,)

    class Media:
        css: ClassVar[dict[str, tuple[str, ...]]] = {"all": ("quizzes/css/admin_preview.css",)}

    @admin.display(description=_("preview of the teaching text"))
    def teaching_preview(self, obj: Lesson) -> str:
        """The saved teaching text as the lesson page renders it, with every checkpoint's answer key shown."""
        if not obj.pk or not obj.teaching:
            return "—"
        stored, problems = parse_teaching(obj.teaching)
        if problems:  # an invalid edit is being shown back to its author: the errors are on the field
            return str(_("The preview appears once the teaching text is valid."))
        sections = teaching_sections(lesson_key=obj.key, sections=stored, reveal_all=True)
        return render_to_string("admin/quizzes/lesson/teaching_preview.html", {"sections": sections})

    def get_queryset(self, request: HttpRequest) -> QuerySet[Lesson]:
        return cast(LessonQuerySet, super().get_queryset(request)).with_question_total()

    @admin.display(description=_("questions"), ordering="question_total")
    def question_count(self, obj: Lesson) -> int:
        return obj.question_total  # type: ignore[attr-defined]  # annotated by with_question_total()


@admin.register(Question)
class QuestionAdmin(ProvenanceAdminMixin, VersionedQuestionAdmin):  # + versions (quizzes.admin.versions)
    form = QuestionForm
    inlines = (OptionInline,)
    list_display = (
        *("key", "lesson", "order", "kind", "template", "answer_form", "published"),
        *("source", "fixed_seed", "updated_at"),  # where each came from; a generated question's seed
    )
    list_filter = ("lesson", "kind", "published", "source", "template")
    list_select_related = ("lesson",)
    search_fields = ("key", "prompt", "explanation", "template")
    ordering = ("lesson__order", "order", "key")
    readonly_fields = ("created_at", "updated_at", "preview_link", "fixed_seed", "generated_from", "provenance")
    save_on_top = True
    actions = ("generate_standalone_questions", remove_generated_questions, export_questions_as_moodle)
    fieldsets = (
        (None, {"fields": ("provenance", "lesson", "key", "kind", "order", "published", "prompt", "explanation")}),
        (
            _("Numeric (generated by a template)"),
            {
                "fields": (
                    "template",
                    "template_version",
                    "params",
                    "answer_form",
                    "preview_link",
                    "fixed_seed",
                    "generated_from",
                )
            },
        ),
        (_("Number (one fixed answer)"), {"fields": ("number_answer", "number_tolerance", "number_unit")}),
        (_("Interview prompt"), {"fields": ("reference_answer", "rubric")}),
        (_("Recall card"), {"fields": ("expected_lines",)}),
        (_("Code question"), {"fields": ("code_spec", "replaces_key")}),
        (_("History"), {"fields": ("created_at", "updated_at")}),
    )

    def get_readonly_fields(self, request: HttpRequest, obj: Question | None = None) -> tuple[str, ...]:
        """A generated (fixed-seed) question keeps its template version forever: its numbers never change."""
        fields = tuple(super().get_readonly_fields(request, obj))
        if obj is not None and obj.fixed_seed is not None:
            fields += ("template_version",)
        return fields

    def get_urls(self) -> list[URLPattern]:
        urls = super().get_urls()
        preview = path(
            "<path:object_id>/preview/",
            self.admin_site.admin_view(self.preview_view),
            name="quizzes_question_preview",
        )
        return [preview, *urls]

    @admin.display(description=_("preview"))
    def preview_link(self, obj: Question) -> str:
        if not obj.pk:
            return "—"
        url = reverse("admin:quizzes_question_preview", args=[obj.pk])
        return format_html('<a href="{}">{}</a>', url, _("Preview as the learner sees it"))

    def preview_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """The question as a learner sees it, plus the answer key; numeric questions for any ``?seed=N``."""
        question = question_by_id(question_id=object_id)
        if question is None:
            raise Http404
        if not self.has_view_or_change_permission(request, question):
            raise PermissionDenied
        seed_form = PreviewSeedForm(request.GET or {"seed": 0})
        seed = seed_form.cleaned_data["seed"] if seed_form.is_valid() else 0
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "original": question,
            "title": _("Preview: %(key)s") % {"key": question.key},
            "question": question,
            "prompt_html": question_view(question)["prompt_html"],
            "explanation_html": render_markdown(question.explanation),
            "seed_form": seed_form,
            "seed": seed,
        }
        if question.kind == Question.Kind.CHOICE:
            options: list[dict[str, Any]] = [
                {"option": o, "text_html": render_markdown(o.text), "feedback_html": render_markdown(o.feedback)}
                for o in question_options(question=question)
            ]
            context["options"] = options
            context["live_options"] = [item for item in options if not item["option"].retired]
        elif question.kind == Question.Kind.PROMPT:
            context["reference_html"] = render_markdown(question.reference_answer)
            context["rubric_html"] = [render_markdown(point) for point in question.rubric]
        elif question.kind == Question.Kind.NUMERIC:
            context.update(numeric_preview(question, seed))
        elif question.kind == Question.Kind.NUMBER:
            context["number_answer_html"] = render_value(question.number_answer, digits=12)
        elif question.kind == Question.Kind.CODE:
            context.update(code_preview(question))
        return TemplateResponse(request, "admin/quizzes/question/preview.html", context)

    @admin.action(description=_("Generate N standalone questions (fixed seeds)"), permissions=["add"])
    def generate_standalone_questions(self, request: HttpRequest, queryset: QuerySet[Question]) -> HttpResponse | None:
        """Ask for N and the first seed (intermediate page), then start one GenerationJob per selected question.

        The job runs in a Celery task after the commit; its progress is on the generation job page.
        """
        questions = list(queryset.select_related("lesson").order_by("pk"))
        refused = [q for q in questions if not _may_generate(q)]
        if refused:
            self.message_user(
                request,
                _("Only numeric questions that are not generated themselves can generate questions: %(keys)s.")
                % {"keys": ", ".join(q.key for q in refused)},
                messages.ERROR,
            )
            return None
        form = GenerateQuestionsForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            jobs = []
            for question in questions:
                try:
                    jobs.append(
                        generation_job_create(
                            source=question,
                            total=form.cleaned_data["total"],
                            first_seed=form.cleaned_data["first_seed"],
                            requested_by=cast(User, request.user),  # a staff member (the admin's own check)
                        )
                    )
                except DomainError as exc:
                    self.message_user(request, f"{question.key}: {' '.join(exc.messages)}", messages.ERROR)
            if jobs:
                url = reverse("admin:quizzes_generationjob_changelist")
                self.message_user(
                    request,
                    format_html(
                        '{} <a href="{}">{}</a>',
                        _("Started %(count)d generation job(s).") % {"count": len(jobs)},
                        url,
                        _("Follow their progress."),
                    ),
                    messages.SUCCESS,
                )
            return None
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Generate standalone questions"),
            "questions": questions,
            "form": form,
            "action": "generate_standalone_questions",
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/quizzes/question/generate.html", context)


def _may_generate(question: Question) -> bool:
    """The generation service's own rule (``generation_source_check``), asked before the form is shown."""
    try:
        generation_source_check(source=question)
    except DomainError:
        return False
    return True
