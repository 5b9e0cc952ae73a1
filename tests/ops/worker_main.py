"""Start a real Celery worker for the ops tests, optionally on a travelled clock.

Run as ``python -m tests.ops.worker_main <celery worker args>``. With OPS_TRAVEL_TO (ISO 8601)
the whole worker process lives at that instant (time-machine, clock ticking), so the reminder
task sees the learners' local time the test chose. With OPS_FCM_URL, firebase-admin's FCM endpoint constant
(``messaging._MessagingService.FCM_URL``: the library's URL, not ours) points at a local stand-in.
"""

import os
import sys

if __name__ == "__main__":
    travel_to = os.environ.get("OPS_TRAVEL_TO")
    if travel_to:
        import datetime as dt

        import time_machine

        time_machine.travel(dt.datetime.fromisoformat(travel_to), tick=True).start()
    fcm_url = os.environ.get("OPS_FCM_URL")
    if fcm_url:
        from firebase_admin import messaging

        messaging._MessagingService.FCM_URL = fcm_url
    from quizsite.celery import app

    app.worker_main(["worker", *sys.argv[1:]])
