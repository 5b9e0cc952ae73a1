"""The shared content filters, written once: "published", "quiz questions", "rateable", "has history".

A learner sees a question only when it *and its lesson* are published (``published()``); every
page, API endpoint, task and selector that means "what learners can see" calls these methods
instead of spelling the filter out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db import models
from django.db.models import Count, Exists, OuterRef, Q

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from quizzes.content.models import Lesson, Question  # noqa: F401 (named in the QuerySet[...] strings)


class LessonQuerySet(models.QuerySet["Lesson"]):
    def published(self) -> LessonQuerySet:
        """Lessons learners can see."""
        return self.filter(published=True)

    def with_question_total(self) -> LessonQuerySet:
        """Each lesson annotated with ``question_total``: all its questions, published or not (the admin's list)."""
        return self.annotate(question_total=Count("questions"))

    def with_question_count(self) -> LessonQuerySet:
        """Each lesson annotated with ``question_count``: its published questions."""
        return self.annotate(question_count=Count("questions", filter=Q(questions__published=True)))


class QuestionQuerySet(models.QuerySet["Question"]):
    def published(self) -> QuestionQuerySet:
        """Questions learners can see: the question and its lesson are published."""
        return self.filter(published=True, lesson__published=True)

    def marked_published(self) -> QuestionQuerySet:
        """Questions whose own flag is set, whatever their lesson's (the content loader's counts)."""
        return self.filter(published=True)

    def quiz(self) -> QuestionQuerySet:
        """Server-graded kinds (choice, numeric): the questions an attempt contains."""
        return self.filter(kind__in=self.model.QUIZ_KINDS)

    def self_rated(self) -> QuestionQuerySet:
        """Interview prompts and recall cards: answered in the learner's words, then self-rated."""
        return self.filter(kind__in=self.model.SELF_RATED_KINDS)

    def rateable(self) -> QuestionQuerySet:
        """Questions a learner may rate themselves on: published self-rated questions."""
        return self.published().self_rated()

    def unseen_by(self, user: User) -> QuestionQuerySet:
        """Questions the learner has no review card for (never answered or rated)."""
        return self.exclude(review_cards__user=user)

    def _history(self) -> Any:
        """True where some learner has an attempt item or a review card for the question.

        Through the reverse relations, so content needs no import of the practice or review models.
        """
        touched = self.model.objects.filter(pk=OuterRef("pk"))
        return Exists(touched.filter(attempt_items__isnull=False)) | Exists(touched.filter(review_cards__isnull=False))

    def with_history(self) -> QuestionQuerySet:
        """Annotated ``has_history`` (see ``touched``)."""
        return self.annotate(has_history=self._history())

    def touched(self) -> QuestionQuerySet:
        """Questions some learner has history with: they are unpublished when removed from the files, never deleted."""
        return self.filter(self._history())
