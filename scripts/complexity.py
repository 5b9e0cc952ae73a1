"""`make lint`'s complexity gate: fails when any block (function, method or class) scores F in radon.

F is a cyclomatic complexity above 40: a block no one can hold in their head or test branch by branch.
Checked under quizsite/, quizzes/ and attention_engine/ (migrations included: they are code too); each F
block is listed as ``path:line name (complexity)``. A block that grows past the limit is split or made
table-driven (see attention_engine/codecheck/grading.py's ``_HEADLINES``), not excused here.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

from radon.complexity import add_inner_blocks, cc_rank, cc_visit

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("quizsite", "quizzes", "attention_engine")


def f_blocks(root: Path = REPO) -> Iterator[tuple[str, int, str, int]]:
    """(path, line, name, complexity) of every block that ranks F, in path and line order."""
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            # functions, classes and their methods, and (add_inner_blocks) closures and inner classes too
            blocks = add_inner_blocks(cc_visit(path.read_text(encoding="utf-8")))
            for block in sorted(blocks, key=lambda b: (b.lineno, b.fullname)):
                if cc_rank(block.complexity) == "F":
                    yield str(path.relative_to(root)), block.lineno, block.fullname, block.complexity


def main() -> int:
    found = list(f_blocks())
    for path, line, name, complexity in found:
        print(f"{path}:{line} {name} ({complexity}): radon rank F, split it or make it table-driven")
    if found:
        print(f"{len(found)} block(s) score F in radon", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
