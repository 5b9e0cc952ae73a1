"""Review reminders — a push to the learner's devices, or an e-mail: at most one per learner per local study day.

How: ``LearnerProfile.reminder_channel``. ``push`` sends to the learner's signed-in devices with a push registration
(quizzes.notifications.push) and falls back to e-mail when none takes it (no device registered, or every push
failed); ``email`` sends the e-mail only. Either way it is one reminder, under the one claim below.

Who gets one: an active learner who opted in (``LearnerProfile.reminder_opt_in``) with somewhere to send it (an
e-mail address, or for ``push`` a device that gets pushes), has reviews due today (``selectors.due_count``: the same
"today" and cap as the review page) and whose reminder hour has passed. "Today" is the learner's
study day (their time zone, starting at their rollover hour); the reminder moment of a study day
is the first ``reminder_hour``:00 local time after the day starts, so a reminder hour earlier than
the rollover hour means the early hours of the next calendar day, still the same study day.

Never twice: before sending, a ``ReminderDelivery(user, local_date)`` row is inserted and
committed; the UNIQUE (user, local_date) constraint lets exactly one concurrent run (or retry)
claim the day. The reminder goes out only after the claim, then ``sent_at`` and the channel are stamped.
If nothing went out (no device took the push and the e-mail failed), the claim is deleted so the next beat
run tries again. If the process dies between sending and stamping, the row stays with
``sent_at`` NULL and is not retried: at most once, never twice.

The pass costs O(learners due now), spread over every worker: each learner's reminder clock
(``LearnerProfile.next_reminder_at``, quizzes.reviews.reminder_clock) is never later than their next
reminder could be due, so the beat task takes only ``next_reminder_at <= now`` in one indexed
``UPDATE … RETURNING`` (``reminders_take_due``, which also leases them for ``REMINDER_LEASE`` so a
duplicate beat takes nobody), cuts the ids into chunks of ``REMINDER_CHUNK`` and enqueues one task per
chunk (a Celery group: any worker takes any chunk). Each chunk looks at its learners as above — claim,
send, stamp — and sets each one's clock to their next moment. A chunk lost with its worker is retaken
when the lease runs out; at worst it is looked at twice, and the claim still sends once.

Language: there is no per-learner language yet, so e-mails use settings.LANGUAGE_CODE
(templates exist for "en" and "zh-hans").
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core import signing
from django.core.mail import EmailMultiAlternatives, get_connection
from django.core.mail.backends.base import BaseEmailBackend
from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.template.loader import select_template
from django.urls import NoReverseMatch, reverse
from django.utils import timezone, translation

from quizzes.accounts.models import LearnerProfile, ReminderChannel
from quizzes.accounts.services import learner_profile_update
from quizzes.notifications import push
from quizzes.notifications.models import ReminderDelivery
from quizzes.notifications.selectors import UNSUBSCRIBE_SALT, unsubscribe_user_for_token
from quizzes.reviews import scheduling
from quizzes.reviews.models import ReviewCard
from quizzes.reviews.reminder_clock import reminder_clock_after_check
from quizzes.reviews.selectors.due import due_cards

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
    return scheduling.reminder_moment(day, profile.zone, profile.day_rollover_hour, profile.reminder_hour)


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


def _send_email(*, user: User, due: int, lessons: list[str], day: dt.date, connection: BaseEmailBackend | None) -> bool:
    """The reminder e-mail; False (logged) if the backend raised — nothing was sent then."""
    try:
        message = reminder_message(user=user, due=due, lessons=lessons, day=day)
        if connection is not None:
            connection.open()  # kept open for the next learner of the chunk (a no-op once open)
        message.connection = connection
        message.send(fail_silently=False)
    except Exception:
        # Broad on purpose: any backend error means "not sent", and one learner's failure must not stop the others.
        logger.exception("reminder e-mail to user %s for %s not sent", user.pk, day)
        if connection is not None:
            with contextlib.suppress(Exception):  # the next learner reconnects
                connection.close()
        return False
    return True


def _send_push(*, user: User, due: int, day: dt.date, devices: list[Any]) -> bool:
    with translation.override(reminder_language()):
        message = push.reminder_push_message(due=due, day=day, url=review_url())
    result = push.push_send(user=user, message=message, devices=devices)
    if result.failed or result.removed:
        logger.info("reminder push to user %s: %s", user.pk, result)
    return result.delivered > 0


def reminder_send_for(
    *, profile: LearnerProfile, now: dt.datetime, connection: BaseEmailBackend | None = None
) -> bool | None:
    """Send this learner's reminder if it is due and unsent: True sent, False failed, None nothing to do."""
    user = profile.user
    wants_push = profile.reminder_channel == ReminderChannel.PUSH
    if not (profile.reminder_opt_in and user.is_active and (user.email or wants_push)):
        return None
    passed, day = reminder_is_due(profile=profile, now=now)
    if not passed or ReminderDelivery.objects.filter(user=user, local_date=day).exists():
        return None
    devices = push.push_targets(user=user) if wants_push else []
    if not (devices or user.email):
        return None
    cards = due_cards(user=user, now=now)
    if not cards:
        return None
    lessons = list(dict.fromkeys(card.question.lesson.title for card in sorted(cards, key=_lesson_order)))
    delivery = _claim(user=user, day=day, due=len(cards), now=now)
    if delivery is None:
        return None
    channel = ""
    if devices and _send_push(user=user, due=len(cards), day=day, devices=devices):
        channel = ReminderChannel.PUSH
    elif user.email and _send_email(user=user, due=len(cards), lessons=lessons, day=day, connection=connection):
        channel = ReminderChannel.EMAIL
    if not channel:  # nothing went out: release the claim so the next run retries
        logger.warning("reminder to user %s for %s not sent; will retry on the next run", user.pk, day)
        delivery.delete()
        return False
    ReminderDelivery.objects.filter(pk=delivery.pk).update(sent_at=timezone.now(), channel=channel)
    LearnerProfile.objects.filter(pk=profile.pk).update(last_reminded_on=day)
    return True


def _lesson_order(card: ReviewCard) -> tuple[int, str]:
    lesson = card.question.lesson
    return (lesson.order, lesson.key)


#: How long the learners a pass took stay out of the next passes while their chunk waits for a worker: a
#: duplicate beat finds nobody; a chunk lost with its worker is taken again by the first pass after this.
REMINDER_LEASE = dt.timedelta(minutes=30)

#: Learners per chunk task (one SMTP connection each).
REMINDER_CHUNK = 500


def reminders_take_due(*, now: dt.datetime | None = None, lease: dt.timedelta = REMINDER_LEASE) -> list[int]:
    """The user ids whose reminder clock has come (``next_reminder_at <= now``), taken for ``lease``.

    Read through the partial index on next_reminder_at, so a pass costs O(learners due now) and one query when
    nobody is; concurrent passes never take the same learner: the rows are locked as they are read
    (``select_for_update(skip_locked=True)``: a concurrent pass skips them, and once this one commits they are
    no longer due). Only active learners who opted in are taken, with an address or reminded by push. The ORM's
    two statements where one ``UPDATE … RETURNING`` was written by hand (issue 26: not a hot path).
    """
    now = now or timezone.now()
    reachable = ~Q(user__email="") | Q(reminder_channel=ReminderChannel.PUSH)
    due = LearnerProfile.objects.filter(
        reachable, next_reminder_at__lte=now, reminder_opt_in=True, user__is_active=True
    )
    of = ("self",) if connection.features.has_select_for_update_of else ()
    with transaction.atomic(savepoint=False):  # the locks last until the update commits; no savepoint's 2 queries
        taken = sorted(due.select_for_update(skip_locked=True, of=of).values_list("user_id", flat=True))
        if taken:
            LearnerProfile.objects.filter(user_id__in=taken).update(next_reminder_at=now + lease)
    return taken


def reminders_send_to(*, user_ids: Sequence[int], now: dt.datetime | None = None) -> ReminderRun:
    """Look at these learners (a chunk the pass took): send what is due, then set each one's next moment."""
    run = ReminderRun()
    profiles = list(LearnerProfile.objects.filter(user_id__in=list(user_ids)).select_related("user").order_by("pk"))
    if not profiles:
        return run
    mail = get_connection()  # one SMTP connection for the chunk, opened at the first e-mail
    try:
        for profile in profiles:
            moment = now or timezone.now()
            outcome = reminder_send_for(profile=profile, now=moment, connection=mail)
            reminder_clock_after_check(profile=profile, now=moment, retry=outcome is False)
            if outcome is True:
                run.sent.append(profile.user_id)
            elif outcome is False:
                run.failed.append(profile.user_id)
            else:
                run.skipped += 1
    finally:
        with contextlib.suppress(Exception):
            mail.close()
    return run


def reminders_chunks(*, now: dt.datetime | None = None, size: int = REMINDER_CHUNK) -> list[list[int]]:
    """The pass (the beat task): take the learners due now and cut them into chunks for any worker."""
    ids = reminders_take_due(now=now)
    return [ids[i : i + size] for i in range(0, len(ids), size)]


def reminders_send_due(*, now: dt.datetime | None = None) -> ReminderRun:
    """One whole pass in this process (take, then look at every learner taken). Safe to run concurrently."""
    now = now or timezone.now()
    return reminders_send_to(user_ids=reminders_take_due(now=now), now=now)
