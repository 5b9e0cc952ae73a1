"""Tasks through the real Redis broker and a real Celery worker process (not eager).

The worker runs ``python -m tests.ops.worker_main`` against this run's PostgreSQL test database and
the Redis in REDIS_URL; it sends e-mail through Django's file backend so the test can read what
went out. Data must be committed for the worker to see it, hence ``transactional_db``.
"""

from __future__ import annotations

import datetime as dt

import pytest
import redis
from django.db import connection, transaction
from push_notifications.models import GCMDevice

from quizzes.accounts.devices import device_push_register
from quizzes.accounts.services import api_token_create
from quizzes.content.generation import generation_job_create
from quizzes.models import GenerationJob, Question, ReminderDelivery
from quizzes.tasks import run_generation_job, send_review_reminders
from tests import factories
from tests.factories import utc
from tests.ops.conftest import wait_for
from tests.ops.helpers import due_card, learner
from tests.quizzes.notifications.fcm_standin import ACCESS_TOKEN, FcmStandIn

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_reminders_through_the_worker_one_email_even_when_the_task_runs_twice_at_once(start_worker):
    due = learner(time_zone="UTC", rollover=0, reminder_hour=0)  # any time of day is past its reminder hour
    due_card(due, due=dt.datetime.now(dt.UTC) - dt.timedelta(days=1))
    not_due = learner(rollover=0, reminder_hour=0)
    due_card(not_due, due=dt.datetime.now(dt.UTC) + dt.timedelta(days=3))
    opted_out = learner(rollover=0, reminder_hour=0, opt_in=False)
    due_card(opted_out, due=dt.datetime.now(dt.UTC) - dt.timedelta(days=1))
    reminded = learner(rollover=0, reminder_hour=0)
    due_card(reminded, due=dt.datetime.now(dt.UTC) - dt.timedelta(days=1))
    ReminderDelivery.objects.create(
        user=reminded.user, local_date=dt.datetime.now(dt.UTC).date(), sent_at=utc(2025, 1, 1)
    )

    worker = start_worker(pool="threads", concurrency=4)
    for _ in range(4):  # beat fired twice, plus two retries, all at the same moment
        send_review_reminders.delay()
    # Four passes; the one that took the due learners dispatched one chunk task, the others took nobody.
    wait_for(
        lambda: worker.log_text().count("succeeded in") >= 5, timeout=30, what="4 passes + 1 chunk", log=worker.log_text
    )

    messages = worker.sent_messages()
    assert len(messages) == 1
    assert due.user.email in messages[0]
    assert "List-Unsubscribe-Post: List-Unsubscribe=One-Click" in messages[0]
    assert "https://quiz.example.com/reminders/unsubscribe/" in messages[0]
    assert ReminderDelivery.objects.filter(user=due.user, sent_at__isnull=False).count() == 1
    assert not ReminderDelivery.objects.filter(user__in=[not_due.user, opted_out.user]).exists()


def test_reminder_day_boundaries_across_time_zones_on_a_travelled_worker(start_worker):
    """The worker lives at 2025-03-10 10:30 UTC: 18:30 in Shanghai, 03:30 in Los Angeles, 06:30 in New York."""
    shanghai = learner(time_zone="Asia/Shanghai", rollover=4, reminder_hour=18)
    los_angeles = learner(time_zone="America/Los_Angeles", rollover=4, reminder_hour=3)  # still the 9th's day
    new_york = learner(time_zone="America/New_York", rollover=4, reminder_hour=7)  # not yet 07:00
    for profile in (shanghai, los_angeles, new_york):
        due_card(profile, due=utc(2025, 3, 8, 12))

    worker = start_worker(travel_to="2025-03-10T10:30:00+00:00")
    send_review_reminders.delay()
    wait_for(
        lambda: worker.log_text().count("succeeded in") >= 2,
        timeout=30,
        what="the pass + its chunk",
        log=worker.log_text,
    )

    days = dict(ReminderDelivery.objects.filter(sent_at__isnull=False).values_list("user_id", "local_date"))
    assert days == {shanghai.user_id: dt.date(2025, 3, 10), los_angeles.user_id: dt.date(2025, 3, 9)}
    assert len(worker.sent_messages()) == 2


def test_push_reminders_through_the_worker_to_the_fcm_stand_in_in_the_reminders_queue(start_worker, tmp_path):
    """A worker consuming only ``reminders`` runs the pass: django-push-notifications → firebase-admin → the local FCM
    stand-in; a push learner whose token FCM calls UNREGISTERED loses the registration and gets the e-mail."""
    standin = FcmStandIn()
    try:
        pushed = learner(time_zone="UTC", rollover=0, reminder_hour=0)
        due_card(pushed, due=dt.datetime.now(dt.UTC) - dt.timedelta(days=1))
        device = api_token_create(user=pushed.user, device_id="phone", platform="android").device
        device_push_register(device=device, service="fcm", token="fcm-live:" + "L" * 140)
        gone = learner(time_zone="UTC", rollover=0, reminder_hour=0)
        due_card(gone, due=dt.datetime.now(dt.UTC) - dt.timedelta(days=1))
        old = api_token_create(user=gone.user, device_id="old-phone", platform="android").device
        device_push_register(device=old, service="fcm", token="fcm-gone:" + "G" * 140)
        standin.unregistered.add("fcm-gone:" + "G" * 140)

        worker = start_worker(
            pool="threads",
            concurrency=2,
            queues=["reminders"],
            extra_env={
                "FCM_SERVICE_ACCOUNT_FILE": str(standin.service_account(tmp_path / "fcm.json")),
                "OPS_FCM_URL": standin.fcm_url,
            },
        )
        send_review_reminders.delay()
        wait_for(
            lambda: worker.log_text().count("succeeded in") >= 2,
            timeout=30,
            what="the pass + its chunk",
            log=worker.log_text,
        )

        tokens = sorted(send["body"]["message"]["token"] for send in standin.sends)
        assert tokens == sorted(["fcm-live:" + "L" * 140, "fcm-gone:" + "G" * 140])
        assert all(send["authorization"] == f"Bearer {ACCESS_TOKEN}" for send in standin.sends)
        channels = dict(ReminderDelivery.objects.filter(sent_at__isnull=False).values_list("user_id", "channel"))
        assert channels == {pushed.user_id: "push", gone.user_id: "email"}
        messages = worker.sent_messages()
        assert len(messages) == 1 and gone.user.email in messages[0]
        assert list(GCMDevice.objects.values_list("registration_id", flat=True)) == ["fcm-live:" + "L" * 140]
    finally:
        standin.stop()


def test_bulk_generation_creates_exactly_n_and_a_rerun_creates_none(start_worker, lesson):
    source = factories.NumericQuestionFactory(lesson=lesson, key="gen-src")
    start_worker()
    first = generation_job_create(source=source, total=8, first_seed=0)  # committed → enqueued by on_commit
    wait_for(lambda: GenerationJob.objects.filter(pk=first.pk, status="succeeded").exists(), timeout=60, what="job 1")
    first.refresh_from_db()
    assert (first.done, first.total, first.created) == (8, 8, 8)
    again = generation_job_create(source=source, total=8, first_seed=0)
    wait_for(lambda: GenerationJob.objects.filter(pk=again.pk, status="succeeded").exists(), timeout=60, what="job 2")
    again.refresh_from_db()
    assert (again.done, again.created) == (8, 0)
    assert sorted(Question.objects.filter(generated_from=source).values_list("fixed_seed", flat=True)) == list(range(8))


def test_a_rolled_back_transaction_enqueues_nothing(redis_url, lesson):
    source = factories.NumericQuestionFactory(lesson=lesson)
    queue = redis.Redis.from_url(redis_url)
    queue.delete("generation")
    with pytest.raises(RuntimeError), transaction.atomic():
        generation_job_create(source=source, total=3)
        raise RuntimeError("the request failed after creating the job")
    assert queue.llen("generation") == 0
    assert not GenerationJob.objects.exists()
    generation_job_create(source=source, total=3)  # committed: exactly one message
    assert queue.llen("generation") == 1
    queue.delete("generation")
    queue.close()


def _waiting_on_a_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0] > 0


def test_a_worker_killed_mid_job_is_redelivered_and_creates_each_question_once(start_worker, lesson):
    """acks_late + visibility_timeout: SIGKILL the worker half-way, a new worker finishes the same message.

    The pause is the database's own: this test holds an uncommitted row with seed 3's unique
    (generated_from, fixed_seed), so the worker's INSERT for seed 3 waits on it — after seeds 0-2
    are committed — until we kill the worker.
    """
    source = factories.NumericQuestionFactory(lesson=lesson, key="killed")
    job = GenerationJob.objects.create(source=source, total=6, first_seed=0)
    worker = start_worker()
    with transaction.atomic():
        blocker = Question.objects.create(
            lesson=lesson, key="blocker", kind="numeric", prompt="p", template=source.template,
            answer_form="input", generated_from=source, fixed_seed=3, published=False,
        )  # fmt: skip
        run_generation_job.delay(job.pk)
        wait_for(
            lambda: GenerationJob.objects.filter(pk=job.pk, done=3).exists() and _waiting_on_a_lock(),
            timeout=30,
            what="the worker to stop at seed 3",
            log=worker.log_text,
        )
        worker.kill()
        transaction.set_rollback(True)  # the blocker disappears; seed 3 is free again
    assert not Question.objects.filter(pk=blocker.pk).exists()
    assert GenerationJob.objects.get(pk=job.pk).status == "running"  # never finished, never acknowledged

    second = start_worker()  # the message is unacknowledged: after the visibility timeout it comes back
    wait_for(
        lambda: GenerationJob.objects.filter(pk=job.pk, status="succeeded").exists(),
        timeout=40,
        what="the redelivered job to finish",
        log=second.log_text,
    )
    job.refresh_from_db()
    assert (job.done, job.total, job.created, job.errors) == (6, 6, 6, [])
    seeds = list(Question.objects.filter(generated_from=source).values_list("fixed_seed", flat=True))
    assert sorted(seeds) == list(range(6))  # each exactly once


def test_the_daily_fit_runs_on_a_fitting_worker_and_keeps_only_a_better_fit(start_worker):
    """Beat's pass and the per-learner fits go through the broker to a worker that consumes only ``fitting``."""
    from django.utils import timezone

    from quizzes.models import LearnerProfile, ParameterFit
    from quizzes.tasks import fit_learner_parameters_pass
    from tests.quizzes.reviews.fitting_helpers import FORGETFUL, simulated_history, store_history

    start = timezone.now() - dt.timedelta(days=500)
    enough = learner()
    store_history(
        enough.user, simulated_history(cards=80, reviews=1000, true_parameters=FORGETFUL, seed=1, start=start)
    )
    short = learner()
    store_history(short.user, simulated_history(cards=5, reviews=40, true_parameters=FORGETFUL, start=start))

    worker = start_worker(queues=["fitting"])
    fit_learner_parameters_pass.delay()
    wait_for(lambda: ParameterFit.objects.exists(), timeout=60, what="the fit", log=worker.log_text)
    wait_for(lambda: worker.log_text().count("succeeded in") >= 2, timeout=30, what="pass + fit", log=worker.log_text)
    fit = ParameterFit.objects.get()
    assert fit.user_id == enough.user_id and fit.outcome == "kept"
    assert fit.log_loss_after < fit.log_loss_before
    assert LearnerProfile.objects.get(pk=enough.pk).fsrs_parameters == fit.parameters
    assert LearnerProfile.objects.get(pk=short.pk).fsrs_parameters is None  # not picked: too little history
    assert "parameter fit of learner" in worker.log_text()
