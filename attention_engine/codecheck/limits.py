"""How much work one evaluation of learner code may do, checked before each operation runs.

numpy cannot be interrupted in the middle of a call, so every bound here is checked on the
*arguments* of an operation, before numpy sees them: the result shape of every operator and call
(broadcasting included), the multiply-adds of ``@``, the bit length of Python integers. The
figures are far above what the hand-sized exercises need (the largest input, a batched
(2, 4, 5, 16) tensor, has 640 elements; its ``Q @ K^T`` costs 3,200 multiply-adds) and far below
what would hurt a server: the largest array a learner can make is 512 KiB of float64, and a whole
run does at most about a million element operations, a few milliseconds of numpy. Every new array
is charged to the work budget when it is made (views such as ``.T`` or ``reshape`` are free), so
one run also allocates at most ``max_work`` elements in total: 8 MiB of float64. List comprehensions
are the one construct that runs a node more than once: every iteration counts against
``max_iterations`` and is charged to the same work budget (``ops.ITERATION_COST`` per syntax node of
the comprehension), so the interpreter's own time per run is bounded as numpy's is. What a run leaves
behind is bounded too before the grader converts or compares it: a learner's value (a list repeating
one big array a thousand times holds 65 million numbers while counting as 1,001 list items) may hold
at most ``max_array_elements`` numbers, nested at most ``max_ndim`` deep. No axis may be
longer than ``max_array_elements`` either, even in an empty array: numpy does work per axis length
in places (a reduction over the empty axis of a (0, 10**9) array returns 10**9 zeros; ``np.triu``
builds an index range as long as each of the last two axes).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any


@dataclass(frozen=True)
class Limits:
    """Bounds for one submission. A spec may tighten them, never loosen them past ``HARD_LIMITS``."""

    max_source_chars: int = 4_000  # checked first, before the parser sees the text
    max_lines: int = 80
    max_nodes: int = 400  # AST nodes of the learner's code
    max_depth: int = 32  # nesting of the AST (the parser itself gives up near 1,000)
    max_array_elements: int = 1 << 16  # the result of any one operation: 65,536 elements, 512 KiB of float64
    max_work: int = 1 << 20  # per run: sum of result sizes of every op, plus the multiply-adds of @
    max_int_bits: int = 256  # Python integers: 9**9**9 is refused before it is computed
    max_sequence_items: int = 1_024  # nested items of a Python list/tuple the learner builds
    max_ndim: int = 16
    max_string_chars: int = 32  # short literals only, and only as call arguments (dtype="bool", einsum's subscripts)
    max_iterations: int = 4_096  # per run: iterations of every list comprehension together, nested ones included

    def to_dict(self) -> dict[str, int]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Limits:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown limits {unknown}; known: {sorted(known)}")
        values = {}
        for key, value in data.items():
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"limit {key} must be a positive integer, got {value!r}")
            values[key] = value
        return cls(**values).capped()

    def capped(self) -> Limits:
        """These limits, none above ``HARD_LIMITS`` (a stored spec cannot switch the guards off)."""
        hard = HARD_LIMITS.to_dict()
        return Limits(**{k: min(v, hard[k]) for k, v in self.to_dict().items()})


#: THE longest code answer anything accepts (issue 26): the hard source bound below, the web form, the API's
#: answer and pack-upload fields and the answer service all use it (quizzes.content.code.MAX_CODE_CHARS).
MAX_SOURCE_CHARS = 20_000

# The most any spec may allow: 16x the defaults for sizes, and the parser-safe source bounds.
HARD_LIMITS = Limits(
    max_source_chars=MAX_SOURCE_CHARS,
    max_lines=400,
    max_nodes=2_000,
    max_depth=64,
    max_array_elements=1 << 20,
    max_work=1 << 24,
    max_int_bits=1_024,
    max_sequence_items=8_192,
    max_ndim=32,
    max_string_chars=64,
    max_iterations=65_536,
)
DEFAULT_LIMITS = Limits()
