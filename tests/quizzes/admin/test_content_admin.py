"""Admin authoring: staff only, validation messages on save, numeric preview, read-only learner data."""

from __future__ import annotations

import datetime as dt
import html

import pytest
from django.urls import reverse
from django.utils import timezone

from attention_engine import generators
from quizzes.models import Attempt, AttemptItem, Question, ReviewCard, ReviewLog
from tests import factories

CHANGELIST = "admin:quizzes_question_changelist"
ADD = "admin:quizzes_question_add"


def question_post(lesson, *, options=(), **fields) -> dict:
    """Form data for the question add page, with its options inline (prefix 'options')."""
    data = {
        "lesson": lesson.pk,
        "key": "admin-q",
        "kind": "choice",
        "order": 1,
        "published": "on",
        "prompt": "为什么除以 $\\sqrt{d_k}$？",
        "explanation": "",
        "template": "",
        "params": "{}",
        "answer_form": "",
        "reference_answer": "",
        "rubric": "",
        "expected_lines": "",
        "options-TOTAL_FORMS": str(len(options)),
        "options-INITIAL_FORMS": "0",
        "options-MIN_NUM_FORMS": "0",
        "options-MAX_NUM_FORMS": "1000",
    }
    for index, (key, correct) in enumerate(options):
        data[f"options-{index}-order"] = str(index + 1)
        data[f"options-{index}-key"] = key
        data[f"options-{index}-text"] = f"选项 {key}"
        data[f"options-{index}-feedback"] = f"反馈 {key}"
        if correct:
            data[f"options-{index}-is_correct"] = "on"
    data.update(fields)
    return data


def login(client, user) -> None:
    client.force_login(user)


def page_text(response) -> str:
    return html.unescape(response.content.decode())


# --------------------------------------------------------------------------- access


@pytest.mark.django_db
@pytest.mark.parametrize(
    "name", [CHANGELIST, ADD, "admin:quizzes_lesson_changelist", "admin:quizzes_reviewcard_changelist"]
)
def test_non_staff_are_sent_to_the_login_page(client, user, name):
    login(client, user)
    assert client.get(reverse("admin:login")).context["user"] == user  # logged in, just not staff
    response = client.get(reverse(name))
    assert response.status_code == 302
    assert reverse("admin:login") in response["Location"]


@pytest.mark.django_db
def test_anonymous_cannot_open_the_preview(client, choice_question):
    response = client.get(reverse("admin:quizzes_question_preview", args=[choice_question.pk]))
    assert response.status_code == 302
    assert reverse("admin:login") in response["Location"]


@pytest.mark.django_db
def test_staff_without_permissions_get_403(client, choice_question):
    staff = factories.UserFactory(is_staff=True)
    login(client, staff)
    assert client.get(reverse(CHANGELIST)).status_code == 403
    assert client.get(reverse("admin:quizzes_question_preview", args=[choice_question.pk])).status_code == 403


@pytest.mark.django_db
def test_lists_with_search_and_filters(admin_client, quiz_lesson):
    response = admin_client.get(reverse(CHANGELIST), {"kind__exact": "choice", "lesson__id__exact": quiz_lesson.pk})
    assert response.status_code == 200
    assert response.context["cl"].result_count == 3
    response = admin_client.get(reverse(CHANGELIST), {"q": "sqrt"})
    assert response.context["cl"].result_count == quiz_lesson.questions.count()
    response = admin_client.get(reverse("admin:quizzes_lesson_change", args=[quiz_lesson.pk]))
    assert response.status_code == 200
    assert quiz_lesson.questions.first().key in page_text(response)


# --------------------------------------------------------------------------- validation on save


@pytest.mark.django_db
def test_valid_choice_question_is_saved_with_its_options(admin_client, lesson):
    response = admin_client.post(reverse(ADD), question_post(lesson, options=[("a", True), ("b", False), ("c", False)]))
    assert response.status_code == 302, response.context and response.context["errors"]
    question = Question.objects.get(key="admin-q")
    assert list(question.options.values_list("key", "is_correct")) == [("a", True), ("b", False), ("c", False)]


@pytest.mark.django_db
def test_choice_question_with_one_option_is_refused(admin_client, lesson):
    response = admin_client.post(reverse(ADD), question_post(lesson, options=[("a", True)]))
    assert response.status_code == 200
    assert "A choice question needs at least two options." in page_text(response)
    assert not Question.objects.filter(key="admin-q").exists()


@pytest.mark.django_db
def test_choice_question_with_two_correct_options_is_refused(admin_client, lesson):
    response = admin_client.post(reverse(ADD), question_post(lesson, options=[("a", True), ("b", True), ("c", False)]))
    assert response.status_code == 200
    assert "A choice question needs exactly one correct option (found 2)." in page_text(response)
    assert not Question.objects.filter(key="admin-q").exists()


@pytest.mark.django_db
def test_choice_question_with_no_correct_option_is_refused(admin_client, lesson):
    response = admin_client.post(reverse(ADD), question_post(lesson, options=[("a", False), ("b", False)]))
    assert "A choice question needs exactly one correct option (found 0)." in page_text(response)


@pytest.mark.django_db
def test_editing_options_is_validated_too(admin_client, choice_question):
    options = list(choice_question.options.order_by("order"))
    data = question_post(choice_question.lesson, key=choice_question.key)
    data.update({"options-TOTAL_FORMS": str(len(options)), "options-INITIAL_FORMS": str(len(options))})
    for index, option in enumerate(options):
        data.update(
            {
                f"options-{index}-id": str(option.pk),
                f"options-{index}-question": str(choice_question.pk),
                f"options-{index}-order": str(option.order),
                f"options-{index}-key": option.key,
                f"options-{index}-text": option.text,
                f"options-{index}-feedback": option.feedback,
                f"options-{index}-is_correct": "on",  # every option marked correct
            }
        )
    response = admin_client.post(reverse("admin:quizzes_question_change", args=[choice_question.pk]), data)
    assert response.status_code == 200
    assert f"A choice question needs exactly one correct option (found {len(options)})." in page_text(response)
    assert choice_question.options.filter(is_correct=True).count() == 1


@pytest.mark.django_db
def test_options_on_a_non_choice_question_are_refused(admin_client, lesson):
    data = question_post(
        lesson,
        options=[("a", True), ("b", False)],
        kind="prompt",
        reference_answer="答案",
        rubric="要点一\n要点二",
    )
    response = admin_client.post(reverse(ADD), data)
    assert "Only choice questions have options" in page_text(response)


@pytest.mark.django_db
def test_prompt_question_rubric_is_edited_one_point_per_line(admin_client, lesson):
    data = question_post(lesson, kind="prompt", reference_answer="答案", rubric="要点一\n\n要点二\n")
    response = admin_client.post(reverse(ADD), data)
    assert response.status_code == 302
    assert Question.objects.get(key="admin-q").rubric == ["要点一", "要点二"]


@pytest.mark.django_db
def test_numeric_question_with_unknown_template_is_refused(admin_client, lesson):
    data = question_post(lesson, kind="numeric", template="no_such_template", answer_form="input")
    response = admin_client.post(reverse(ADD), data)
    assert response.status_code == 200
    assert "Unknown template no_such_template." in page_text(response)
    assert not Question.objects.filter(key="admin-q").exists()


def _int_param(template_name: str | None = None):
    """A (template, ParamSpec) pair with a bounded int parameter, to push out of range."""
    from attention_engine import generators

    names = [template_name] if template_name else generators.names()
    for name in names:
        for spec in generators.get(name).params.values():
            if spec.kind == "int" and spec.max is not None:
                return name, spec
    pytest.fail("no template declares a bounded int parameter")


@pytest.mark.django_db
def test_numeric_question_with_out_of_range_param_names_param_and_range(admin_client, lesson):
    template, spec = _int_param()
    data = question_post(
        lesson, kind="numeric", template=template, answer_form="input", params=f'{{"{spec.name}": {spec.max + 1000}}}'
    )
    response = admin_client.post(reverse(ADD), data)
    text = page_text(response)
    assert response.status_code == 200
    assert spec.name in text
    assert str(spec.min) in text and str(spec.max) in text
    assert not Question.objects.filter(key="admin-q").exists()


@pytest.mark.django_db
def test_valid_numeric_question_is_saved(admin_client, lesson):
    data = question_post(lesson, kind="numeric", template="attention_row_weights", answer_form="choice", params="{}")
    response = admin_client.post(reverse(ADD), data)
    assert response.status_code == 302, page_text(response)[:2000]
    assert Question.objects.get(key="admin-q").template == "attention_row_weights"


# --------------------------------------------------------------------------- preview


@pytest.mark.django_db
def test_numeric_preview_for_seed_7_shows_mathml_answer_and_solution_steps(admin_client, lesson):
    question = factories.NumericQuestionFactory(
        lesson=lesson,
        template="causal_masked_weights",
        answer_form="choice",
        prompt="加掩码后 softmax，$e^{-\\infty}=0$。",
    )
    response = admin_client.get(reverse("admin:quizzes_question_preview", args=[question.pk]), {"seed": 7})
    assert response.status_code == 200
    text = page_text(response)
    variant = generators.generate("causal_masked_weights", 7, **question.params)
    assert "<math" in text and "</math>" in text
    assert "&lt;math" not in response.content.decode()  # formulas are rendered, not shown as escaped markup
    assert "$" not in text.split('id="question-preview"')[1]  # every formula became MathML
    assert response.context["seed"] == 7
    steps = response.context["steps"]
    assert [s["name"] for s in steps] == [step.name for step in variant.solution]
    for step in variant.solution:
        assert html.unescape(step.name) in text
    assert text.count('class="qz-step"') == len(variant.solution)
    assert "Worked solution" in text and "Given numbers" in text
    # the distractors carry their misconception labels
    for choice in variant.choices:
        if choice.misconception:
            assert choice.misconception in text


@pytest.mark.django_db
def test_preview_seed_changes_the_numbers(admin_client, lesson):
    question = factories.NumericQuestionFactory(lesson=lesson)
    url = reverse("admin:quizzes_question_preview", args=[question.pk])
    first = admin_client.get(url, {"seed": 1}).context["variant"]
    second = admin_client.get(url, {"seed": 2}).context["variant"]
    assert first.seed == 1 and second.seed == 2
    assert first.given != second.given


@pytest.mark.django_db
def test_preview_rejects_a_bad_seed_and_falls_back_to_zero(admin_client, lesson):
    question = factories.NumericQuestionFactory(lesson=lesson)
    response = admin_client.get(reverse("admin:quizzes_question_preview", args=[question.pk]), {"seed": "-3"})
    assert response.status_code == 200
    assert response.context["seed"] == 0
    assert response.context["seed_form"].errors


@pytest.mark.django_db
def test_choice_preview_shows_options_feedback_and_escapes_html(admin_client, choice_question):
    option = choice_question.options.first()
    option.feedback = "<script>alert(1)</script> 注意 $d_k$"
    option.save()
    response = admin_client.get(reverse("admin:quizzes_question_preview", args=[choice_question.pk]))
    body = response.content.decode()
    assert response.status_code == 200
    assert "<script>alert(1)</script>" not in body
    assert "&lt;script&gt;" in body
    assert "<math" in body
    assert (
        reverse("admin:quizzes_question_preview", args=[choice_question.pk])
        in admin_client.get(reverse("admin:quizzes_question_change", args=[choice_question.pk])).content.decode()
    )


# --------------------------------------------------------------------------- read-only learner data


@pytest.fixture
def learner_history(user, choice_question):
    attempt = Attempt.objects.create(user=user, lesson=choice_question.lesson, number=1, seed=42)
    option_ids = list(choice_question.options.values_list("pk", flat=True))
    AttemptItem.objects.create(attempt=attempt, question=choice_question, position=1, option_order=option_ids)
    now = timezone.now()
    card = ReviewCard.objects.create(user=user, question=choice_question, due=now + dt.timedelta(days=2))
    log = ReviewLog.objects.create(user=user, card=card, rating=ReviewLog.Rating.GOOD, reviewed_at=now)
    return attempt, card, log


@pytest.mark.django_db
@pytest.mark.parametrize("model", ["reviewcard", "reviewlog", "attempt"])
def test_learner_data_is_viewable_but_read_only(admin_client, learner_history, model):
    attempt, card, log = learner_history
    obj = {"reviewcard": card, "reviewlog": log, "attempt": attempt}[model]
    changelist = admin_client.get(reverse(f"admin:quizzes_{model}_changelist"))
    assert changelist.status_code == 200
    assert changelist.context["cl"].result_count == 1
    change_url = reverse(f"admin:quizzes_{model}_change", args=[obj.pk])
    page = admin_client.get(change_url)
    assert page.status_code == 200
    assert 'name="_save"' not in page.content.decode()  # a view page, no save button
    assert admin_client.post(change_url, {}).status_code == 403
    assert admin_client.get(reverse(f"admin:quizzes_{model}_add")).status_code == 403
    assert (
        admin_client.post(reverse(f"admin:quizzes_{model}_delete", args=[obj.pk]), {"post": "yes"}).status_code == 403
    )
    assert type(obj).objects.filter(pk=obj.pk).exists()


@pytest.mark.django_db
def test_attempt_page_lists_its_items(admin_client, learner_history, choice_question):
    attempt, _card, _log = learner_history
    page = admin_client.get(reverse("admin:quizzes_attempt_change", args=[attempt.pk]))
    assert choice_question.key in page_text(page)


@pytest.mark.django_db
def test_card_page_lists_its_logs(admin_client, learner_history):
    _attempt, card, _log = learner_history
    page = admin_client.get(reverse("admin:quizzes_reviewcard_change", args=[card.pk]))
    assert "Good" in page_text(page)


# --------------------------------------------------------------------------- history rules (same as load_lessons)


def change_post(question, **overrides) -> dict:
    """The change form for an existing choice question, options unchanged unless overridden."""
    options = list(question.options.order_by("order"))
    data = question_post(question.lesson, key=question.key, prompt=question.prompt)
    data.update({"options-TOTAL_FORMS": str(len(options)), "options-INITIAL_FORMS": str(len(options))})
    for index, option in enumerate(options):
        data.update(
            {
                f"options-{index}-id": str(option.pk),
                f"options-{index}-question": str(question.pk),
                f"options-{index}-order": str(option.order),
                f"options-{index}-key": option.key,
                f"options-{index}-text": option.text,
                f"options-{index}-feedback": option.feedback,
            }
        )
        if option.is_correct:
            data[f"options-{index}-is_correct"] = "on"
    data.update(overrides)
    return data


@pytest.mark.django_db
def test_an_option_learners_have_seen_cannot_be_deleted(admin_client, learner_history, choice_question):
    url = reverse("admin:quizzes_question_change", args=[choice_question.pk])
    response = admin_client.post(url, change_post(choice_question, **{"options-3-DELETE": "on"}))
    assert response.status_code == 200
    assert "Learners have been shown option(s)" in page_text(response)
    assert choice_question.options.count() == 4


@pytest.mark.django_db
def test_an_unseen_option_can_be_deleted(admin_client, choice_question):
    url = reverse("admin:quizzes_question_change", args=[choice_question.pk])
    response = admin_client.post(url, change_post(choice_question, **{"options-3-DELETE": "on"}))
    assert response.status_code == 302
    assert choice_question.options.count() == 3


@pytest.mark.django_db
def test_kind_of_a_question_with_history_cannot_change(admin_client, learner_history, choice_question):
    url = reverse("admin:quizzes_question_change", args=[choice_question.pk])
    data = change_post(choice_question, kind="recall", expected_lines="a\nb")
    response = admin_client.post(url, data)
    assert response.status_code == 200
    assert "its kind cannot change" in page_text(response)
    choice_question.refresh_from_db()
    assert choice_question.kind == "choice"


@pytest.mark.django_db
def test_numeric_preview_prints_shapes_as_python_does(admin_client, lesson):
    """(4,) for a vector, as on the learner's pages and in numpy: never (4)."""
    question = factories.NumericQuestionFactory(lesson=lesson)  # attention_row_weights: a vector of 4 weights
    text = page_text(admin_client.get(reverse("admin:quizzes_question_preview", args=[question.pk]), {"seed": 0}))
    assert "shape (4,) ·" in text
    assert "(4)" not in text
