"""The one obvious next step for a learner: what the dashboard's primary button, every end screen and the
API's ``next-step`` operation offer. One rule, read in this order:

1. reviews are due today → review them (how many);
2. a study or missed-items attempt is open with items left → continue it;
3. something in the lessons was never studied → continue at the first such place, in lesson order: the
   lesson's quiz (its page teaches, then tests), else its next interview prompt, else its recall card;
4. otherwise → wait: when the next review falls due (None when nothing is scheduled and nothing is left).

Read-only, scoped to the learner. Interfaces turn a step into their own links (pages) or ids (API).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from enum import StrEnum

from django.contrib.auth.models import User
from django.utils import timezone

from quizzes.accounts.selectors import profile_for
from quizzes.content.models import Lesson, Question
from quizzes.practice.models import Attempt
from quizzes.practice.selectors import study_attempt_open
from quizzes.reviews.selectors.cards import next_review_at
from quizzes.reviews.selectors.due import due_count, first_unseen_question


class NextStepKind(StrEnum):
    REVIEW = "review"  # reviews due today: the review session
    ATTEMPT = "attempt"  # continue an open attempt
    LESSON = "lesson"  # a lesson whose quiz was never taken: its page, then the quiz
    PROMPT = "prompt"  # an interview prompt never rated
    RECALL = "recall"  # a recall card never rated
    WAIT = "wait"  # all caught up: the next review is at ``next_review`` (None: nothing scheduled)


@dataclass(frozen=True)
class NextStep:
    kind: NextStepKind
    due: int = 0  # cards due today (kind REVIEW)
    lesson: Lesson | None = None  # ATTEMPT, LESSON, PROMPT, RECALL
    attempt: Attempt | None = None  # ATTEMPT
    question: Question | None = None  # LESSON (its first unstudied quiz question), PROMPT, RECALL
    next_review: dt.datetime | None = None  # WAIT


_KIND_OF_QUESTION = {
    Question.Kind.PROMPT: NextStepKind.PROMPT,
    Question.Kind.RECALL: NextStepKind.RECALL,
}


def next_step_for(*, user: User, now: dt.datetime | None = None, due: int | None = None) -> NextStep:
    """What this learner should do now (see the module's rule). ``due``: today's due count if the caller has it."""
    now = now or timezone.now()
    if due is None:
        due = due_count(user=user, now=now, profile=profile_for(user=user))
    if due:
        return NextStep(kind=NextStepKind.REVIEW, due=due)
    attempt = study_attempt_open(user=user)
    if attempt is not None:
        return NextStep(kind=NextStepKind.ATTEMPT, lesson=attempt.lesson, attempt=attempt)
    question = first_unseen_question(user=user)
    if question is not None:
        kind = _KIND_OF_QUESTION.get(Question.Kind(question.kind), NextStepKind.LESSON)
        return NextStep(kind=kind, lesson=question.lesson, question=question)
    return NextStep(kind=NextStepKind.WAIT, next_review=next_review_at(user=user))
