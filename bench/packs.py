"""A 200-item offline review pack: its size on the wire (raw and gzipped) and how long it takes to build.

    .venv/bin/python bench/packs.py [--items 200] [--runs 15] [--markdown] [--fresh] [--no-freeze]

Runs against PostgreSQL (PACKS_BENCH_DATABASE_URL, default …/quizsite_bench_packs, created if missing; its
tables are migrated and the bench's learners replaced on every run) and Redis (PACKS_BENCH_REDIS_URL, default
db 5: the shared render cache), DEBUG off. Content is the real lessons (fixtures/lessons, loaded as
``manage.py load_lessons`` does), each question cloned until there are enough for the pack, so prompts,
options, numeric templates and explanations have their real lengths and mix (choice ≈ 55 %, numeric ≈ 28 %,
prompts, recall and code cards the rest). One learner has a card due for every question.

The clones are kept between runs, so a run after the first is a server's ordinary day: every question version
and most variants stored by earlier packs, their renderings in the shared cache. ``--fresh`` measures the
other end: new questions, no stored variants, a render cache no process has filled (the first pack ever).

Measured, median and worst of ``--runs``:

* **build**: ``pack_issue`` (select the due cards, draw option orders and variant seeds, store new question
  versions and variants, one bulk insert of the items) + ``pack_public`` (read the items back, every item
  through the item presenter with its key) + the serializer: what ``POST /api/v1/packs/`` does besides HTTP;
  "cold" is the first pack of the fresh process, "warm" the later ones;
* **request**: the whole ``POST /api/v1/packs/`` through Django's test client (middleware, auth, DRF,
  JSON rendering);
* the body's size raw and gzipped (level 6, what a reverse proxy typically sends).

Targets (issue 17): a 200-item pack ≤ 500 KB gzipped on the wire, built in ≤ 300 ms.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import os
import platform
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench import databases  # noqa: E402 (after the path)

databases.use_in_process(
    os.environ.get("PACKS_BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/quizsite_bench_packs"),
    os.environ.get("PACKS_BENCH_REDIS_URL", "redis://127.0.0.1:6379/5"),
    **databases.TEST_CLIENT,
)

BENCH_LESSON = "packs-bench"
BENCH_USER = "packs-bench-learner"
TARGET_GZIP_BYTES = 500 * 1000
TARGET_BUILD_MS = 300.0
# what a cloned option copies: its content, not its provenance (a clone is the admin's, as a new row)
CLONED_OPTION_FIELDS = ("key", "text", "is_correct", "feedback", "order", "retired")


def _content(items: int) -> None:
    """The real lessons, and clones of their questions in a bench lesson until there are ``items`` + 10.

    The bench lesson is kept between runs (its clones are the same each time), so its questions' packed versions
    stay stored as on a server where every question has been packed before; ``--fresh`` starts it anew.
    """
    from django.core.management import call_command

    from quizzes.models import Lesson, Option, Question

    call_command("load_lessons", directory=str(REPO / "fixtures" / "lessons"), no_prune=True, verbosity=0)
    real = list(Question.objects.published().exclude(lesson__key=BENCH_LESSON).order_by("lesson__order", "order"))
    lesson, _ = Lesson.objects.get_or_create(
        key=BENCH_LESSON, defaults={"title": "packs bench", "summary": "", "order": 999, "published": True}
    )
    n = Question.objects.filter(lesson=lesson).count()
    while Question.objects.published().count() < items + 10:
        source = Question.objects.prefetch_related("options").get(pk=real[n % len(real)].pk)
        options = list(source.options.all())
        source.pk, source.id, source.lesson, source.key = None, None, lesson, f"{source.key}-bench-{n}"
        source.generated_from = None
        source.fixed_seed = None
        source.save()
        Option.objects.bulk_create(
            Option(question=source, **{field: getattr(o, field) for field in CLONED_OPTION_FIELDS}) for o in options
        )
        n += 1


def _learner(items: int, number: int):
    """A new learner with a card due (in the past) for every published question."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from quizzes.models import Question, ReviewCard

    user = get_user_model().objects.create_user(username=f"{BENCH_USER}-{number}", password="bench")
    user.date_joined = timezone.now() - dt.timedelta(days=60)
    user.save(update_fields=["date_joined"])
    due = timezone.now() - dt.timedelta(days=1)
    ReviewCard.objects.bulk_create(
        ReviewCard(user=user, question=q, due=due, state=ReviewCard.State.REVIEW)
        for q in Question.objects.published().order_by("pk")[: items + 10]
    )
    return user


def _ping(client, n: int = 15) -> float:
    """The median wall time (ms) of ``GET /api/v1/ping/`` in this process: the host's speed right now."""
    times = []
    for _ in range(n):
        start = time.perf_counter()
        assert client.get("/api/v1/ping/").status_code == 200
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _measure(user, items: int) -> tuple[float, float, float, bytes, dict, float]:
    """(build ms, build CPU ms, request ms, the response body, items per kind, ping ms) for one new pack of
    ``user``, then another by HTTP; the in-process ping measured just before the build."""
    from django.test import Client
    from knox.models import get_token_model
    from rest_framework.renderers import JSONRenderer

    from quizzes.api import representations as r
    from quizzes.api import serializers as s
    from quizzes.packs.services import pack_issue

    token = get_token_model().objects.create(user=user, expiry=dt.timedelta(hours=1))[1]
    client = Client(HTTP_AUTHORIZATION=f"Token {token}")
    ping = _ping(client)
    start, cpu = time.perf_counter(), time.process_time()
    pack = pack_issue(user=user, max_items=items)
    data = s.PackSerializer(r.pack_public(pack)).data
    JSONRenderer().render(data)
    built, built_cpu = (time.perf_counter() - start) * 1000, (time.process_time() - cpu) * 1000
    start = time.perf_counter()
    response = client.post("/api/v1/packs/", {"max_items": items}, content_type="application/json")
    requested = (time.perf_counter() - start) * 1000
    assert response.status_code == 201, response.content[:300]
    kinds: dict[str, int] = {}
    for item in data["items"]:
        kinds[item["question"]["kind"]] = kinds.get(item["question"]["kind"], 0) + 1
    assert len(data["items"]) == items
    return built, built_cpu, requested, response.content, kinds, ping


class _GcPauses:
    """The oldest generation's collections while measuring (gc.callbacks): the pauses ``gc.freeze()`` shortens."""

    def __init__(self) -> None:
        import gc

        self.full: list[float] = []
        self._started = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.full.append((time.perf_counter() - self._started) * 1000)

    def stop(self) -> None:
        import gc

        gc.callbacks.remove(self._callback)

    def __str__(self) -> str:
        if not self.full:
            return "no full collection"
        return f"{len(self.full)} full collections, longest {max(self.full):.0f} ms, {sum(self.full):.0f} ms in all"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument(
        "--fresh",
        action="store_true",
        help="nothing stored or shared yet: new bench questions, no stored variants, no shared renderings",
    )
    parser.add_argument(
        "--no-freeze", action="store_true", help="leave out gc.freeze(), which every web process runs at start"
    )
    args = parser.parse_args()
    databases.create(os.environ["DATABASE_URL"])

    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    if not args.no_freeze:
        import gc

        from quizzes.api import urls  # noqa: F401  # what a web process has loaded when quizsite/wsgi.py freezes

        gc.freeze()
    get_user_model().objects.filter(username__startswith=BENCH_USER).delete()
    if args.fresh:
        import secrets

        from quizzes.core import rendering
        from quizzes.models import Lesson, PackedVariant

        Lesson.objects.filter(key=BENCH_LESSON).delete()  # its questions, their packed versions
        PackedVariant.objects.filter(items__isnull=True).delete()
        rendering.RENDERER = secrets.token_hex(6)  # a renderer no process has shared a rendering of
    _content(args.items)
    cold = _measure(_learner(args.items, 0), args.items)  # a fresh process (renderings may be in the shared cache)
    pauses = _GcPauses()
    runs = [_measure(_learner(args.items, n), args.items) for n in range(1, args.runs + 1)]
    pauses.stop()
    build_ms, cpu_ms, request_ms = [run[0] for run in runs], [run[1] for run in runs], [run[2] for run in runs]
    ping_ms = statistics.median(run[5] for run in runs)
    ratio = statistics.median(run[0] / run[5] for run in runs)
    body, kinds = runs[-1][3], runs[-1][4]
    raw, zipped = len(body), len(gzip.compress(body, compresslevel=6))

    import numpy as np

    print(f"# {platform.machine()}, Python {platform.python_version()}, numpy {np.__version__}, PostgreSQL")
    print(f"# {args.items} items: {kinds}; a new learner per pack; {args.runs} runs after the cold one")
    if args.fresh:
        print("# --fresh: the cold pack is the first ever of these questions (nothing stored or shared yet)")
    print(f"# load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"# garbage collector during the warm runs: {pauses}")
    print("# without gc.freeze()" if args.no_freeze else "# gc.freeze() after start-up, as quizsite/wsgi.py does")
    print(
        f"# in-process GET /api/v1/ping/: median {ping_ms:.2f} ms; warm build = {ratio:.0f} × ping "
        f"(median of the runs' ratios, each to the ping just before it); cold build = {cold[0] / cold[5]:.0f} × ping"
    )
    rows = [
        ("build, warm (pack_issue + render + serialize)", statistics.median(build_ms), max(build_ms)),
        ("build, warm, CPU time of the process", statistics.median(cpu_ms), max(cpu_ms)),
        ("POST /api/v1/packs/, warm (in-process request)", statistics.median(request_ms), max(request_ms)),
        ("build, cold (first pack of a fresh process)", cold[0], cold[0]),
        ("build, cold, CPU time of the process", cold[1], cold[1]),
    ]
    ok_size = "yes" if zipped <= TARGET_GZIP_BYTES else "NO"
    if args.markdown:
        print("| measure | median | worst | target | met |")
        print("|---|---:|---:|---:|:---:|")
        for name, median, worst in rows:
            met = "yes" if median <= TARGET_BUILD_MS else "NO"
            print(f"| {name} | {median:.0f} ms | {worst:.0f} ms | ≤ {TARGET_BUILD_MS:.0f} ms | {met} |")
        print(f"| body, raw | {raw / 1000:,.0f} KB | | | |")
        print(f"| body, gzip -6 | {zipped / 1000:,.0f} KB | | ≤ {TARGET_GZIP_BYTES // 1000} KB | {ok_size} |")
    else:
        for name, median, worst in rows:
            print(f"{name}: median {median:.0f} ms, worst {worst:.0f} ms (target {TARGET_BUILD_MS:.0f} ms)")
        target = TARGET_GZIP_BYTES // 1000
        print(f"body: {raw / 1000:,.0f} KB raw, {zipped / 1000:,.0f} KB gzipped (target {target} KB)")
    get_user_model().objects.filter(username__startswith=BENCH_USER).delete()


if __name__ == "__main__":
    main()
