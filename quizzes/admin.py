"""Django admin: authoring lessons/questions/options, previewing numeric variants, read-only learner data.

Thin on purpose: per-kind question rules are ``Question.clean()`` (quizzes.validation, including the
numeric 50-seed check at the question's template version), the option rule is
``validate_choice_options`` (live options only) and the answer-cue rules are quizzes.cues — the same
functions the content loader uses, so the admin and ``load_lessons`` can never disagree.

An option a learner has been shown cannot be deleted (old attempts list it): the admin retires it
(the inline's "retired" box), which hides it from new attempts and keeps it for the history.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count, QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from quizzes import cues
from quizzes.content import option_ids_shown_to_learners, questions_with_history
from quizzes.models import Attempt, AttemptItem, GenerationJob, Lesson, Option, Question, ReviewCard, ReviewLog
from quizzes.rendering import math_to_mathml, render_markdown, render_value
from quizzes.validation import validate_choice_options

MAX_PREVIEW_SEED = 2**31 - 1


# --------------------------------------------------------------------------- authoring


class LinesField(forms.CharField):
    """A JSON list of strings edited as a textarea, one item per line (rubric points, expected lines)."""

    widget = forms.Textarea(attrs={"rows": 5, "cols": 80})

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, list):
            return "\n".join(str(item) for item in value)
        return value

    def to_python(self, value: Any) -> list[str]:
        if isinstance(value, list):
            return value
        text = super().to_python(value) or ""
        return [line.rstrip() for line in text.splitlines() if line.strip()]


def _template_help() -> str:
    """Known generator templates with their parameters and ranges, for the params field's help text."""
    from attention_engine import generators

    parts = []
    for name in generators.names():
        template = generators.get(name)
        specs = template.params
        described = ", ".join(
            f"{spec.name}={spec.default!r} [{spec.min}..{spec.max}]"
            if spec.kind in ("int", "float")
            else f"{spec.name}={spec.default!r} {list(spec.choices or [])}"
            if spec.kind == "choice"
            else f"{spec.name}={spec.default!r}"
            for spec in specs.values()
        )
        parts.append(f"{name} v{template.version}: {described or '—'}")
    return "; ".join(parts)


class QuestionForm(forms.ModelForm):
    rubric = LinesField(label=_("rubric points"), required=False, help_text=_("One point per line."))
    expected_lines = LinesField(label=_("expected lines"), required=False, help_text=_("One line per line."))

    class Meta:
        model = Question
        fields = "__all__"  # noqa: DJ007 - the admin shows every authored field, grouped by fieldsets

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        try:
            self.fields["params"].help_text = _("JSON object. Templates: %(help)s") % {"help": _template_help()}
        except Exception:  # the help text is a convenience; never break the form over it
            self.fields["params"].help_text = _("JSON object of template parameters.")
        self.fields["params"].required = False

    def clean_params(self) -> Any:
        return self.cleaned_data.get("params") or {}

    def clean(self) -> dict[str, Any]:
        """Same history rule as load_lessons: old attempts must still describe the question they showed."""
        cleaned = super().clean()
        original = self.instance
        if original.pk and questions_with_history([original.pk]):
            stored = Question.objects.select_related("lesson").get(pk=original.pk)
            if "kind" in cleaned and cleaned["kind"] != stored.kind:
                self.add_error(
                    "kind",
                    _("Learners have history with this question; its kind cannot change. Create a new question."),
                )
            if cleaned.get("lesson") and cleaned["lesson"].pk != stored.lesson_id:
                self.add_error(
                    "lesson",
                    _("Learners have history with this question in its lesson; it cannot move. Create a new question."),
                )
        return cleaned


class OptionFormSet(forms.BaseInlineFormSet):
    """Formset-level rules: a choice question has ≥2 live options, exactly one live correct, and options
    whose form does not give the answer away (quizzes.cues rules a and c); other kinds have none.
    An option a learner has seen is retired, never deleted."""

    def clean(self) -> None:
        super().clean()
        if any(self.errors):
            return
        deleted = [form.instance for form in self.forms if form.instance.pk and form.cleaned_data.get("DELETE")]
        if deleted:
            shown = option_ids_shown_to_learners([self.instance.pk])
            seen = sorted(option.key for option in deleted if option.pk in shown)
            if seen:
                raise ValidationError(
                    _(
                        "Learners have been shown option(s) %(keys)s, so they cannot be deleted: their attempts "
                        "still show them. Retire them instead (tick “retired” and untick “delete”): a retired "
                        "option is hidden from new attempts and kept for the history."
                    )
                    % {"keys": ", ".join(seen)}
                )
        kept = [
            form.cleaned_data
            for form in self.forms
            if form.cleaned_data and not form.cleaned_data.get("DELETE") and (form.instance.pk or form.has_changed())
        ]
        kind = getattr(self.instance, "kind", None)
        if kind == Question.Kind.CHOICE:
            options = [
                {
                    "key": data.get("key") or "",
                    "text": data.get("text") or "",
                    "is_correct": bool(data.get("is_correct")),
                    "retired": bool(data.get("retired")),
                }
                for data in kept
            ]
            try:
                validate_choice_options(options)
            except ValidationError as exc:
                raise ValidationError(exc.messages) from exc
            problems = cues.question_cue_problems(options)
            if problems:
                raise ValidationError([problem.message for problem in problems])
        elif kept:
            raise ValidationError(_("Only choice questions have options; remove them or change the kind."))


class OptionInline(admin.TabularInline):
    model = Option
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
class LessonAdmin(admin.ModelAdmin):
    list_display = ("order", "key", "title", "published", "question_count", "updated_at")
    list_display_links = ("key", "title")
    list_filter = ("published",)
    search_fields = ("key", "title", "summary")
    ordering = ("order", "key")
    readonly_fields = ("created_at", "updated_at")
    inlines = (QuestionInline,)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Lesson]:
        return super().get_queryset(request).annotate(question_total=Count("questions"))

    @admin.display(description=_("questions"), ordering="question_total")
    def question_count(self, obj: Lesson) -> int:
        return obj.question_total


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin):
    form = QuestionForm
    inlines = (OptionInline,)
    list_display = ("key", "lesson", "order", "kind", "template", "answer_form", "published", "updated_at")
    list_filter = ("lesson", "kind", "published", "template")
    list_select_related = ("lesson",)
    search_fields = ("key", "prompt", "explanation", "template")
    ordering = ("lesson__order", "order", "key")
    readonly_fields = ("created_at", "updated_at", "preview_link", "fixed_seed", "generated_from")
    save_on_top = True
    actions = ("generate_standalone_questions",)
    fieldsets = (
        (None, {"fields": ("lesson", "key", "kind", "order", "published", "prompt", "explanation")}),
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
        (_("Interview prompt"), {"fields": ("reference_answer", "rubric")}),
        (_("Recall card"), {"fields": ("expected_lines",)}),
        (_("History"), {"fields": ("created_at", "updated_at")}),
    )

    def get_readonly_fields(self, request: HttpRequest, obj: Question | None = None) -> tuple[str, ...]:
        """A generated (fixed-seed) question keeps its template version forever: its numbers never change."""
        fields = tuple(super().get_readonly_fields(request, obj))
        if obj is not None and obj.fixed_seed is not None:
            fields += ("template_version",)
        return fields

    def get_urls(self):
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
        question = get_object_or_404(Question.objects.select_related("lesson"), pk=object_id)
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
            "prompt_html": render_markdown(question.prompt),
            "explanation_html": render_markdown(question.explanation),
            "seed_form": seed_form,
            "seed": seed,
        }
        if question.kind == Question.Kind.CHOICE:
            options = [
                {"option": o, "text_html": render_markdown(o.text), "feedback_html": render_markdown(o.feedback)}
                for o in question.options.order_by("order", "key")
            ]
            context["options"] = options
            context["live_options"] = [item for item in options if not item["option"].retired]
        elif question.kind == Question.Kind.PROMPT:
            context["reference_html"] = render_markdown(question.reference_answer)
            context["rubric_html"] = [render_markdown(point) for point in question.rubric]
        elif question.kind == Question.Kind.NUMERIC:
            context.update(_numeric_preview(question, seed))
        return TemplateResponse(request, "admin/quizzes/question/preview.html", context)

    @admin.action(description=_("Generate N standalone questions (fixed seeds)"), permissions=["add"])
    def generate_standalone_questions(self, request: HttpRequest, queryset: QuerySet[Question]) -> HttpResponse | None:
        """Ask for N and the first seed (intermediate page), then start one GenerationJob per selected question.

        The job runs in a Celery task after the commit; its progress is on the generation job page.
        """
        from quizzes.services.generation import generation_job_create

        questions = list(queryset.select_related("lesson").order_by("pk"))
        refused = [q for q in questions if q.kind != Question.Kind.NUMERIC or q.fixed_seed is not None]
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
                            requested_by=request.user,
                        )
                    )
                except ValidationError as exc:
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
            "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/quizzes/question/generate.html", context)


class GenerateQuestionsForm(forms.Form):
    total = forms.IntegerField(label=_("how many questions (N)"), min_value=1, max_value=1000, initial=10)
    first_seed = forms.IntegerField(
        label=_("first seed"),
        min_value=0,
        max_value=MAX_PREVIEW_SEED,
        initial=0,
        help_text=_("Seeds first_seed … first_seed+N−1; running the same range again creates no duplicates."),
    )


class PreviewSeedForm(forms.Form):
    seed = forms.IntegerField(label=_("seed"), min_value=0, max_value=MAX_PREVIEW_SEED, initial=0)


def _numeric_preview(question: Question, seed: int) -> dict[str, Any]:
    """Generate the variant for ``seed`` and render every part of it (prompt, numbers, answer, steps)."""
    from attention_engine import generators, misconceptions

    try:
        variant = generators.generate(
            question.template, seed, version=question.template_version, **(question.params or {})
        )
    except (KeyError, ValueError, ArithmeticError) as exc:
        return {"variant_error": str(exc) or type(exc).__name__}
    choices = []
    for index, choice in enumerate(variant.choices):
        label, why = "", ""
        if choice.misconception:
            try:
                known = misconceptions.get(choice.misconception)
                label, why = known.title_zh, known.explanation_zh
            except KeyError:
                label = choice.misconception
        choices.append(
            {
                "letter": "ABCDEFGHIJ"[index] if index < 10 else str(index + 1),
                "value_html": render_value(choice.value, display=True),
                "shown_as": choice.label_zh,
                "correct": choice.misconception is None,
                "misconception": choice.misconception,
                "label": label,
                "why": why,
            }
        )
    steps = [
        {
            "number": number,
            "name": step.name,
            "formula_html": math_to_mathml(step.formula, display=True) if step.formula else "",
            "value_html": render_value(step.value, display=True) if step.value is not None else "",
            "shape": "(" + ", ".join(str(d) for d in step.shape) + (",)" if len(step.shape) == 1 else ")"),
        }
        for number, step in enumerate(variant.solution, start=1)
    ]
    return {
        "variant": variant,
        "template": generators.get(question.template, question.template_version),
        "variant_prompt_html": render_markdown(variant.prompt),
        # shown to the learner only when they type the answer (selectors.item_answer_format)
        "answer_format_html": render_markdown(variant.answer_format)
        if question.answer_form == Question.AnswerForm.INPUT
        else "",
        "given": [{"name": name, "value_html": render_value(value)} for name, value in variant.given.items()],
        "answer_html": render_value(variant.answer, display=True),
        "answer_shape": "(" + ", ".join(str(d) for d in variant.answer_shape) + ")",
        "choices": choices,
        "steps": steps,
    }


# --------------------------------------------------------------------------- support: read-only learner data


class ReadOnlyAdmin(admin.ModelAdmin):
    """Learner history is written only by the services; support staff may look, never touch."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReviewLogInline(admin.TabularInline):
    model = ReviewLog
    fields = ("reviewed_at", "rating", "role", "source", "duration_ms", "client_uuid", "attempt_item")
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ("reviewed_at", "id")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(ReviewCard)
class ReviewCardAdmin(ReadOnlyAdmin):
    list_display = ("user", "question", "state", "due", "last_review", "reps", "lapses", "suspended", "is_leech")
    list_filter = ("state", "suspended", "is_leech", "question__lesson")
    list_select_related = ("user", "question")
    search_fields = ("user__username", "user__email", "question__key")
    date_hierarchy = "due"
    ordering = ("user", "due")
    inlines = (ReviewLogInline,)


@admin.register(ReviewLog)
class ReviewLogAdmin(ReadOnlyAdmin):
    list_display = ("user", "card", "rating", "role", "source", "reviewed_at", "duration_ms")
    list_filter = ("rating", "role", "source", "card__question__lesson")
    list_select_related = ("user", "card__question", "card__user")
    search_fields = ("user__username", "user__email", "card__question__key", "client_uuid")
    date_hierarchy = "reviewed_at"
    ordering = ("-reviewed_at", "-id")


class AttemptItemInline(admin.TabularInline):
    model = AttemptItem
    fields = (
        "position",
        "question",
        "option_order",
        "variant_seed",
        "response",
        "chosen_option",
        "is_correct",
        "score",
        "answered_at",
    )
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ("position",)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Attempt)
class AttemptAdmin(ReadOnlyAdmin):
    list_display = ("user", "lesson", "number", "mode", "started_at", "finished_at")
    list_filter = ("mode", "lesson")
    list_select_related = ("user", "lesson")
    search_fields = ("user__username", "user__email", "lesson__key")
    date_hierarchy = "started_at"
    ordering = ("-started_at",)
    inlines = (AttemptItemInline,)


# --------------------------------------------------------------------------- background jobs


@admin.register(GenerationJob)
class GenerationJobAdmin(admin.ModelAdmin):
    """Progress and result of bulk generation; jobs are started from the question list's action."""

    list_display = (
        "created_at",
        "source",
        "first_seed",
        "progress",
        "created",
        "status",
        "error_count",
        "requested_by",
    )
    list_filter = ("status",)
    list_select_related = ("source", "requested_by")
    search_fields = ("source__key",)
    ordering = ("-created_at",)
    fields = (
        "source",
        "requested_by",
        "status",
        "first_seed",
        "total",
        "done",
        "created",
        "progress",
        "generated_link",
        "error_list",
        "task_id",
        "created_at",
        "started_at",
        "finished_at",
    )
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description=_("progress"))
    def progress(self, obj: GenerationJob) -> str:
        return f"{obj.done}/{obj.total}"

    @admin.display(description=_("errors"))
    def error_count(self, obj: GenerationJob) -> int:
        return len(obj.errors or [])

    @admin.display(description=_("errors"))
    def error_list(self, obj: GenerationJob) -> str:
        if not obj.errors:
            return "—"
        return format_html_join(
            "\n",
            "<div>{}: {}</div>",
            (
                (
                    _("seed %(seed)s") % {"seed": e.get("seed")} if e.get("seed") is not None else _("job"),
                    e.get("error"),
                )
                for e in obj.errors
            ),
        )

    @admin.display(description=_("generated questions"))
    def generated_link(self, obj: GenerationJob) -> str:
        url = reverse("admin:quizzes_question_changelist") + f"?generated_from__id__exact={obj.source_id}"
        return format_html('<a href="{}">{}</a>', url, _("Questions generated from %(key)s") % {"key": obj.source.key})


# --------------------------------------------------------------------------- accounts (quizzes.admin_accounts)

from quizzes import admin_accounts  # noqa: E402  (kept in its own module: e-mail uniqueness, unlocking sign-in)

admin_accounts.register(admin.site)
