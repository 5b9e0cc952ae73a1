"""Options for a one-number answer whose rank among them is drawn by the seed (``Template.balanced_rank``).

Distractors made by named mistakes tend to fall on both sides of the answer: forgetting a factor 2
gives half, counting both K and V twice gives double. Taken in candidate order, the answer then sits
in the middle of the options sorted by value in most variants (in 9 of 10 for several templates before
this rule), and "pick neither the smallest nor the largest" finds it without computing anything. Here
the seed picks how many options are to be smaller than the answer (0 to max_distractors, its residue
modulo max_distractors + 1: each equally likely for random seeds, and in turn for consecutive ones) and
the distractors are chosen to put the answer there, so that no rank strategy ("the middle one", "the
second smallest", "the largest") finds it more often than chance. (Whoever knows a variant's seed can
generate the variant, answer included, with this engine: the residue tells them nothing more.)

When the mistakes that apply to a draw's numbers cannot place the answer at that rank (all of them are
larger, say), the numbers are drawn again (the rank stays: it is the seed's), up to
``RANK_TRIES`` draws; only after that does the rank give way, to one the mistakes allow, drawn among
them. Falling back at once would make the ranks the mistakes allow most often (the middle ones) the
most frequent again. A template whose mistakes fall on one side of the answer for most numbers still
needs mistakes of the other side to pass the rank test in tests/attention_engine/test_choice_cues.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

if TYPE_CHECKING:
    from .base import Option, Template

RANK_TRIES = 3  # draws of the numbers that must meet the rank before it gives way


class RankGoal(NamedTuple):
    target: int  # how many options are to show less than the answer
    strict: bool  # False once RANK_TRIES draws could not meet it: then a rank the mistakes allow


class RankedPick:
    """Collects the candidates (in candidate order, the classic first) that are apart from the answer and
    from each other, split by side of the answer, and returns the first set that puts the answer at the
    goal's rank: ``target`` options below it and the rest above."""

    def __init__(
        self,
        template: Template,
        exact: float,
        answer: float,
        goal: RankGoal,
        rng: np.random.Generator,
        keep_first: bool,
    ) -> None:
        self.template, self.exact, self.answer, self.goal, self.rng = template, exact, answer, goal, rng
        self.target = goal.target
        self.size = template.max_distractors
        self.below: list[Option] = []
        self.above: list[Option] = []
        self.first: list[Option] | None = None  # the side holding the classic, when there is one
        self.keep_first = keep_first

    def surplus(self, value: Any) -> bool:
        """Whether a candidate's value (before rounding; None when the mistake does not apply) falls on a
        side that has all it can use, so that showing and checking it is wasted work: the goal's share of
        that side while the goal is strict, max_distractors after. Judged against the exact answer: a value
        that rounds onto the answer is refused either way."""
        if value is None:
            return False
        x = value if type(value) is float or type(value) is int else float(np.asarray(value, dtype=float).flat[0])
        strict = self.goal.strict
        if x < self.exact:
            return len(self.below) >= (self.target if strict else self.size)
        return len(self.above) >= (self.size - self.target if strict else self.size)

    def hopeless(self, remaining: int) -> bool:
        """Whether ``remaining`` more candidates cannot fill the goal's shares while it is strict."""
        if not self.goal.strict:
            return False
        missing = max(self.target - len(self.below), 0) + max(self.size - self.target - len(self.above), 0)
        return missing > remaining

    def add(self, option: Option) -> list[Option] | None:
        side = self.below if option[1][1][0] < self.answer else self.above
        if not self.template._apart(option[1], [o[1] for o in (*self.below, *self.above)]):
            return None
        side.append(option)
        if self.keep_first and self.first is None:
            self.first = side
            if self._classic_blocks(self.target):
                # the classic's side is the same whatever the numbers (n_head K/V heads make a larger
                # cache): drawing them again would not help, so the rank is drawn again among those it allows
                self.target = int(self.rng.integers(self.size)) + (1 if side is self.below else 0)
        return self._pick(self.target, self.size)

    def finish(self) -> list[Option] | None:
        """None (draw the numbers again) while the goal is strict; then a rank drawn among those the kept
        candidates allow, at the full size if they allow any, else with fewer options down to min_distractors."""
        if self.goal.strict:
            return None
        for size in range(self.size, self.template.min_distractors - 1, -1):
            allowed = [rank for rank in range(size + 1) if self._pick(rank, size) is not None]
            if allowed:
                return self._pick(allowed[int(self.rng.integers(len(allowed)))], size)
        return None

    def _classic_blocks(self, target: int) -> bool:
        """Whether the classic lies on the side ``target`` gives no option."""
        return (self.first is self.below and target == 0) or (self.first is self.above and target == self.size)

    def _pick(self, rank: int, size: int) -> list[Option] | None:
        """``rank`` options below the answer and ``size - rank`` above, the classic among them."""
        if len(self.below) < rank or len(self.above) < size - rank:
            return None
        if (self.first is self.below and rank == 0) or (self.first is self.above and rank == size):
            return None  # the classic's side gets no option
        return [*self.below[:rank], *self.above[: size - rank]]
