"""Golden digests of generated variants, so any drift in a template or in numpy shows up in CI.

    python -m attention_engine.generators.golden            # compare, list the differences, exit 1 on drift
    python -m attention_engine.generators.golden --write    # rewrite the file (after bumping a version)

The file maps template -> {"version": v, "digests": {seed: sha256}} for seeds 0..4. A digest is the
sha256 of the variant's canonical JSON (sorted keys, floats to 10 significant digits, so the last
bits of a BLAS sum do not count as drift while any visible change does).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

from . import generate, get, names
from .base import Variant

GOLDEN_PATH = Path(__file__).resolve().parents[2] / "tests" / "attention_engine" / "golden" / "variants.json"
SEEDS = range(5)
HOW_TO_UPDATE = ("if the change is intended, bump the template's version and run "
                 "`python -m attention_engine.generators.golden --write`")


def canonical(x):
    """Floats rounded to 10 significant digits, recursively; everything else unchanged."""
    if isinstance(x, float):
        return float(f"{x:.10g}")
    if isinstance(x, dict):
        return {k: canonical(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [canonical(v) for v in x]
    return x


def digest(variant: Variant) -> str:
    text = json.dumps(canonical(variant.to_dict()), sort_keys=True, ensure_ascii=False,
                      separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()


def compute(seeds=SEEDS) -> dict:
    return {
        name: {"version": get(name).version, "digests": {str(s): digest(generate(name, s)) for s in seeds}}
        for name in names()
    }


def differences(expected: dict, actual: dict) -> list[str]:
    """One English line per template or seed whose digest differs from the golden file."""
    problems = [f"{name}: in the golden file but not a template" for name in sorted(set(expected) - set(actual))]
    for name, now in actual.items():
        was = expected.get(name)
        if was is None:
            problems.append(f"{name}: not in the golden file yet; run with --write")
        elif was["version"] != now["version"]:
            problems.append(f"{name}: golden file has v{was['version']}, the template is v{now['version']}; "
                            "run with --write")
        else:
            problems += [f"{name} v{now['version']} seed {seed}: the variant changed; {HOW_TO_UPDATE}"
                         for seed, d in now["digests"].items() if was["digests"].get(seed) != d]
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m attention_engine.generators.golden", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help="rewrite the golden file")
    parser.add_argument("--path", type=Path, default=GOLDEN_PATH)
    args = parser.parse_args(argv)
    actual = compute()
    if args.write:
        args.path.parent.mkdir(parents=True, exist_ok=True)
        args.path.write_text(json.dumps(actual, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {len(actual)} templates x {len(SEEDS)} seeds to {args.path}")
        return 0
    expected = json.loads(args.path.read_text(encoding="utf-8"))
    problems = differences(expected, actual)
    print("\n".join(problems) or "golden digests match")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
