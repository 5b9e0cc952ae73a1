# quizsite developer commands. Only Python 3.11+, pip and git are needed: everything else is
# installed into .venv from the requirements files.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: venv torch test lint run serve schema messages screenshots bench bench-load bench-scaling bench-reminders bench-queues bench-scheduling clean

$(BIN)/.installed: requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -r requirements-dev.txt
	touch $@

venv: $(BIN)/.installed

# PyTorch is only a reference for the engine's tests; the CPU build pinned here lies on this
# machine kind's disk (a plain `pip install torch` would pull a multi-GB CUDA build).
torch: venv
	$(BIN)/python -m pip install -q torch==2.13.0

# Static checks, the same as the pre-commit hooks (.pre-commit-config.yaml). No database or other service is
# needed. mypy checks the `files` of [tool.mypy] in pyproject.toml; the Django plugin imports quizsite.settings,
# which wants a SECRET_KEY outside DEBUG (any value does for a type check). lint-imports checks the layering
# contracts of [tool.importlinter] (quizzes/README.md). scripts/complexity.py fails on any block radon ranks F.
lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/djlint quizzes/templates --lint
	SECRET_KEY=typecheck-only $(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python scripts/complexity.py

# PYTEST_ARGS narrows a run, e.g. PYTEST_ARGS='-m "not postgres"' or PYTEST_ARGS=tests/attention_engine
test: venv lint
	$(BIN)/python -m pytest $(PYTEST_ARGS)

run: venv
	HOST=$(HOST) PORT=$(PORT) $(BIN)/python scripts/run_dev.py

# Production stack locally: collectstatic, migrate, gunicorn (2 workers) + Celery worker + beat against this
# machine's PostgreSQL and Redis, in the foreground; Ctrl-C stops all.
serve: venv
	$(BIN)/python scripts/serve.py

# Regenerate the committed OpenAPI schema (tests/api/test_schema.py fails when it is stale).
schema: venv
	SECRET_KEY=schema-only $(BIN)/python manage.py spectacular --file openapi.yaml --validate --fail-on-warn

# Refresh the zh-Hans catalogue after changing UI strings (run from quizzes/ so Django's own catalogues in
# .venv are left alone), translate the new entries in django.po, then `make messages` again to compile.
messages: venv
	cd quizzes && DEBUG=1 ../$(BIN)/python ../manage.py makemessages -l zh_Hans --ignore "migrations/*" -e html,txt,py
	cd quizzes && msgfmt --check -o locale/zh_Hans/LC_MESSAGES/django.mo locale/zh_Hans/LC_MESSAGES/django.po

# Retake the README's screenshots (docs/screenshots/, desktop and phone) from the browser tests, DEBUG off.
# Needs a font with Chinese glyphs (Debian: fonts-noto-cjk); the tests refuse to save boxes.
screenshots: venv
	SAVE_SCREENSHOTS=1 $(BIN)/python -m pytest -q -p no:randomly -p no:cacheprovider tests/e2e -k "debug-off"

bench: venv
	$(BIN)/python bench/generators.py

# The database benchmarks need PostgreSQL + Redis on 127.0.0.1 (bench-load also wrk: apt-get install wrk). Each
# creates and seeds its own databases on the first run, printing progress (minutes: see bench/README.md);
# BENCH_ARGS=--cleanup drops them (and empties the bench Redis db) afterwards.
bench-load: venv
	$(BIN)/python bench/load.py --markdown $(BENCH_ARGS)

bench-scaling: venv
	$(BIN)/python bench/scaling.py --markdown $(BENCH_ARGS)

bench-reminders: venv
	$(BIN)/python bench/reminders.py --markdown $(BENCH_ARGS)

# A reminder pass queued behind 2,000 generation jobs: one queue (before), the queues with one shared worker,
# a worker per queue (2 worker processes each). 10k learners (its own database); BENCH_ARGS='--parts 100k' for more.
bench-queues: venv
	$(BIN)/python bench/reminders.py --parts 10k --backlog 2000 --workers 2 --markdown $(BENCH_ARGS)

# Default vs personal FSRS-6 parameters on two simulated populations (FSRS-6 and HLR learners scheduled by our
# code), scored as the srs-benchmark scores (time-series splits, log loss, RMSE(bins)); no database. About a minute.
bench-scheduling: venv
	$(BIN)/python bench/scheduling.py --markdown $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache .hypothesis db.sqlite3
