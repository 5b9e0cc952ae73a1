"""Content import (quizzes.content reader, writer, pruning; load_lessons): idempotent upsert, history kept."""

from __future__ import annotations

import io
import textwrap
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from quizzes.content.report import ContentError
from quizzes.content.writer import content_load
from quizzes.models import Attempt, AttemptItem, Lesson, Option, Question, ReviewCard, ReviewLog
from quizzes.practice.services.answers import item_answer
from quizzes.practice.services.attempts import attempt_start

LESSON = """\
key: demo
title: 演示课
order: 1
summary: 一节用于测试的小课。
questions:
  - key: demo-why-scale
    kind: choice
    prompt: 为什么除以 $\\sqrt{d_k}$？
    explanation: 点积方差为 $d_k$。
    options:
      - key: a
        text: 方差缩回 1
        correct: true
        feedback: 对。
      - key: b
        text: 让行和为 1
        feedback: 那是 softmax 的事。
      - key: c
        text: 减少计算量
        feedback: 缩放不省计算。
  - key: demo-mask
    kind: choice
    prompt: 掩码填什么？
    options:
      - key: a
        text: $-\\infty$
        correct: true
        feedback: 对。
      - key: b
        text: "-1"
        feedback: 填 -1 的误区。
  - key: demo-interview
    kind: prompt
    prompt: 写出公式。
    reference_answer: softmax(QK^T/sqrt(d_k))V
    rubric:
      - 公式
      - 形状
  - key: demo-recall
    kind: recall
    prompt: 默写三行。
    expected_lines:
      - scores = Q @ K.T / np.sqrt(d_k)
      - mask = np.triu(np.ones((T, T), dtype=bool), k=1)
      - weights = softmax(scores)
"""


OPTION_C = "      - key: c\n        text: 减少计算量\n        feedback: 缩放不省计算。\n"
C_FEEDBACK = "        feedback: 缩放不省计算。\n"


@pytest.fixture
def lesson_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "lessons"
    directory.mkdir()
    (directory / "demo.yaml").write_text(LESSON, encoding="utf-8")
    return directory


def rewrite(directory: Path, old: str, new: str, name: str = "demo.yaml") -> None:
    path = directory / name
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def drop_question(directory: Path, key: str, name: str = "demo.yaml") -> None:
    """Remove one question block (from its '- key:' line to the next question) from a lesson file."""
    lines = (directory / name).read_text(encoding="utf-8").splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.strip() == f"- key: {key}")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("  - key:")), len(lines))
    (directory / name).write_text("".join(lines[:start] + lines[end:]), encoding="utf-8")


def snapshot() -> dict:
    return {
        "lessons": sorted(Lesson.objects.values_list("pk", "key", "published", "updated_at")),
        "questions": sorted(Question.objects.values_list("pk", "key", "published", "order", "updated_at")),
        "options": sorted(Option.objects.values_list("pk", "question_id", "key", "text", "is_correct", "order")),
    }


def history_rows() -> tuple:
    return (
        sorted(Attempt.objects.values_list("pk", "number")),
        sorted(AttemptItem.objects.values_list("pk", "question_id", "option_order", "chosen_option_id", "is_correct")),
        sorted(ReviewCard.objects.values_list("pk", "question_id", "due")),
        sorted(ReviewLog.objects.values_list("pk", "card_id", "rating", "reviewed_at")),
    )


def answer_everything(user, lesson_key: str = "demo") -> Attempt:
    """Give a learner real history through the services: an attempt, answered items, cards and logs."""
    attempt = attempt_start(user=user, lesson=Lesson.objects.get(key=lesson_key))
    for item in attempt.items.select_related("question"):
        item_answer(user=user, item=item, option_id=item.option_order[0])
    return attempt


# --------------------------------------------------------------------------- upsert


@pytest.mark.django_db
def test_first_load_creates_everything(lesson_dir):
    report = content_load(directory=lesson_dir)
    assert (report.lessons.created, report.questions.created, report.options.created) == (1, 4, 5)
    lesson = Lesson.objects.get(key="demo")
    assert lesson.title == "演示课" and lesson.order == 1 and lesson.published
    keys = list(lesson.questions.order_by("order").values_list("key", flat=True))
    assert keys == ["demo-why-scale", "demo-mask", "demo-interview", "demo-recall"]
    mask = Question.objects.get(key="demo-mask")
    assert [(o.key, o.text, o.is_correct) for o in mask.options.order_by("order")] == [
        ("a", "$-\\infty$", True),
        ("b", "-1", False),
    ]
    assert Question.objects.get(key="demo-interview").rubric == ["公式", "形状"]
    assert Question.objects.get(key="demo-recall").expected_lines[2] == "weights = softmax(scores)"


@pytest.mark.django_db
def test_loading_twice_changes_nothing(lesson_dir):
    content_load(directory=lesson_dir)
    before = snapshot()
    report = content_load(directory=lesson_dir)
    assert not report.changed
    assert (report.lessons.unchanged, report.questions.unchanged, report.options.unchanged) == (1, 4, 5)
    assert report.questions.created == report.questions.updated == report.questions.deleted == 0
    assert snapshot() == before  # same rows, same pks, updated_at untouched


@pytest.mark.django_db
def test_editing_a_text_updates_in_place(lesson_dir):
    content_load(directory=lesson_dir)
    question = Question.objects.get(key="demo-why-scale")
    option = question.options.get(key="b")
    rewrite(lesson_dir, "prompt: 为什么除以", "prompt: 究竟为什么除以")
    rewrite(lesson_dir, "feedback: 那是 softmax 的事。", "feedback: 行和为 1 是 softmax 保证的。")

    report = content_load(directory=lesson_dir)

    assert (report.questions.updated, report.questions.unchanged) == (1, 3)
    assert (report.options.updated, report.options.unchanged) == (1, 4)
    edited = Question.objects.get(key="demo-why-scale")
    assert edited.pk == question.pk
    assert edited.prompt.startswith("究竟为什么除以")
    assert edited.updated_at > question.updated_at
    assert Option.objects.get(pk=option.pk).feedback == "行和为 1 是 softmax 保证的。"


@pytest.mark.django_db
def test_reordering_questions_updates_order_only(lesson_dir):
    content_load(directory=lesson_dir)
    pks = dict(Question.objects.values_list("key", "pk"))
    drop_question(lesson_dir, "demo-why-scale")
    block = LESSON[LESSON.index("  - key: demo-why-scale") : LESSON.index("  - key: demo-mask")]
    (lesson_dir / "demo.yaml").write_text((lesson_dir / "demo.yaml").read_text() + block, encoding="utf-8")

    content_load(directory=lesson_dir)

    assert dict(Question.objects.values_list("key", "pk")) == pks
    assert Question.objects.get(key="demo-why-scale").order == 4
    assert Question.objects.get(key="demo-mask").order == 1


# --------------------------------------------------------------------------- removal


@pytest.mark.django_db
def test_removed_question_with_history_is_unpublished_and_history_intact(lesson_dir, user):
    content_load(directory=lesson_dir)
    answer_everything(user)
    question = Question.objects.get(key="demo-why-scale")
    assert AttemptItem.objects.filter(question=question).exists()
    assert ReviewCard.objects.filter(question=question).exists()
    before = history_rows()
    assert all(before)

    drop_question(lesson_dir, "demo-why-scale")
    report = content_load(directory=lesson_dir)

    assert report.questions.unpublished == 1 and report.questions.deleted == 0
    question.refresh_from_db()
    assert question.published is False
    assert question.options.count() == 3  # its options stay: old attempts still show them
    assert history_rows() == before
    # a new attempt no longer contains it
    attempt = attempt_start(user=user, lesson=question.lesson)
    assert not attempt.items.filter(question=question).exists()

    # loading again is a no-op; putting it back republishes the same row
    assert not content_load(directory=lesson_dir).changed
    (lesson_dir / "demo.yaml").write_text(LESSON, encoding="utf-8")
    report = content_load(directory=lesson_dir)
    assert report.questions.created == 0  # republished, and the others moved back to their old positions
    assert Question.objects.get(key="demo-why-scale", pk=question.pk).published


@pytest.mark.django_db
def test_removed_question_without_history_is_deleted(lesson_dir):
    content_load(directory=lesson_dir)
    drop_question(lesson_dir, "demo-recall")
    report = content_load(directory=lesson_dir)
    assert report.questions.deleted == 1
    assert not Question.objects.filter(key="demo-recall").exists()


@pytest.mark.django_db
def test_removed_option_not_shown_to_anyone_is_deleted(lesson_dir):
    content_load(directory=lesson_dir)
    rewrite(lesson_dir, OPTION_C, "")
    report = content_load(directory=lesson_dir)
    assert report.options.deleted == 1
    assert list(Question.objects.get(key="demo-why-scale").options.values_list("key", flat=True)) == ["a", "b"]


@pytest.mark.django_db
def test_removing_an_option_learners_have_seen_retires_it_and_keeps_their_history(lesson_dir, user):
    content_load(directory=lesson_dir)
    old = answer_everything(user)
    question = Question.objects.get(key="demo-why-scale")
    option_c = question.options.get(key="c")
    old_item = old.items.get(question=question)
    assert option_c.pk in old_item.option_order
    history = history_rows()
    rewrite(lesson_dir, OPTION_C, "")
    rewrite(lesson_dir, "prompt: 掩码填什么？", "prompt: 掩码到底填什么？")  # another edit in the same load

    report = content_load(directory=lesson_dir)

    assert (report.options.retired, report.options.deleted) == (1, 0)
    assert "options: created 0, updated 0, unchanged 4, unpublished 0, deleted 0, retired 1" in report.lines()
    option_c.refresh_from_db()
    assert option_c.retired and option_c.text == "减少计算量"  # kept, with what the learner saw
    assert history_rows() == history  # the old attempt still lists it, the chosen option is untouched
    assert Question.objects.get(key="demo-mask").prompt == "掩码到底填什么？"
    new_item = attempt_start(user=user, lesson=question.lesson).items.get(question=question)
    assert sorted(new_item.option_order) == sorted(question.options.exclude(key="c").values_list("pk", flat=True))

    # loading the same files again changes nothing; putting the option back revives the same row
    assert not content_load(directory=lesson_dir).changed
    (lesson_dir / "demo.yaml").write_text(LESSON, encoding="utf-8")
    report = content_load(directory=lesson_dir)
    assert (report.options.created, report.options.retired) == (0, 0)
    assert report.options.updated == 1  # c, revived
    option_c.refresh_from_db()
    assert not option_c.retired
    new_item = attempt_start(user=user, lesson=question.lesson).items.get(question=question)
    assert option_c.pk in new_item.option_order


@pytest.mark.django_db
def test_an_option_retired_in_the_file_stays_listed_and_is_hidden_from_new_attempts(lesson_dir, user):
    content_load(directory=lesson_dir)
    rewrite(lesson_dir, C_FEEDBACK, C_FEEDBACK + "        retired: true\n")

    report = content_load(directory=lesson_dir)

    assert (report.options.retired, report.options.updated, report.options.deleted) == (1, 0, 0)
    question = Question.objects.get(key="demo-why-scale")
    assert list(question.options.filter(retired=True).values_list("key", flat=True)) == ["c"]
    item = attempt_start(user=user, lesson=question.lesson).items.get(question=question)
    assert sorted(question.options.filter(pk__in=item.option_order).values_list("key", flat=True)) == ["a", "b"]
    assert not content_load(directory=lesson_dir).changed  # still retired: nothing to do

    rewrite(lesson_dir, "        retired: true\n", "        retired: false\n")
    report = content_load(directory=lesson_dir)
    assert (report.options.retired, report.options.updated) == (0, 1)
    assert not question.options.filter(retired=True).exists()


@pytest.mark.django_db
def test_a_retired_option_nobody_saw_is_deleted_when_it_leaves_the_file(lesson_dir):
    content_load(directory=lesson_dir)
    rewrite(lesson_dir, C_FEEDBACK, C_FEEDBACK + "        retired: true\n")
    content_load(directory=lesson_dir)
    rewrite(lesson_dir, OPTION_C + "        retired: true\n", "")
    report = content_load(directory=lesson_dir)
    assert (report.options.deleted, report.options.retired) == (1, 0)
    assert not Option.objects.filter(question__key="demo-why-scale", key="c").exists()


@pytest.mark.django_db
def test_validate_only_counts_retirements_without_writing(lesson_dir, user):
    content_load(directory=lesson_dir)
    answer_everything(user)
    rewrite(lesson_dir, OPTION_C, "")
    report = content_load(directory=lesson_dir, validate_only=True)
    assert report.options.retired == 1 and report.changed
    assert not Option.objects.filter(retired=True).exists()


@pytest.mark.django_db
def test_option_rules_count_live_options_only(lesson_dir):
    correct_a = "        correct: true\n        feedback: 对。\n"
    rewrite(lesson_dir, correct_a, correct_a + "        retired: true\n")
    rewrite(lesson_dir, '        text: "-1"\n', '        text: "-1"\n        retired: true\n')
    with pytest.raises(ContentError) as excinfo:
        content_load(directory=lesson_dir)
    problems = [str(p) for p in excinfo.value.problems]
    assert (
        "demo.yaml, lesson 'demo', question 'demo-why-scale': "
        "A choice question needs exactly one correct option (found 0)." in problems
    )
    assert "demo.yaml, lesson 'demo', question 'demo-mask': A choice question needs at least two options." in problems
    assert Option.objects.count() == 0


@pytest.mark.django_db
def test_retired_must_be_true_or_false(lesson_dir):
    rewrite(lesson_dir, C_FEEDBACK, C_FEEDBACK + "        retired: maybe\n")
    with pytest.raises(ContentError, match=r"option 'c': 'retired' must be true or false, got 'maybe'"):
        content_load(directory=lesson_dir)


@pytest.mark.django_db
def test_changing_the_kind_of_a_question_with_history_is_refused(lesson_dir, user):
    content_load(directory=lesson_dir)
    answer_everything(user)
    drop_question(lesson_dir, "demo-mask")
    path = lesson_dir / "demo.yaml"
    path.write_text(
        path.read_text() + "  - key: demo-mask\n    kind: recall\n    prompt: 默写。\n    expected_lines:\n      - x\n",
        encoding="utf-8",
    )
    with pytest.raises(ContentError, match=r"question 'demo-mask': kind changed from choice to recall"):
        content_load(directory=lesson_dir)


@pytest.mark.django_db
def test_removed_lesson_with_history_is_unpublished(lesson_dir, user):
    content_load(directory=lesson_dir)
    answer_everything(user)
    other = lesson_dir / "other.yaml"
    other.write_text(LESSON.replace("key: demo", "key: other").replace("key: demo-", "key: other-"), encoding="utf-8")
    (lesson_dir / "demo.yaml").unlink()
    history = history_rows()

    report = content_load(directory=lesson_dir)

    assert report.lessons.unpublished == 1
    assert report.questions.unpublished == 2  # the two answered choice questions
    assert report.questions.deleted == 2  # the prompt and recall nobody touched
    assert Lesson.objects.get(key="demo").published is False
    assert history_rows() == history


@pytest.mark.django_db
def test_no_prune_leaves_missing_rows_alone(lesson_dir):
    content_load(directory=lesson_dir)
    drop_question(lesson_dir, "demo-recall")
    report = content_load(directory=lesson_dir, prune=False)
    assert report.questions.deleted == 0
    assert Question.objects.get(key="demo-recall").published


# --------------------------------------------------------------------------- validation before writing


@pytest.mark.django_db
def test_invalid_files_name_file_lesson_question_and_write_nothing(lesson_dir):
    rewrite(lesson_dir, "        text: 让行和为 1\n", "        text: 让行和为 1\n        correct: true\n")
    (lesson_dir / "broken.yaml").write_text("key: broken\nquestions: [\n", encoding="utf-8")
    (lesson_dir / "more.yaml").write_text(
        textwrap.dedent(
            """\
            key: more
            title: 更多
            order: 2
            questions:
              - key: demo-mask
                kind: choice
                prompt: 重复的键
                options:
                  - {key: a, text: x, correct: true}
                  - {key: b, text: y}
              - key: more-one-option
                kind: choice
                prompt: 只有一个选项
                options:
                  - {key: a, text: x, correct: true}
              - key: more-interview
                kind: prompt
                prompt: 缺少参考答案
                rubric: [a]
                colour: blue
            """
        ),
        encoding="utf-8",
    )

    with pytest.raises(ContentError) as excinfo:
        content_load(directory=lesson_dir)

    problems = [str(p) for p in excinfo.value.problems]
    text = "\n".join(problems)
    assert "broken.yaml: not valid YAML" in text
    assert (
        "demo.yaml, lesson 'demo', question 'demo-why-scale': "
        "A choice question needs exactly one correct option (found 2)." in problems
    )
    assert any(p.startswith("more.yaml, lesson 'more', question 'demo-mask': duplicate question key") for p in problems)
    assert (
        "more.yaml, lesson 'more', question 'more-one-option': A choice question needs at least two options."
        in problems
    )
    assert any("question 'more-interview'" in p and "reference_answer" in p for p in problems)
    assert any("question 'more-interview'" in p and "unknown field(s) colour" in p for p in problems)
    assert Lesson.objects.count() == 0 and Question.objects.count() == 0 and Option.objects.count() == 0


@pytest.mark.django_db
def test_wrong_types_are_reported_with_a_hint(lesson_dir):
    rewrite(lesson_dir, 'text: "-1"', "text: -1")
    with pytest.raises(ContentError, match=r"option 'b': 'text' must be text, got int -1 \(quote it in YAML\)"):
        content_load(directory=lesson_dir)


@pytest.mark.django_db
def test_numeric_question_is_validated_by_the_domain_rule(lesson_dir):
    path = lesson_dir / "demo.yaml"
    path.write_text(
        path.read_text()
        + "  - key: demo-numeric\n    kind: numeric\n    template: no_such_template\n"
        + "    answer_form: input\n    prompt: 算一算。\n",
        encoding="utf-8",
    )
    with pytest.raises(ContentError, match=r"question 'demo-numeric': template: Unknown template no_such_template"):
        content_load(directory=lesson_dir)
    assert Lesson.objects.count() == 0


@pytest.mark.django_db
def test_validate_only_writes_nothing(lesson_dir):
    report = content_load(directory=lesson_dir, validate_only=True)
    assert report.questions.created == 4 and not report.written
    assert Question.objects.count() == 0


# --------------------------------------------------------------------------- commands


@pytest.mark.django_db
def test_load_lessons_command_reports_counts(lesson_dir):
    out = io.StringIO()
    call_command("load_lessons", "--dir", str(lesson_dir), stdout=out)
    assert "questions: created 4, updated 0, unchanged 0, unpublished 0, deleted 0" in out.getvalue()
    out = io.StringIO()
    call_command("load_lessons", "--dir", str(lesson_dir), stdout=out)
    assert "questions: created 0, updated 0, unchanged 4" in out.getvalue()
    assert "no changes" in out.getvalue()


@pytest.mark.django_db
def test_load_lessons_command_fails_with_the_problems(lesson_dir):
    rewrite(lesson_dir, "title: 演示课\n", "")
    with pytest.raises(CommandError, match=r"demo.yaml, lesson 'demo': 'title' is required"):
        call_command("load_lessons", "--dir", str(lesson_dir), stdout=io.StringIO())


@pytest.mark.django_db
def test_seed_demo_is_idempotent_and_uses_the_environment(monkeypatch):
    from django.contrib.auth import get_user_model

    out = io.StringIO()
    call_command("seed_demo", stdout=out)
    call_command("seed_demo", stdout=out)
    users = get_user_model().objects
    assert users.count() == 2
    learner, admin = users.get(username="demo"), users.get(username="admin")
    assert learner.check_password("demo-pass") and not learner.is_staff
    assert admin.check_password("admin-pass") and admin.is_staff and admin.is_superuser
    assert hasattr(learner, "learner_profile")
    assert "username=demo password=demo-pass" in out.getvalue()

    monkeypatch.setenv("DEMO_PASSWORD", "s3cret-demo")
    call_command("seed_demo", stdout=io.StringIO())
    assert users.get(username="demo").check_password("s3cret-demo")
    assert users.count() == 2


# --------------------------------------------------------------------------- the real lesson files


REQUIRED = {
    "sdpa": {"choice": 8, "numeric": 5, "prompt": 2, "code": 3},
    "six-questions": {"choice": 8, "numeric": 7, "prompt": 2},
    "nanogpt-attention": {"choice": 8, "numeric": 3, "prompt": 2, "code": 2},
    "positional": {"choice": 8, "prompt": 3},
    "mha-module": {"choice": 8, "prompt": 3},
    "cost-accounting": {"choice": 8, "prompt": 3},
    "inference-serving": {"choice": 8, "prompt": 3},
}
SIX_QUESTION_TEMPLATES = {
    "rnn_gradient_decay",
    "attention_output",
    "causal_masked_weights",
    "mask_fill_zero_contrast",
    "bert_gpt_positions",
    "head_dimension",
    "kv_cache_savings",
}


def test_real_lessons_have_the_required_questions(real_lessons):
    counts = real_lessons.counts
    assert set(counts) == set(REQUIRED)
    for lesson, required in REQUIRED.items():
        for kind, minimum in required.items():
            assert counts[lesson][kind] >= minimum, (lesson, kind, counts[lesson])
    assert real_lessons.lesson_keys == list(REQUIRED)
    templates = {q["template"] for q in real_lessons.of(lesson="six-questions")}
    assert templates >= SIX_QUESTION_TEMPLATES


def test_real_choice_questions_have_one_correct_and_feedback_on_every_wrong_option(real_lessons):
    for question in real_lessons.of(kind="choice"):
        options = question["options"]
        assert len(options) >= 3, question["key"]
        assert sum(o["is_correct"] for o in options) == 1, question["key"]
        assert all(o["feedback"].strip() for o in options if not o["is_correct"]), question["key"]
        assert question["explanation"].strip(), question["key"]


def test_real_numeric_questions_generate(real_lessons):
    from attention_engine import generators

    numeric = real_lessons.of(kind="numeric")
    assert numeric
    for question in numeric:
        for seed in (0, 7, 12345):
            variant = generators.generate(question["template"], seed, **question["params"])
            assert variant.solution, question["key"]
            if question["answer_form"] == "choice":
                assert len(variant.choices) >= 2, question["key"]


@pytest.mark.django_db
def test_real_lessons_load_twice_without_change():
    assert content_load().questions.created > 0
    before = snapshot()
    report = content_load()
    assert not report.changed
    assert snapshot() == before


def test_lesson_keys_are_unique_and_prefixed():
    """Question keys are global: each file prefixes its keys (l1-, l2-, l3-) so they never collide."""
    import yaml

    from quizzes.content.reader import DEFAULT_LESSONS_DIR, lesson_files

    seen: set[str] = set()
    for path in lesson_files(DEFAULT_LESSONS_DIR):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        prefix = f"l{data['order']}-"
        for question in data["questions"]:
            assert question["key"].startswith(prefix), question["key"]
            assert question["key"] not in seen
            seen.add(question["key"])
