"""A reference offline client: download a review pack, answer it with no connection, upload the answers.

    python scripts/offline_client.py download --server URL (--token T | --username U --password P) --out pack.json
    python scripts/offline_client.py answer --pack pack.json --choices choices.json --out answers.json
    python scripts/offline_client.py upload --server URL (--token T | --username U --password P) --answers answers.json
    python scripts/offline_client.py run --server URL ... --choices choices.json --workdir DIR   (all three)

What a mobile app does, in ~200 lines of standard-library Python (no dependency):

* **download**: ``POST /api/v1/packs/`` with an Idempotency-Key (a retry after a lost response gets the same
  pack back), kept as JSON with its ETag.
* **answer** (offline: no network call): each item is shown as the web quiz shows it and answered from
  ``choices.json``, a JSON object keyed by question key: ``{"option": 2}`` (the 2nd option shown),
  ``{"choice": 0}`` (a numeric item's choice index), ``{"value": "0.5, 0.5"}`` (a typed value),
  ``{"code": "scores = ..."}`` (a code item's lines) or ``{"rating": 3}`` (a prompt or recall card); items
  not in the file are skipped. Feedback is immediate, from the pack's key: the client grades typed values
  with the documented rule (``key.tolerance``) after checking its grader against the pack's
  ``test_vectors``. A code item cannot be graded here (a phone cannot run the checker,
  ``key.graded_at_upload``): it shows "graded when you are back online" and the reference solution. Each
  answer gets a client UUID and the moment it was made (``reviewed_at``); what the phone showed is kept as
  ``shown_correct`` (never for code).
* **upload**: ``POST /api/v1/reviews/offline/`` with the answers (what the learner did, never
  ``correct``); prints the server's verdict per entry — its grade stands where it differs from the phone's;
  for code, the checker's verdict.

Exit status: 0 when every entry was applied (or already stored), 1 otherwise.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import re
import sys
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

# --- HTTP -------------------------------------------------------------------------------------------------


def _call(server: str, path: str, *, body: Any = None, token: str | None = None, key: str | None = None) -> Any:
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    if key:
        headers["Idempotency-Key"] = key
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(server.rstrip("/") + path, data=data, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read() or b"null"), dict(response.headers)
    except urllib.error.HTTPError as error:
        raise SystemExit(f"{path}: HTTP {error.code}: {error.read().decode(errors='replace')}") from error


def _token(args: argparse.Namespace) -> str:
    if args.token:
        return str(args.token)
    login, _headers = _call(
        args.server, "/api/v1/auth/login/", body={"username": args.username, "password": args.password}
    )
    return str(login["token"])


# --- offline grading, from the pack's key -----------------------------------------------------------------


def _numbers(value: Any) -> Any:
    """A typed answer as numbers: a number, a list, a list of rows; text like "0.5, 0.5" or "1 2; 3 4"."""
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, list):
        return [_numbers(v) for v in value]
    rows = [r for r in re.split(r"[;\n]", str(value).strip("[]() ")) if r.strip()]
    parsed = [[float(x) for x in re.split(r"[,\s]+", row.strip(" []")) if x] for row in rows]
    if len(parsed) == 1:
        return parsed[0][0] if len(parsed[0]) == 1 else parsed[0]
    return parsed


def _shape(value: Any) -> list[int]:
    return [len(value), *_shape(value[0])] if isinstance(value, list) and value else []


def grade_value(key: dict[str, Any], typed: Any) -> bool:
    """The documented rule: same shape, and every element within atol + 1e-9 + rtol·|a| of the answer."""
    try:
        got = _numbers(typed)
    except ValueError:
        return False
    answer, tolerance = key["correct_value"], key["tolerance"]
    if _shape(got) != list(key["answer_shape"]):
        return False

    def close(x: Any, a: Any) -> bool:
        if isinstance(a, list):
            return all(close(xi, ai) for xi, ai in zip(x, a, strict=True))
        return math.isfinite(x) and abs(x - a) <= tolerance["atol"] + 1e-9 + tolerance["rtol"] * abs(a)

    return close(got, answer)


def check_grader(pack: dict[str, Any]) -> None:
    """Refuse to run offline if this client's grader disagrees with the server's test vectors."""
    for item in pack["items"]:
        for vector in (item["key"] or {}).get("test_vectors", []):
            if grade_value(item["key"], vector["value"]) != vector["correct"]:
                raise SystemExit(f"grader disagrees with the server on item {item['id']}: {vector}")


def answer_item(item: dict[str, Any], choice: dict[str, Any]) -> tuple[dict[str, Any], bool | None, str]:
    """(the entry's answer fields, what the phone shows: right or wrong (None for a self-rating or code), feedback)."""
    key = item["key"]
    if item["question"]["kind"] == "code":  # nothing to grade with here: the server runs it at upload
        return {"code": choice["code"]}, None, f"reference solution:\n{key['reference_solution']}"
    if "rating" in choice:
        reference = item["self_rated"]["reference_answer"] or "\n".join(item["self_rated"]["expected_lines"])
        return {"rating": choice["rating"]}, None, f"reference: {reference}"
    if item["question"]["kind"] == "choice":
        option = item["options"][choice["option"] - 1]["id"]
        feedback = next(f["feedback"] for f in key["option_feedback"] if f["id"] == option)
        return {"option_id": option}, option == key["correct_option_id"], feedback
    if "choice" in choice:
        right = choice["choice"] == key["correct_choice_index"]
        return {"choice_index": choice["choice"]}, right, key["explanation"]
    return {"value": choice["value"]}, grade_value(key, choice["value"]), f"answer: {key['correct_value']}"


# --- commands ---------------------------------------------------------------------------------------------


def download(args: argparse.Namespace) -> dict[str, Any]:
    token = _token(args)
    body = {"days": args.days, "device": args.device}
    pack, headers = _call(args.server, "/api/v1/packs/", body=body, token=token, key=str(uuid.uuid4()))
    pack["_etag"] = headers.get("ETag")
    Path(args.out).write_text(json.dumps(pack, ensure_ascii=False, indent=1), encoding="utf-8")
    print(f"pack {pack['id']}: {pack['item_count']} items, expires {pack['expires_at']}")
    return pack


def answer(args: argparse.Namespace) -> list[dict[str, Any]]:
    pack = json.loads(Path(args.pack).read_text(encoding="utf-8"))
    choices = json.loads(Path(args.choices).read_text(encoding="utf-8"))
    check_grader(pack)
    entries = []
    for item in pack["items"]:
        choice = choices.get(item["question"]["key"])
        if choice is None:
            continue
        fields, shown, feedback = answer_item(item, choice)
        entry = {
            "client_uuid": str(uuid.uuid4()),
            "pack_item_id": item["id"],
            "reviewed_at": dt.datetime.now(dt.UTC).isoformat(),
            **fields,
        }
        if shown is not None:
            entry["shown_correct"] = shown
        entries.append(entry)
        if item["question"]["kind"] == "code":
            verdict = "graded when you are back online"
        else:
            verdict = "self-rated" if shown is None else ("right" if shown else "wrong")
        print(f"{item['question']['key']}: {verdict} — {feedback}")
    Path(args.out).write_text(json.dumps(entries, ensure_ascii=False, indent=1), encoding="utf-8")
    return entries


def upload(args: argparse.Namespace) -> int:
    entries = json.loads(Path(args.answers).read_text(encoding="utf-8"))
    result, _headers = _call(
        args.server, "/api/v1/reviews/offline/", body={"entries": entries}, token=_token(args), key=str(uuid.uuid4())
    )
    failed = 0
    for outcome in result["entries"]:
        note = (
            " (the server's grade differs from the phone's: the server's stands)" if outcome["overrides_client"] else ""
        )
        graded = "" if outcome["graded"] is None else f", graded {'right' if outcome['graded']['correct'] else 'wrong'}"
        if outcome["graded"] is not None and "check" in outcome["graded"]:  # code: the checker's verdict
            graded += f" ({outcome['graded']['message_display']})"
        elif outcome["reason"] == "code_not_runnable":
            graded = f" — {outcome['message']}"
        print(f"{outcome['client_uuid']}: {outcome['status']} {outcome['reason'] or ''}{graded}{note}".rstrip())
        failed += outcome["status"] not in ("applied", "already_stored")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("download", "upload", "run"):
        command = sub.add_parser(name)
        command.add_argument("--server", required=True)
        command.add_argument("--token")
        command.add_argument("--username")
        command.add_argument("--password")
    sub.choices["download"].add_argument("--out", required=True)
    sub.choices["upload"].add_argument("--answers", required=True)
    offline = sub.add_parser("answer")
    offline.add_argument("--pack", required=True)
    offline.add_argument("--out", required=True)
    for name in ("download", "run"):
        sub.choices[name].add_argument("--days", type=int, default=3)
        sub.choices[name].add_argument("--device", default="offline_client.py")
    for name in ("answer", "run"):
        sub.choices[name].add_argument("--choices", required=True)
    sub.choices["run"].add_argument("--workdir", required=True)
    args = parser.parse_args(argv)
    if args.command == "download":
        download(args)
        return 0
    if args.command == "answer":
        answer(args)
        return 0
    if args.command == "upload":
        return upload(args)
    work = Path(args.workdir)
    args.out = str(work / "pack.json")
    download(args)
    args.pack, args.out = args.out, str(work / "answers.json")
    answer(args)
    args.answers = args.out
    return upload(args)


if __name__ == "__main__":
    sys.exit(main())
