"""Review reminder e-mails: at most one per learner per local study day.

Who gets one: an active learner with an e-mail address who opted in
(``LearnerProfile.reminder_opt_in``), has reviews due today (``selectors.due_count``: the same
"today" and cap as the review page) and whose reminder hour has passed. "Today" is the learner's
study day (their time zone, starting at their rollover hour); the reminder moment of a study day
is the first ``reminder_hour``:00 local time after the day starts, so a reminder hour earlier than
the rollover hour means the early hours of the next calendar day, still the same study day.

Never twice: before sending, a ``ReminderDelivery(user, local_date)`` row is inserted and
committed; the UNIQUE (user, local_date) constraint lets exactly one concurrent run (or retry)
claim the day. The e-mail goes out only after the claim, then ``sent_at`` is stamped.
If sending raises (SMTP down, refused), nothing went out: the claim is deleted so the next beat
run tries again. If the process dies between sending and stamping, the row stays with
``sent_at`` NULL and is not retried: at most once, never twice.

Language: there is no per-learner language yet, so e-mails use settings.LANGUAGE_CODE
(templates exist for "en" and "zh-hans").
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass, field

from django.conf import settings
from django.contrib.auth.models import User
from django.core import signing
from django.core.mail import EmailMultiAlternatives
from django.db import IntegrityError, transaction
from django.template.loader import select_template
from django.urls import NoReverseMatch, reverse
from django.utils import timezone, translation

from quizzes.accounts.models import LearnerProfile
from quizzes.accounts.services import learner_profile_update
from quizzes.notifications.models import ReminderDelivery
from quizzes.notifications.selectors import UNSUBSCRIBE_SALT, learners_to_remind, unsubscribe_user_for_token
from quizzes.reviews import scheduling
from quizzes.reviews import selectors as review_selectors
from quizzes.reviews.models import ReviewCard

logger = logging.getLogger(__name__)

REVIEW_URL_NAME = "web:review_session"
REVIEW_URL_FALLBACK = "/review/"


@dataclass
class ReminderRun:
    """What one pass did (the task logs it; tests read it)."""

    sent: list[int] = field(default_factory=list)  # user ids
    failed: list[int] = field(default_factory=list)
    skipped: int = 0


def reminder_moment(*, profile: LearnerProfile, day: dt.date) -> dt.datetime:
    """When study day ``day``'s reminder becomes due (UTC): the first reminder_hour:00 after the day starts."""
    calendar_day = day if profile.reminder_hour >= profile.day_rollover_hour else day + dt.timedelta(days=1)
    local = dt.datetime.combine(calendar_day, dt.time(profile.reminder_hour), tzinfo=profile.zone)
    return local.astimezone(dt.UTC)


def reminder_is_due(*, profile: LearnerProfile, now: dt.datetime) -> tuple[bool, dt.date]:
    """Whether the reminder hour of the learner's current study day has passed, and that day."""
    today = scheduling.local_day(now, profile.zone, profile.day_rollover_hour)
    return now >= reminder_moment(profile=profile, day=today), today


def unsubscribe_token(*, user: User) -> str:
    return signing.TimestampSigner(salt=UNSUBSCRIBE_SALT).sign(str(user.pk))


def reminder_unsubscribe(*, token: str) -> User:
    """Turn reminders off for the learner the signed token names (idempotent)."""
    user = unsubscribe_user_for_token(token=token)
    learner_profile_update(user=user, reminder_opt_in=False)
    return user


def _absolute(path: str) -> str:
    return f"{settings.SITE_URL}{path}"


def review_url() -> str:
    try:
        return _absolute(reverse(REVIEW_URL_NAME))
    except NoReverseMatch:
        return _absolute(REVIEW_URL_FALLBACK)


def unsubscribe_url(*, user: User) -> str:
    return _absolute(reverse("reminder_unsubscribe", args=[unsubscribe_token(user=user)]))


def reminder_language() -> str:
    return settings.LANGUAGE_CODE


def reminder_message(*, user: User, due: int, lessons: list[str], day: dt.date) -> EmailMultiAlternatives:
    """The e-mail: subject, plain text + HTML, RFC 8058 one-click unsubscribe headers."""
    language = reminder_language()
    link = unsubscribe_url(user=user)
    context = {
        "user": user,
        "due": due,
        "lessons": lessons,
        "day": day,
        "review_url": review_url(),
        "unsubscribe_url": link,
        "site_url": settings.SITE_URL,
    }

    def render(name: str) -> str:
        template = select_template([f"email/{language}/{name}", f"email/en/{name}"])
        return template.render(context)

    with translation.override(language):
        subject = " ".join(render("reminder_subject.txt").split())
        text = render("reminder.txt")
        html = render("reminder.html")
    message = EmailMultiAlternatives(
        subject=subject,
        body=text,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[user.email],
        headers={"List-Unsubscribe": f"<{link}>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"},
    )
    message.attach_alternative(html, "text/html")
    return message


def _claim(*, user: User, day: dt.date, due: int, now: dt.datetime) -> ReminderDelivery | None:
    """Insert and commit the day's delivery row; None if another run already has it."""
    try:
        with transaction.atomic():
            return ReminderDelivery.objects.create(user=user, local_date=day, due_count=due, created_at=now)
    except IntegrityError:
        return None


def reminder_send_for(*, profile: LearnerProfile, now: dt.datetime) -> bool | None:
    """Send this learner's reminder if it is due and unsent: True sent, False failed, None nothing to do."""
    user = profile.user
    if not (profile.reminder_opt_in and user.is_active and user.email):
        return None
    passed, day = reminder_is_due(profile=profile, now=now)
    if not passed or ReminderDelivery.objects.filter(user=user, local_date=day).exists():
        return None
    cards = review_selectors.due_cards(user=user, now=now)
    if not cards:
        return None
    lessons = list(dict.fromkeys(card.question.lesson.title for card in sorted(cards, key=_lesson_order)))
    delivery = _claim(user=user, day=day, due=len(cards), now=now)
    if delivery is None:
        return None
    try:
        reminder_message(user=user, due=len(cards), lessons=lessons, day=day).send(fail_silently=False)
    except Exception:
        # Nothing was sent: release the claim so the next run retries. (Broad on purpose: any
        # backend error means "not sent", and one learner's failure must not stop the others.)
        logger.exception("reminder to user %s for %s not sent; will retry on the next run", user.pk, day)
        delivery.delete()
        return False
    ReminderDelivery.objects.filter(pk=delivery.pk).update(sent_at=timezone.now())
    LearnerProfile.objects.filter(pk=profile.pk).update(last_reminded_on=day)
    return True


def _lesson_order(card: ReviewCard) -> tuple[int, str]:
    lesson = card.question.lesson
    return (lesson.order, lesson.key)


def reminders_send_due(*, now: dt.datetime | None = None) -> ReminderRun:
    """One pass over opted-in learners (the periodic task). Safe to run concurrently and repeatedly."""
    now = now or timezone.now()
    run = ReminderRun()
    profiles = learners_to_remind()
    for profile in profiles.iterator(chunk_size=500):
        outcome = reminder_send_for(profile=profile, now=now)
        if outcome is True:
            run.sent.append(profile.user_id)
        elif outcome is False:
            run.failed.append(profile.user_id)
        else:
            run.skipped += 1
    return run
