"""Command line for authors: ``python -m attention_engine {exercise,variant,list}``."""

from __future__ import annotations

import argparse
import json
import sys

from . import generators
from .exercise import run_exercise


def _parse_param(text: str) -> tuple[str, object]:
    """``k=v`` with v read as JSON when it parses (numbers, true/false, lists), else as a string."""
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"--param expects k=v, got {text!r}")
    key, raw = text.split("=", 1)
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    return key, value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m attention_engine", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("exercise", help="print the lesson-1 exercise output")
    ex.add_argument("--seed", type=int, default=0)
    var = sub.add_parser("variant", help="print one generated variant as JSON")
    var.add_argument("name", help="template name (see 'list')")
    var.add_argument("--seed", type=int, required=True)
    var.add_argument("--param", type=_parse_param, action="append", default=[], metavar="K=V")
    sub.add_parser("list", help="list the templates and their params")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "exercise":
        run_exercise(args.seed, out=sys.stdout)
    elif args.command == "variant":
        try:
            variant = generators.generate(args.name, args.seed, **dict(args.param))
        except (KeyError, ValueError) as exc:
            print(f"error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
            return 2
        print(json.dumps(variant.to_dict(), ensure_ascii=False, indent=2))
    else:
        for name in generators.names():
            template = generators.get(name)
            params = "; ".join(
                f"{p.name} = {'drawn from the seed' if p.default is None else repr(p.default)}, {p.describe()}"
                for p in template.params.values()
            )
            print(f"{name} (v{template.version}, seed doc {template.source}): {template.title_en}")
            print(f"    {params or 'no params'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
