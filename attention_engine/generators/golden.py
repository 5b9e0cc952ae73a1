"""Golden digests of generated variants, so any drift in a template or in numpy shows up in CI.

    python -m attention_engine.generators.golden            # compare, list the differences, exit 1 on drift
    python -m attention_engine.generators.golden --write    # record new templates and versions

The file maps template -> {"versions": {"1": {seed: sha256}, "2": {...}}} for seeds 0..4, one entry
per version that can still generate. A digest is the sha256 of the variant's canonical JSON (sorted
keys, floats to 10 significant digits, so the last bits of a BLAS sum do not count as drift while
any visible change does).

A published version never changes: stored questions pinned to it must keep generating what they
did. So ``--write`` only adds what the file lacks and leaves every recorded digest as it is; a
recorded digest that no longer matches is reported and the exit status is 1. ``--force`` also
overwrites those, for the rare drift that is not ours (a numpy release changing its random
streams), and only after deciding what happens to the variants already stored.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TypeAlias

from . import generate, names, versions
from .base import Variant

GOLDEN_PATH = Path(__file__).resolve().parents[2] / "tests" / "attention_engine" / "golden" / "variants.json"
SEEDS = range(5)
# {template: {"versions": {version: {seed: sha256}}}}, versions and seeds as strings (JSON keys)
Golden: TypeAlias = dict[str, dict[str, dict[str, dict[str, str]]]]
HOW_TO_UPDATE = (
    "a published version must keep generating exactly what it did: restore its behaviour, put the "
    "change in a new version, then run `python -m attention_engine.generators.golden --write`"
)


def canonical(x: object) -> object:
    """Floats rounded to 10 significant digits, recursively; everything else unchanged."""
    if isinstance(x, float):
        return float(f"{x:.10g}")
    if isinstance(x, dict):
        return {k: canonical(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [canonical(v) for v in x]
    return x


def digest(variant: Variant) -> str:
    text = json.dumps(
        canonical(variant.to_dict()), sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
    )
    return hashlib.sha256(text.encode()).hexdigest()


def compute(seeds: Iterable[int] = SEEDS) -> Golden:
    """{template: {"versions": {version: {seed: digest}}}} for every version of every template."""
    return {
        name: {
            "versions": {str(v): {str(s): digest(generate(name, s, version=v)) for s in seeds} for v in versions(name)}
        }
        for name in names()
    }


def differences(expected: Golden, actual: Golden) -> list[str]:
    """One English line per template, version or seed whose digest differs from the golden file."""
    problems = [f"{name}: in the golden file but not a template" for name in sorted(set(expected) - set(actual))]
    for name, now in actual.items():
        was = expected.get(name, {}).get("versions")
        if was is None:
            problems.append(f"{name}: not in the golden file yet; run with --write")
            continue
        for v in sorted(set(was) - set(now["versions"]), key=int):
            problems.append(
                f"{name} v{v}: in the golden file but the template no longer has this version; "
                "a published version must keep generating"
            )
        for v, digests in now["versions"].items():
            if v not in was:
                problems.append(f"{name} v{v}: not in the golden file yet; run with --write")
                continue
            problems += [
                f"{name} v{v} seed {seed}: the variant changed; {HOW_TO_UPDATE}"
                for seed, d in digests.items()
                if was[v].get(seed) != d
            ]
    return problems


def merged(expected: Golden, actual: Golden, force: bool = False) -> Golden:
    """The golden file with what it lacks added; recorded digests kept unless ``force``."""
    out: Golden = json.loads(json.dumps(expected))
    for name, now in actual.items():
        recorded = out.setdefault(name, {"versions": {}})["versions"]
        for v, digests in now["versions"].items():
            if force or v not in recorded:
                recorded[v] = digests
            else:
                recorded[v] = {**digests, **recorded[v]}  # new seeds added, recorded ones kept
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m attention_engine.generators.golden",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--write", action="store_true", help="record templates and versions missing from the file")
    parser.add_argument("--force", action="store_true", help="with --write: also overwrite drifted digests")
    parser.add_argument("--path", type=Path, default=GOLDEN_PATH)
    args = parser.parse_args(argv)
    actual = compute()
    expected = json.loads(args.path.read_text(encoding="utf-8")) if args.path.exists() else {}
    if args.write:
        golden = merged(expected, actual, force=args.force)
        args.path.parent.mkdir(parents=True, exist_ok=True)
        args.path.write_text(json.dumps(golden, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        n = sum(len(entry["versions"]) for entry in golden.values())
        print(f"wrote {len(golden)} templates, {n} versions x {len(SEEDS)} seeds to {args.path}")
        expected = golden
    problems = differences(expected, actual)
    print("\n".join(problems) or "golden digests match")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
