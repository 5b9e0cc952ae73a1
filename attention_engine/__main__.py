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
    var.add_argument("--version", type=int, default=None, help="template version (default: the newest)")
    var.add_argument("--param", type=_parse_param, action="append", default=[], metavar="K=V")
    sub.add_parser("list", help="list the templates, every version of each, and their params")
    return parser


def _describe_param(p: generators.ParamSpec) -> str:
    if p.default is not None:
        default = repr(p.default)
    elif p.name == "example":
        default = "none (numbers drawn from the seed)"
    else:
        default = "drawn from the seed"
    return f"{p.name} = {default}, {p.describe()}"


def _list() -> None:
    """Every template, then each version that can still generate with its params, the newest marked."""
    for name in generators.names():
        newest = generators.get(name)
        print(f"{name} (seed doc {newest.source}): {newest.title_en}")
        for version in generators.versions(name):
            template = generators.get(name, version)
            params = "; ".join(_describe_param(p) for p in template.params.values())
            mark = ", newest" if version == newest.version else ""
            print(f"    v{version}{mark}: {params or 'no params'}")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "exercise":
        run_exercise(args.seed, out=sys.stdout)
    elif args.command == "variant":
        try:
            variant = generators.generate(args.name, args.seed, version=args.version, **dict(args.param))
        except (KeyError, ValueError) as exc:
            print(f"error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
            return 2
        print(json.dumps(variant.to_dict(), ensure_ascii=False, indent=2))
    else:
        _list()
    return 0


if __name__ == "__main__":
    sys.exit(main())
