"""factory_boy factories for the quiz domain. Content is minimal but valid for its kind."""

from __future__ import annotations

import datetime as dt

import factory
from django.contrib.auth import get_user_model

from quizzes.models import LearnerProfile, Lesson, Option, Question

DEFAULT_NUMERIC_TEMPLATE = "attention_row_weights"
PASSWORD = "pw-for-tests"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()

    username = factory.Sequence(lambda n: f"learner{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.com")
    password = factory.django.Password(PASSWORD)


class LearnerProfileFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = LearnerProfile

    user = factory.SubFactory(UserFactory)
    time_zone = "UTC"
    day_rollover_hour = 4


class LessonFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Lesson

    key = factory.Sequence(lambda n: f"lesson-{n}")
    title = factory.Sequence(lambda n: f"第 {n} 课")
    summary = "缩放点积注意力"
    order = factory.Sequence(lambda n: n)
    published = True


class QuestionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Question

    lesson = factory.SubFactory(LessonFactory)
    key = factory.Sequence(lambda n: f"q-{n}")
    kind = Question.Kind.CHOICE
    prompt = "为什么要除以 $\\sqrt{d_k}$？"
    explanation = "点积的方差随 $d_k$ 增长。"
    order = factory.Sequence(lambda n: n)
    published = True


class OptionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Option

    question = factory.SubFactory(QuestionFactory)
    key = factory.Sequence(lambda n: f"o{n}")
    text = factory.Sequence(lambda n: f"选项 {n}")
    is_correct = False
    feedback = factory.Sequence(lambda n: f"反馈 {n}")
    order = factory.Sequence(lambda n: n)


class ChoiceQuestionFactory(QuestionFactory):
    """A choice question; ``options=n`` creates n options, the first one correct."""

    class Meta:
        skip_postgeneration_save = True

    @factory.post_generation
    def options(self, create: bool, extracted: int | None, **kwargs) -> None:
        if not create:
            return
        for index in range(4 if extracted is None else extracted):
            OptionFactory(
                question=self,
                key=f"{self.key}-{'abcdefgh'[index]}",
                is_correct=index == 0,
                order=index,
                feedback=f"{self.key} 选项 {index} 的反馈",
            )


class NumericQuestionFactory(QuestionFactory):
    kind = Question.Kind.NUMERIC
    template = DEFAULT_NUMERIC_TEMPLATE
    params = factory.LazyFunction(dict)
    answer_form = Question.AnswerForm.INPUT


class NumberQuestionFactory(QuestionFactory):
    """A number question (one literal answer, its tolerance and unit)."""

    kind = Question.Kind.NUMBER
    prompt = "$d_{model} = 512$，$n_{head} = 8$，每个头的维度 $d_k$ 是多少？"
    explanation = "$d_k = d_{model} / n_{head} = 64$。"
    number_answer = 64.0
    number_tolerance = 0.0
    number_unit = ""


class PromptQuestionFactory(QuestionFactory):
    kind = Question.Kind.PROMPT
    reference_answer = "防止 softmax 饱和。"
    rubric = factory.LazyFunction(lambda: ["方差随 d_k 增长", "softmax 饱和、梯度消失"])


class RecallQuestionFactory(QuestionFactory):
    kind = Question.Kind.RECALL
    expected_lines = factory.LazyFunction(
        lambda: [
            "scores = q @ k.T / sqrt(d_k)",
            "scores = scores.masked_fill(~mask, -inf)",
            "weights = softmax(scores, axis=-1)",
        ]
    )


class CodeQuestionFactory(QuestionFactory):
    """A code question on a built-in spec (``code_spec="stable_softmax"`` for another)."""

    kind = Question.Kind.CODE
    code_spec = "sdpa_three_lines"
    prompt = "写出练习里的 3 行 TODO。"


def utc(*args: int) -> dt.datetime:
    """An aware UTC datetime: utc(2025, 3, 10, 14)."""
    return dt.datetime(*args, tzinfo=dt.UTC)
