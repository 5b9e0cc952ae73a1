"""Admin for content: authoring lessons/questions/options, previewing a question as the learner sees it,
and the "generate N standalone questions" action.

Thin on purpose: per-kind question rules are ``Question.clean()`` (quizzes.content.validation, including
the numeric 50-seed check at the question's template version), the option rule is
``validate_choice_options`` (live options only), the answer-cue rules are quizzes.content.cues and which
questions may generate others is ``generation_source_check`` — the same functions the content loader and
the generation service use, so the admin and they can never disagree. The preview's learner side comes
from the item presenter (quizzes.practice.presenter) that the pages and the API use.

An option a learner has been shown cannot be deleted (old attempts list it): the admin retires it
(the inline's "retired" box), which hides it from new attempts and keeps it for the history.
"""

from __future__ import annotations

from typing import Any, ClassVar, cast

import yaml
from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from quizzes.admin.moodle import MoodleLessonAdmin, export_lessons_as_moodle, export_questions_as_moodle
from quizzes.admin.provenance import ProvenanceAdminMixin, remove_generated_questions
from quizzes.admin.statistics import StatisticsLessonAdmin
from quizzes.content import cues
from quizzes.content.generation import generation_job_create, generation_source_check
from quizzes.content.models import Lesson, Option, Question
from quizzes.content.querysets import LessonQuerySet
from quizzes.content.reader import LessonYamlLoader
from quizzes.content.selectors import (
    option_ids_shown_to_learners,
    question_by_id,
    question_options,
    questions_with_history,
)
from quizzes.content.teaching import parse_teaching, teaching_for_authors, teaching_sections
from quizzes.content.validation import validate_choice_options
from quizzes.core.errors import DomainError
from quizzes.core.figures import solution_heatmap
from quizzes.core.rendering import render_markdown, render_value
from quizzes.practice.presenter import code_view, numeric_view, question_view, shape_text, solution_steps

MAX_PREVIEW_SEED = 2**31 - 1


# --------------------------------------------------------------------------- authoring


class LinesField(forms.CharField):
    """A JSON list of strings edited as a textarea, one item per line (rubric points, expected lines)."""

    widget = forms.Textarea(attrs={"rows": 5, "cols": 80})

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, list):
            return "\n".join(str(item) for item in value)
        return value

    def to_python(self, value: Any) -> list[str]:  # type: ignore[override]  # a list of lines, not one str
        if isinstance(value, list):
            return value
        text = super().to_python(value) or ""
        return [line.rstrip() for line in text.splitlines() if line.strip()]


class _AuthorDumper(yaml.SafeDumper):
    """YAML as an author writes it: multi-line text as ``|`` blocks, keys in the schema's order."""


def _text_representer(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)


_AuthorDumper.add_representer(str, _text_representer)


class TeachingField(forms.CharField):
    """``Lesson.teaching`` edited as the same YAML as the lesson file's ``teaching:`` list (one text box).

    A YAML syntax error is reported with its line and column; the schema and the checkpoint rules are
    ``Lesson.clean()`` (quizzes.content.teaching), the same as load_lessons.
    """

    widget = forms.Textarea(attrs={"rows": 30, "cols": 100, "spellcheck": "false"})

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, list):
            if not value:
                return ""
            return yaml.dump(
                teaching_for_authors(value), Dumper=_AuthorDumper, allow_unicode=True, sort_keys=False, width=1000
            )
        return value

    def to_python(self, value: Any) -> Any:
        if isinstance(value, list):
            return value
        text = super().to_python(value) or ""
        if not text.strip():
            return []
        try:
            return yaml.load(text, Loader=LessonYamlLoader)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = (
                _("line %(line)s, column %(column)s: ") % {"line": mark.line + 1, "column": mark.column + 1}
                if mark
                else ""
            )
            raise ValidationError(
                _("Not valid YAML: %(where)s%(problem)s") % {"where": where, "problem": getattr(exc, "problem", exc)}
            ) from None


class LessonForm(forms.ModelForm):
    teaching = TeachingField(
        label=_("teaching text"),
        required=False,
        help_text=_(
            "YAML, exactly as under 'teaching:' in the lesson file: a list of sections with key, title, body "
            "(Markdown + LaTeX), optional figure (five_steps, causal_heatmap, mask_combine, dk_demo) "
            "and optional checkpoint (prompt, explanation, options). See fixtures/lessons/README.md."
        ),
    )

    class Meta:
        model = Lesson
        fields = "__all__"  # noqa: DJ007 - the admin shows every authored field


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


class CodeSpecField(forms.JSONField):
    """A code question's spec: a built-in key typed as is (``sdpa_three_lines``), or a whole spec as JSON."""

    def to_python(self, value: Any) -> Any:
        if isinstance(value, str) and value.strip().isidentifier():
            return value.strip()
        return super().to_python(value)

    def prepare_value(self, value: Any) -> Any:
        if value is None:
            return ""  # not "null": posted back, that would read as a built-in key and refuse every non-code edit
        if isinstance(value, str):
            return value  # a built-in key, shown without JSON quotes
        return super().prepare_value(value)


class QuestionForm(forms.ModelForm):
    rubric = LinesField(label=_("rubric points"), required=False, help_text=_("One point per line."))
    expected_lines = LinesField(label=_("expected lines"), required=False, help_text=_("One line per line."))
    code_spec = CodeSpecField(label=_("code spec"), required=False)

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
        from attention_engine import codecheck

        self.fields["code_spec"].help_text = _(
            "Code only: a built-in spec key (%(keys)s) or a whole spec as a JSON object "
            "(QuestionSpec.to_dict() of attention_engine.codecheck). Checked on save: the reference runs, every "
            "equivalent spelling passes and every misconception is named."
        ) % {"keys": ", ".join(codecheck.names())}

    def clean_params(self) -> Any:
        return self.cleaned_data.get("params") or {}

    def clean(self) -> dict[str, Any]:
        """Same history rule as load_lessons: old attempts must still describe the question they showed."""
        cleaned = super().clean() or {}
        original = self.instance
        stored = None
        if original.pk and questions_with_history(question_ids=[original.pk]):
            stored = question_by_id(question_id=original.pk)
        if stored is not None:
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


def _code_preview(question: Question) -> dict[str, Any]:
    """The editor page's parts (the presenter's before-lock view) and the answer key: the reference, the
    equivalent spellings that must pass and each misconception's code with the name it is given."""
    from attention_engine import misconceptions
    from quizzes.content.code import CodeSpecError, spec_from_field

    try:
        spec = spec_from_field(question.code_spec)
    except CodeSpecError as exc:
        return {"code_error": str(exc)}
    return {
        "code": code_view(question=question),
        "code_reference": spec.reference,
        "code_equivalents": list(spec.equivalents),
        "code_misconceptions": [
            {"id": m.id, "title": (misconceptions.describe(m.id) or {}).get("title_en", m.id), "code": m.code}
            for m in spec.misconceptions
        ],
    }


class OptionFormSet(forms.BaseInlineFormSet):
    """Formset-level rules: a choice question has ≥2 live options, exactly one live correct, and options
    whose form does not give the answer away (quizzes.content.cues rules a and c); other kinds have none.
    An option a learner has seen is retired, never deleted."""

    def clean(self) -> None:
        super().clean()
        if any(self.errors):
            return
        deleted = [form.instance for form in self.forms if form.instance.pk and form.cleaned_data.get("DELETE")]
        if deleted:
            shown = option_ids_shown_to_learners(question_ids=[self.instance.pk])
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
class QuestionAdmin(ProvenanceAdminMixin, admin.ModelAdmin):
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
            context.update(_numeric_preview(question, seed))
        elif question.kind == Question.Kind.NUMBER:
            context["number_answer_html"] = render_value(question.number_answer, digits=12)
        elif question.kind == Question.Kind.CODE:
            context.update(_code_preview(question))
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
    """Generate the variant for ``seed``: what the learner sees (the item presenter's numeric view), then the
    answer key (answer, every choice with the misconception behind it, the worked solution)."""
    from attention_engine import generators, misconceptions

    try:
        variant = generators.generate(
            question.template, seed, version=question.template_version, **(question.params or {})
        )
    except (KeyError, ValueError, ArithmeticError) as exc:
        return {"variant_error": str(exc) or type(exc).__name__}
    data = variant.to_dict()
    shown = numeric_view(question=question, variant=data) or {}
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
    return {
        "variant": variant,
        "template": generators.get(question.template, question.template_version),
        "variant_prompt_html": shown.get("prompt_html", ""),
        "answer_format_html": shown.get("answer_format_html", ""),  # only when the learner types the answer
        "given": [{"name": g["name"], "value_html": render_value(g["value"])} for g in shown.get("given", [])],
        "answer_html": render_value(variant.answer, display=True),
        "answer_shape": shape_text(variant.answer_shape),
        "choices": choices,
        "steps": solution_steps(data["solution"], display=True),
        "heatmap_svg": solution_heatmap(data),
    }
