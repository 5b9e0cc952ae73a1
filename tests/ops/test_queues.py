"""Separate Celery queues (settings ``CELERY_TASK_ROUTES``): reminders, generation, housekeeping, exports, the rest.

Through the real Redis broker: every way a task leaves a process — a service's ``enqueue`` by name, the
reminder pass's ``group`` of chunks, beat's scheduler — lands on the routed queue (a Redis list named after
it). With a real worker started ``-Q reminders``: it runs the reminders while a generation job sent before
them waits in its queue, untouched, until a worker for ``generation`` starts — the routing is real.
"""

from __future__ import annotations

import datetime as dt

import pytest
import redis
from celery import current_app
from celery.beat import ScheduleEntry, Scheduler
from django.conf import settings

from quizzes.content.generation import generation_job_create
from quizzes.core.background import enqueue
from quizzes.models import GenerationJob, ReminderDelivery
from quizzes.tasks import send_review_reminders
from tests import factories
from tests.ops.conftest import purge_broker, wait_for
from tests.ops.helpers import due_card, learner

ROUTED = {
    "quizzes.tasks.send_review_reminders": "reminders",
    "quizzes.tasks.send_review_reminders_chunk": "reminders",
    "quizzes.tasks.run_generation_job": "generation",
    "quizzes.tasks.housekeeping": "housekeeping",
    "quizzes.tasks.fit_learner_parameters_pass": "fitting",
    "quizzes.tasks.fit_learner_parameters": "fitting",
    "quizzes.tasks.run_data_export": "exports",
}


#: The tests through Redis run in the production-stack pass (PostgreSQL + Redis): CI's SQLite pass has no Redis.
through_redis = pytest.mark.postgres


@pytest.fixture
def broker(redis_url):
    """The broker's Redis db, its queues emptied before and after."""
    purge_broker(redis_url)
    client = redis.Redis.from_url(redis_url)
    yield client
    client.close()
    purge_broker(redis_url)


def lengths(client: redis.Redis) -> dict[str, int]:
    return {queue: client.llen(queue) for queue in settings.BACKGROUND_QUEUES}


def test_every_task_of_ours_is_routed_and_a_worker_without_q_consumes_every_queue():
    ours = {name for name in current_app.tasks if name.startswith("quizzes.")}
    assert ours == set(ROUTED)  # a new task must pick a queue here (or be sent to the default on purpose)
    assert settings.BACKGROUND_QUEUES == ["celery", "reminders", "generation", "housekeeping", "fitting", "exports"]
    assert list(current_app.amqp.queues) == settings.BACKGROUND_QUEUES


@through_redis
@pytest.mark.parametrize(("name", "queue"), sorted(ROUTED.items()))
def test_a_task_sent_by_name_lands_on_its_queue(broker, name, queue):
    args = {
        "quizzes.tasks.send_review_reminders_chunk": ([1],),
        "quizzes.tasks.run_generation_job": (1,),
        "quizzes.tasks.fit_learner_parameters": (1,),
        "quizzes.tasks.run_data_export": (1,),
    }
    assert enqueue(name, *args.get(name, ()))
    assert lengths(broker) == {q: int(q == queue) for q in settings.BACKGROUND_QUEUES}


@through_redis
def test_an_unrouted_task_name_goes_to_the_default_queue(broker):
    current_app.send_task("quizsite.not_a_routed_task")
    assert lengths(broker) == {q: int(q == "celery") for q in settings.BACKGROUND_QUEUES}


@through_redis
def test_beat_sends_each_periodic_task_to_its_queue(broker):
    scheduler = Scheduler(current_app, lazy=True)
    for key, entry in settings.CELERY_BEAT_SCHEDULE.items():
        scheduler.apply_async(ScheduleEntry(name=key, task=entry["task"], app=current_app))
    assert lengths(broker) == {
        "celery": 0,
        "reminders": 1,
        "generation": 0,
        "housekeeping": 1,
        "fitting": 1,
        "exports": 0,
    }


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_reminders_worker_leaves_a_waiting_generation_job_to_the_generation_worker(start_worker, broker, lesson):
    due = learner(time_zone="UTC", rollover=0, reminder_hour=0)  # any time of day is past its reminder hour
    due_card(due, due=dt.datetime.now(dt.UTC) - dt.timedelta(days=1))
    source = factories.NumericQuestionFactory(lesson=lesson, key="queued-src")
    job = generation_job_create(source=source, total=2, first_seed=0)  # committed → on the generation queue first
    assert broker.llen("generation") == 1

    reminders_worker = start_worker(queues=["reminders"])
    banner = reminders_worker.log_text()
    assert ".> reminders " in banner
    assert ".> generation " not in banner and ".> celery " not in banner
    send_review_reminders.delay()  # as beat would, after the job
    wait_for(
        lambda: (
            ReminderDelivery.objects.filter(user=due.user, sent_at__isnull=False).exists()
            and reminders_worker.log_text().count("succeeded in") >= 2
        ),
        timeout=20,
        what="the pass and its chunk on the reminders worker",
        log=reminders_worker.log_text,
    )
    assert len(reminders_worker.sent_messages()) == 1
    job.refresh_from_db()
    assert (job.status, job.done) == (GenerationJob.Status.PENDING, 0)  # still waiting, never started
    assert broker.llen("generation") == 1
    assert "Task quizzes.tasks.run_generation_job[" not in reminders_worker.log_text()  # the banner lists it

    generation_worker = start_worker(queues=["generation"])
    wait_for(
        lambda: GenerationJob.objects.filter(pk=job.pk, status=GenerationJob.Status.SUCCEEDED).exists(),
        timeout=20,
        what="the job on the generation worker",
        log=generation_worker.log_text,
    )
    assert broker.llen("generation") == 0
    assert "Task quizzes.tasks.run_generation_job[" in generation_worker.log_text()
    assert "Task quizzes.tasks.send_review_reminders" not in generation_worker.log_text()
