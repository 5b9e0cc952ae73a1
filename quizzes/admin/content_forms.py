"""The content admin's forms: lesson and question forms (teaching as YAML, lines, the code spec), the
options' formset and the preview-seed and generate-N forms.

Thin on purpose: the rules are the content domain's (``Question.clean()``, ``choice_options_problems``: the
option count, the one correct option and the answer cues), the same functions the content loader uses."""

from __future__ import annotations

from typing import Any

import yaml
from django import forms
from django.core.exceptions import ValidationError
from django.http import QueryDict
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from quizzes.content.models import ContentSource, Lesson, Option, Question
from quizzes.content.reader import LessonYamlLoader
from quizzes.content.selectors import option_ids_shown_to_learners, question_by_id, questions_with_history
from quizzes.content.teaching import FIGURE_NAMES, teaching_for_authors
from quizzes.content.validation import choice_options_problems

MAX_PREVIEW_SEED = 2**31 - 1


def text_with_lf(text: str) -> str:
    """A browser's text with LF line ends: a textarea posts CRLF (HTML's form encoding), which the lesson files
    never hold (dump_lessons would write the text double-quoted, with ``\\r\\n`` escapes)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


class AuthoringForm(forms.ModelForm):
    """Every content form's base: the posted text gets LF line ends before any field reads it (the one place)."""

    def full_clean(self) -> None:
        if self.is_bound:
            self.data = _posted_with_lf(self.data)
        super().full_clean()


def _posted_with_lf(data: Any) -> Any:
    """Posted data (a QueryDict, or a plain dict from a test or a view) with :func:`text_with_lf` text."""
    if isinstance(data, QueryDict):
        if not any("\r" in value for _key, values in data.lists() for value in values if isinstance(value, str)):
            return data
        copy = data.copy()
        for key, values in data.lists():
            copy.setlist(key, [text_with_lf(v) if isinstance(v, str) else v for v in values])
        return copy
    return {key: text_with_lf(value) if isinstance(value, str) else value for key, value in data.items()}


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


class LessonForm(AuthoringForm):
    teaching = TeachingField(
        label=_("teaching text"),
        required=False,
        help_text=format_lazy(
            _(
                "YAML, exactly as under 'teaching:' in the lesson file: a list of sections with key, title, body "
                "(Markdown + LaTeX), optional figure ({figures}) "
                "and optional checkpoint (prompt, explanation, options). See fixtures/lessons/README.md."
            ),
            figures=", ".join(FIGURE_NAMES),
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


class QuestionForm(AuthoringForm):
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


class OptionForm(AuthoringForm):
    class Meta:
        model = Option
        fields = ("order", "key", "text", "is_correct", "feedback", "retired")


class OptionFormSet(forms.BaseInlineFormSet):
    """Formset-level rules: a choice question has ≥2 live options, exactly one live correct, and options
    whose form does not give the answer away (quizzes.content.cues rules a and c); other kinds have none.
    An option a learner has seen is retired, never deleted."""

    def clean(self) -> None:
        super().clean()
        if any(self.errors):
            return
        deleted = [form.instance for form in self.forms if form.instance.pk and form.cleaned_data.get("DELETE")]
        files = sorted(option.key for option in deleted if option.source == ContentSource.FILE)
        if files:
            raise ValidationError(
                _(
                    "Option(s) %(keys)s come from the lesson files: deleted here, the next load_lessons would put "
                    "them back without a word. Retire them instead (tick “retired” and untick “delete”): the next "
                    "import then asks whether your change or the file's wins. Or remove them from the file."
                )
                % {"keys": ", ".join(files)}
            )
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
            problems = choice_options_problems(options)  # the import's rules, over the same options
            if problems:
                raise ValidationError([problem.message for problem in problems])
        elif kept:
            raise ValidationError(_("Only choice questions have options; remove them or change the kind."))


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
