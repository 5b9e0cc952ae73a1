"""Common attention mistakes, written out as code so a wrong answer can be named and explained.

Each attention misconception is the correct computation

    scores  = q @ k^T * scale(d_k)                     # (..., L, S)
    weights = softmax(where(causal, scores, -inf))      # (..., L, S)
    out     = weights @ v                               # (..., L, Ev)

with exactly one step swapped for the buggy version: either the scale (``missing_scale``,
``divide_by_dk``) or the masked softmax (the others). Question templates run them to produce
distractors, so a learner who picks one gets feedback about the bug they actually made.

The remaining entries (shapes, counting, memory) are mistakes in the arithmetic around attention;
they carry only the text, because the templates that use them compute the wrong value themselves.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from .core import BoolArray, FloatArray, as_float_array, shared_causal_mask, softmax

# ---------------------------------------------------------------------------------------------
# The correct steps, to be replaced one at a time


def correct_scale(d_k: int) -> float:
    """1/sqrt(d_k): brings the variance of q·k (= d_k for unit-variance entries) back to 1."""
    return 1.0 / math.sqrt(d_k)


def _fill_future(scores: FloatArray, is_causal: bool, fill: float) -> FloatArray:
    """Replace the scores of future keys (j > i) by ``fill``; a no-op without causality."""
    if not is_causal:
        return scores
    L, S = scores.shape[-2:]
    return np.where(shared_causal_mask(L, S), scores, fill)  # (..., L, S)


def correct_weights(scores: npt.ArrayLike, is_causal: bool = False) -> FloatArray:
    """softmax over the keys of the (already scaled) scores, future keys set to -inf first."""
    scores = _fill_future(as_float_array(scores), is_causal, -np.inf)  # (..., L, S)
    return softmax(scores, axis=-1)  # (..., L, S), rows sum to 1


# ---------------------------------------------------------------------------------------------
# The buggy steps


def _no_scale(d_k: int) -> float:
    return 1.0  # <- forgot the 1/sqrt(d_k)


def _scale_by_dk(d_k: int) -> float:
    return 1.0 / d_k  # <- 1/d_k instead of 1/sqrt(d_k)


def _scale_by_sqrt_dk(d_k: int) -> float:
    return math.sqrt(d_k)  # <- times sqrt(d_k) instead of 1/sqrt(d_k)


def _softmax_over_queries(scores: FloatArray, is_causal: bool) -> FloatArray:
    scores = _fill_future(scores, is_causal, -np.inf)  # (..., L, S)
    return softmax(scores, axis=-2)  # (..., L, S) <- each key COLUMN sums to 1


def _fill_future_with_zero(scores: FloatArray, is_causal: bool) -> FloatArray:
    scores = _fill_future(scores, is_causal, 0.0)  # (..., L, S) <- 0, not -inf: e^0 = 1
    return softmax(scores, axis=-1)  # (..., L, S) the future still gets weight


def _mask_after_softmax(scores: FloatArray, is_causal: bool) -> FloatArray:
    weights = softmax(scores, axis=-1)  # (..., L, S) the future already took its share
    return _fill_future(weights, is_causal, 0.0)  # (..., L, S) <- rows now sum to less than 1


def _softmax_without_max(scores: FloatArray, is_causal: bool) -> FloatArray:
    scores = _fill_future(scores, is_causal, -np.inf)  # (..., L, S)
    with np.errstate(over="ignore", invalid="ignore"):  # the overflow IS the bug being shown
        e = np.exp(scores)  # (..., L, S) <- e^710 = inf in float64
        sums: FloatArray = e.sum(axis=-1, keepdims=True)  # (..., L, 1) inf where a row overflowed
        return e / sums  # (..., L, S) inf / inf = nan


def _no_softmax(scores: FloatArray, is_causal: bool) -> FloatArray:
    return _fill_future(scores, is_causal, 0.0)  # (..., L, S) <- the scores used as weights


def _ignore_mask(scores: FloatArray, is_causal: bool) -> FloatArray:
    return softmax(scores, axis=-1)  # (..., L, S) <- is_causal ignored


def _roles_swapped(scores: FloatArray, is_causal: bool) -> FloatArray:
    scores = scores.swapaxes(-2, -1)  # (..., L, L) <- row i holds k_i·q_j, not q_i·k_j
    return correct_weights(scores, is_causal)  # (..., L, L) the mask and softmax themselves are right


def _wrong_axis_renormalised(scores: FloatArray, is_causal: bool) -> FloatArray:
    w = _softmax_over_queries(scores, is_causal)  # (..., L, S) <- each key COLUMN sums to 1 ...
    row_sums: FloatArray = w.sum(axis=-1, keepdims=True)  # (..., L, 1)
    return w / row_sums  # (..., L, S) ... then the rows are forced to sum to 1


@lru_cache(maxsize=64)
def _strictly_past(L: int, S: int) -> BoolArray:
    """(L, S) booleans, True where j < i: the causal mask with the diagonal hidden too (read-only, shared)."""
    mask = np.tril(np.ones((L, S), dtype=bool), k=-1)
    mask.flags.writeable = False
    return mask


def _mask_with_diagonal(scores: FloatArray, is_causal: bool) -> FloatArray:
    if not is_causal:
        return correct_weights(scores)
    L, S = scores.shape[-2:]
    visible = _strictly_past(L, S)  # (L, S) <- j < i: the token itself hidden too
    return softmax(np.where(visible, scores, -np.inf), axis=-1)  # row 1 sees nothing: all zeros


def _mask_always(scores: FloatArray, is_causal: bool) -> FloatArray:
    return correct_weights(scores, is_causal=True)  # (..., L, S) <- a causal mask the question did not ask for


def _argmax_as_softmax(scores: FloatArray, is_causal: bool) -> FloatArray:
    scores = _fill_future(scores, is_causal, -np.inf)  # (..., L, S)
    best = scores.argmax(axis=-1)[..., None]  # (..., L, 1) the largest visible score per row
    one_hot: FloatArray = (np.arange(scores.shape[-1]) == best).astype(float)  # (..., L, S) <- weight 1, the rest 0
    return one_hot


# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Misconception:
    """A named mistake with a one-line explanation in Chinese and English.

    ``scale`` / ``normalise`` replace the correct step in attention misconceptions; both are None
    for the arithmetic ones, whose templates compute the wrong value themselves.
    """

    id: str
    title_zh: str
    title_en: str
    explanation_zh: str
    explanation_en: str
    scale: Callable[[int], float] | None = None
    normalise: Callable[[FloatArray, bool], FloatArray] | None = None

    def describe(self) -> dict[str, str]:
        """Id, titles and explanations as plain data: what a learner is shown after a wrong answer."""
        return {
            "id": self.id,
            "title_zh": self.title_zh,
            "title_en": self.title_en,
            "explanation_zh": self.explanation_zh,
            "explanation_en": self.explanation_en,
        }

    @property
    def is_attention(self) -> bool:
        return self.scale is not None or self.normalise is not None

    def wrong_scale(self, d_k: int) -> float:
        """The scale this mistake uses instead of 1/sqrt(d_k) (``missing_scale``, ``divide_by_dk``)."""
        if self.scale is None:
            raise ValueError(f"misconception {self.id!r} does not change the scale")
        return self.scale(d_k)

    def weights_from_scores(self, scores: npt.ArrayLike, is_causal: bool = False) -> FloatArray:
        """Buggy weights (..., L, S) from already-scaled scores (..., L, S)."""
        if self.normalise is None:
            raise ValueError(f"misconception {self.id!r} does not act on the scores' softmax")
        return self.normalise(as_float_array(scores), is_causal)

    def weights(self, q: npt.ArrayLike, k: npt.ArrayLike, is_causal: bool = False) -> FloatArray:
        """Buggy weights (..., L, S) from q (..., L, E) and k (..., S, E)."""
        q, k = as_float_array(q), as_float_array(k)
        dots = q @ k.swapaxes(-2, -1)  # (..., L, E) @ (..., E, S) -> (..., L, S)
        return self.weights_from_dots(dots, q.shape[-1], is_causal)

    def weights_from_dots(self, dots: FloatArray, d_k: int, is_causal: bool = False) -> FloatArray:
        """Buggy weights (..., L, S) from the unscaled q·k (..., L, S): one Q Kᵀ serves every bug."""
        if not self.is_attention:
            raise ValueError(f"misconception {self.id!r} is not a bug in the attention computation")
        scores = dots * (self.scale or correct_scale)(d_k)  # (..., L, S)
        return (self.normalise or correct_weights)(scores, is_causal)

    def attention(
        self, q: npt.ArrayLike, k: npt.ArrayLike, v: npt.ArrayLike, is_causal: bool = False
    ) -> tuple[FloatArray, FloatArray]:
        """(output (..., L, Ev), weights (..., L, S)) with the bug in place."""
        weights = self.weights(q, k, is_causal)  # (..., L, S)
        return weights @ as_float_array(v), weights  # (..., L, S) @ (..., S, Ev) -> (..., L, Ev)


_ALL = (
    # --- bugs in the attention computation -------------------------------------------------
    Misconception(
        "missing_scale",
        "忘了除以 √d_k",
        "Forgot to divide by √d_k",
        "点积没有除以 √d_k：分数的方差随 d_k 增大，softmax 变尖，接近 one-hot。",
        "The dot products are not divided by √d_k: their variance grows with d_k and the softmax "
        "becomes nearly one-hot.",
        scale=_no_scale,
    ),
    Misconception(
        "divide_by_dk",
        "除以 d_k 而不是 √d_k",
        "Divided by d_k instead of √d_k",
        "除以 d_k 把方差从 d_k 压到 1/d_k，而不是 1：分数被压得太平，softmax 接近均匀分布。",
        "Dividing by d_k shrinks the variance from d_k to 1/d_k instead of 1: the scores are "
        "flattened and the softmax is close to uniform.",
        scale=_scale_by_dk,
    ),
    Misconception(
        "scale_inverted",
        "乘以 √d_k 而不是除以",
        "Multiplied by √d_k instead of dividing",
        "缩放是乘以 1/√d_k（nanoGPT 写作 * (1.0 / math.sqrt(k.size(-1)))）；乘以 √d_k 把分数的方差从 d_k 放大到 d_k²，"
        "softmax 比不缩放还尖。",
        "The scale multiplies by 1/√d_k (nanoGPT writes * (1.0 / math.sqrt(k.size(-1)))); multiplying by √d_k "
        "raises the variance of the scores from d_k to d_k², and the softmax gets even sharper than unscaled.",
        scale=_scale_by_sqrt_dk,
    ),
    Misconception(
        "scale_uses_seq_len",
        "除以 √T（序列长度）而不是 √d_k",
        "Divided by √T (the sequence length) instead of √d_k",
        "缩放用的是每个 query/key 向量的维度 d_k，即 K.shape[-1]；序列长度 T 是 K.shape[-2]（二维时是 K.shape[0]），"
        "两者不相等时权重就错了。",
        "The scale uses d_k, the size of each query/key vector, K.shape[-1]; the sequence length T is K.shape[-2] "
        "(K.shape[0] in 2-D), and when the two differ the weights come out wrong.",
    ),
    Misconception(
        "softmax_wrong_axis",
        "softmax 用错了轴",
        "Softmax over the wrong axis",
        "softmax 应该沿 key 的方向（最后一维）做，让每个 query 的权重和为 1；沿 query 方向做，变成了每列和为 1。",
        "The softmax must run over the keys (the last axis) so each query's weights sum to 1; over "
        "the queries, each column sums to 1 instead.",
        normalise=_softmax_over_queries,
    ),
    Misconception(
        "mask_fill_zero",
        "掩码填 0 而不是 −∞",
        "Masked with 0 instead of −∞",
        "被遮住的分数填 0，但 e^0 = 1，未来位置仍然分到权重；只有 e^(−∞) = 0 才是真正的忽略。",
        "Masked scores set to 0 still get weight, because e^0 = 1; only e^(−∞) = 0 really ignores a position.",
        normalise=_fill_future_with_zero,
    ),
    Misconception(
        "mask_after_softmax",
        "softmax 之后才掩码",
        "Masked after the softmax",
        "先 softmax 再把未来位置清零、又不重新归一化：每行的和小于 1，剩下的权重也偏小。",
        "Zeroing the future weights after the softmax, without renormalising, leaves rows that sum "
        "to less than 1 and visible weights that are too small.",
        normalise=_mask_after_softmax,
    ),
    Misconception(
        "no_max_subtraction",
        "softmax 没有先减最大值",
        "Softmax without subtracting the max",
        "直接算 e^x：分数很大时（float64 中 x > 709）溢出成 inf，inf/inf 得到 nan；先减每行最大值结果不变且不会溢出。",
        "Computing e^x directly overflows to inf for large scores (x > 709 in float64) and inf/inf "
        "gives nan; subtracting the row max first changes nothing and cannot overflow.",
        normalise=_softmax_without_max,
    ),
    Misconception(
        "missing_softmax",
        "忘了 softmax",
        "Forgot the softmax",
        "缩放后的分数直接当权重用：它们可以是负数、和也不是 1；softmax 才把它们变成和为 1 的非负权重。",
        "The scaled scores were used as weights directly: they can be negative and need not sum to 1; "
        "the softmax is what turns them into non-negative weights that sum to 1.",
        normalise=_no_softmax,
    ),
    Misconception(
        "missing_causal_mask",
        "忘了因果掩码",
        "Forgot the causal mask",
        "没有把未来位置设为 −∞：每个位置都能看到后面的词，训练时等于偷看答案。",
        "The future positions were not set to −∞: every position sees the words after it, which is "
        "copying the answer during training.",
        normalise=_ignore_mask,
    ),
    Misconception(
        "scores_transposed",
        "query 与 key 的角色对调了",
        "Swapped the roles of query and key",
        "第 i 行的分数是 q_i·k_j（第 i 个 query 对每个 key）；算成 k_i·q_j 就是用了 Sᵀ 的第 i 行，"
        "query 与 key 的角色对调了。",
        "Row i of the scores is q_i·k_j (query i against every key); computing k_i·q_j takes row i of Sᵀ "
        "instead, with the roles of query and key swapped.",
        normalise=_roles_swapped,
    ),
    Misconception(
        "softmax_wrong_axis_renormalised",
        "沿错轴 softmax 后再按行归一化",
        "Softmax over the wrong axis, then rows renormalised",
        "先沿 query 方向（每列）做了 softmax，再把每行除以行和：行和虽然是 1，数值却不对；"
        "softmax 只沿 key 方向（最后一维）做一次。",
        "The softmax ran down each column (over the queries) and the rows were then divided by their "
        "sums: they add up to 1 but the values are wrong; the softmax runs once, over the keys (the last axis).",
        normalise=_wrong_axis_renormalised,
    ),
    Misconception(
        "mask_hides_diagonal",
        "掩码连对角线也挡住了",
        "The mask also hid the diagonal",
        "因果掩码只挡住 j > i 的未来位置（np.triu(..., k=1)）；第 i 个 token 能看到自己，对角线要保留。",
        "The causal mask hides only the future keys, j > i (np.triu(..., k=1)); token i sees itself, so the "
        "diagonal stays visible.",
        normalise=_mask_with_diagonal,
    ),
    Misconception(
        "unneeded_causal_mask",
        "不需要掩码时也加了因果掩码",
        "Added a causal mask that was not asked for",
        "题目说不使用掩码（如 BERT 式的双向注意力）：每个 query 都看所有 key；因果掩码只用于 decoder。",
        "The question says no mask (bidirectional, as in BERT): every query sees every key; the causal "
        "mask belongs to decoders.",
        normalise=_mask_always,
    ),
    Misconception(
        "softmax_as_argmax",
        "把 softmax 当成了 argmax",
        "Treated the softmax as an argmax",
        "softmax 给每个可见的 key 一份正的权重（e^x > 0），只是分数大的份额大；"
        "只给最大分数权重 1 的是 argmax（hard attention）。",
        "The softmax gives every visible key a positive share (e^x > 0), larger for larger scores; "
        "giving weight 1 to the largest score alone is an argmax (hard attention).",
        normalise=_argmax_as_softmax,
    ),
    Misconception(
        "wrong_query_row",
        "取了相邻 token 的那一行",
        "Took a neighbouring token's row",
        "第 i 个 token（从 1 数起）的权重是分数矩阵的第 i 行，代码里下标是 i − 1；差一行就是另一个 query 的结果。",
        "Token i (counting from 1) uses row i of the score matrix, index i − 1 in code; one row off is "
        "another query's result.",
    ),
    # --- the masking contrast --------------------------------------------------------------
    Misconception(
        "zero_means_masked",
        "以为填 0 就等于屏蔽",
        "Thought a 0 score means masked",
        "0 是一个普通的分数，不是 −∞：填 0 之后 softmax 照样给它 e^0 = 1 的份额，结果不等于正确的掩码权重。",
        "0 is an ordinary score, not −∞: after filling with 0 the softmax still gives it a share of "
        "e^0 = 1, so the result is not the correctly masked weights.",
    ),
    # --- why √d_k -------------------------------------------------------------------------------
    Misconception(
        "std_for_variance",
        "把标准差当成方差",
        "Confused standard deviation with variance",
        "q·k 是 d_k 个方差为 1 的项之和，方差是 d_k，标准差才是 √d_k。",
        "q·k is a sum of d_k unit-variance terms: its variance is d_k, its standard deviation √d_k.",
    ),
    Misconception(
        "scaling_sharpens",
        "以为缩放让 softmax 更尖",
        "Thought scaling sharpens the softmax",
        "除以 √d_k 让分数变小、差距变小，softmax 变平缓；不缩放时最大权重才接近 1。",
        "Dividing by √d_k makes the scores and their gaps smaller, so the softmax gets flatter; "
        "unscaled, the largest weight is the one close to 1.",
    ),
    Misconception(
        "dot_unit_variance",
        "以为 q·k 的方差也是 1",
        "Thought q·k has unit variance too",
        "q、k 的每个分量方差为 1，但 q·k 是 d_k 个乘积之和，方差相加得 d_k；正因为它不是 1，才要除以 √d_k。",
        "Each entry of q and k has variance 1, but q·k is a sum of d_k products and the variances add up to d_k; "
        "it is because it is not 1 that the scores are divided by √d_k.",
    ),
    Misconception(
        "stds_added",
        "把标准差相加了",
        "Added the standard deviations",
        "独立项相加时方差相加，标准差不相加：d_k 个方差为 1 的项之和，标准差是 √d_k，不是 d_k（那样方差就成了 d_k²）。",
        "For independent terms the variances add, not the standard deviations: a sum of d_k unit-variance terms "
        "has standard deviation √d_k, not d_k (which would make the variance d_k²).",
    ),
    Misconception(
        "variance_scales_linearly",
        "以为除以 c 方差也只除以 c",
        "Thought dividing by c divides the variance by c",
        "Var(x / c) = Var(x) / c²：除以 √d_k 让方差除以 d_k，从 d_k 回到 1；只除以 √d_k 得到的是 √d_k。",
        "Var(x / c) = Var(x) / c²: dividing by √d_k divides the variance by d_k, from d_k back to 1; dividing it by "
        "√d_k only would leave √d_k.",
    ),
    # --- shapes ---------------------------------------------------------------------------------
    Misconception(
        "transposed_product",
        "算成了 Qᵀ K",
        "Computed Qᵀ K instead of Q Kᵀ",
        "分数是 Q Kᵀ：(T, d_k) @ (d_k, T) = (T, T)，每个 query 对每个 key 一个分数；Qᵀ K 得到的是 (d_k, d_k)。",
        "The scores are Q Kᵀ: (T, d_k) @ (d_k, T) = (T, T), one score per query and key; Qᵀ K "
        "gives a (d_k, d_k) matrix.",
    ),
    Misconception(
        "shape_keeps_d_model",
        "以为投影后宽度仍是 d_model",
        "Thought the projections keep width d_model",
        "Q = X W_Q 中 W_Q 的形状是 (d_model, d_k)，所以 Q 的宽度是 d_k，V 的宽度是 d_v。",
        "In Q = X W_Q the matrix W_Q is (d_model, d_k), so Q has width d_k and V has width d_v.",
    ),
    Misconception(
        "output_width_d_model",
        "以为单头输出宽度是 d_model",
        "Thought one head outputs width d_model",
        "输出是 weights @ V：(T, T) @ (T, d_v) = (T, d_v)；回到 d_model 要靠之后的输出投影。",
        "The output is weights @ V: (T, T) @ (T, d_v) = (T, d_v); getting back to d_model is the job "
        "of the output projection that follows.",
    ),
    Misconception(
        "missing_transpose",
        "view 之后忘了 transpose",
        "Forgot the transpose after view",
        "view 得到 (B, T, nh, hs)，还要 transpose(1, 2) 变成 (B, nh, T, hs)，头才成为批量维。",
        "view gives (B, T, nh, hs); transpose(1, 2) is needed to get (B, nh, T, hs) so the heads "
        "become a batch dimension.",
    ),
    Misconception(
        "no_head_split",
        "以为每个头拿到全部维度",
        "Thought every head gets all C dimensions",
        "多头是把 C 维平均切成 n_head 份：每个头 hs = C / n_head 维，而不是完整的 C 维。",
        "Multi-head attention splits the C dimensions into n_head equal parts: each head gets "
        "hs = C / n_head dimensions, not all C.",
    ),
    Misconception(
        "heads_multiply_width",
        "以为多头把宽度乘以头数",
        "Thought more heads multiply the width",
        "头数增加时每个头变窄（hs = C / n_head），总宽度 n_head × hs 仍是 C，计算量和参数量不变。",
        "With more heads each head gets narrower (hs = C / n_head): the total width n_head × hs "
        "stays C, and so do the compute and parameter count.",
    ),
    Misconception(
        "reassembly_forgotten",
        "忘了把多头拼回去",
        "Forgot to re-assemble the heads",
        "att @ v 得到 (B, nh, T, hs)，还要 transpose(1, 2).contiguous().view(B, T, C) 把各头并排拼回 C 维。",
        "att @ v gives (B, nh, T, hs); transpose(1, 2).contiguous().view(B, T, C) puts the heads "
        "side by side again as C dimensions.",
    ),
    Misconception(
        "heads_averaged",
        "以为多头输出取平均",
        "Thought head outputs are averaged",
        "各头的输出是并排拼接（concat）成 nh × hs = C 维，不是取平均得到 hs 维。",
        "The heads' outputs are concatenated side by side into nh × hs = C dimensions, not averaged "
        "into hs dimensions.",
    ),
    Misconception(
        "elementwise_scores",
        "把打分当成了逐元素乘积",
        "Took the scores for an element-wise product",
        "分数是每个 query 与每个 key 的点积：Q Kᵀ 是 (T, d_k) @ (d_k, T) = (T, T)；逐元素乘积 Q ⊙ K 仍是 (T, d_k)，"
        "给不出每一对 (query, key) 的分数。",
        "A score is the dot product of a query with a key: Q Kᵀ is (T, d_k) @ (d_k, T) = (T, T); the element-wise "
        "product Q ⊙ K stays (T, d_k) and gives no score per (query, key) pair.",
    ),
    Misconception(
        "value_is_input",
        "以为 V 就是输入 X",
        "Thought V is the input X itself",
        "V = X W_V 也要经过投影，宽度是 d_v；直接拿 X 当 V，V 和输出 O = W V 的宽度都成了 d_model。",
        "V = X W_V is a projection too, of width d_v; taking X itself as V gives V and the output O = W V the "
        "width d_model.",
    ),
    Misconception(
        "output_is_weights",
        "把权重矩阵当成了输出",
        "Took the weights for the output",
        "softmax 得到的 (T, T) 矩阵是权重；输出是用它们对 value 的加权和 O = W V，形状 (T, d_v)。",
        "The (T, T) matrix from the softmax holds the weights; the output is the weighted sum of the values, "
        "O = W V, of shape (T, d_v).",
    ),
    Misconception(
        "qkv_split_forgotten",
        "忘了把 c_attn 的输出拆成 q、k、v",
        "Forgot to split c_attn's output into q, k, v",
        "c_attn 一次算出 q、k、v，输出宽 3C；要先 split(C, dim=2) 成三份各 C 宽，再拆头，每个头 hs = C / n_head，"
        "不是 3C / n_head。",
        "c_attn computes q, k and v at once, 3C wide; split(C, dim=2) first gives three tensors of width C, and "
        "only then are the heads split, hs = C / n_head each, not 3C / n_head.",
    ),
    # --- parameters --------------------------------------------------------------------------
    Misconception(
        "c_attn_single_projection",
        "以为 c_attn 只有一个投影",
        "Thought c_attn is a single projection",
        "c_attn 把 Q、K、V 三个投影合成一个 C → 3C 的线性层，权重是 C × 3C，不是 C × C。",
        "c_attn fuses the Q, K and V projections into one C → 3C linear layer: its weight is C × 3C, not C × C.",
    ),
    Misconception(
        "bias_miscount",
        "偏置算错",
        "Miscounted the biases",
        "bias=True 时每个输出特征一个偏置（c_attn 3C 个，c_proj C 个）；bias=False 时一个都没有。",
        "With bias=True there is one bias per output feature (3C for c_attn, C for c_proj); with "
        "bias=False there are none.",
    ),
    Misconception(
        "params_scale_with_heads",
        "以为参数量随头数增加",
        "Thought parameters grow with the number of heads",
        "多头只是把同一个 C → 3C 投影的输出切成 n_head 份，参数量与头数无关。",
        "Multi-head attention only splits the output of the same C → 3C projection into n_head "
        "parts: the parameter count does not depend on the number of heads.",
    ),
    Misconception(
        "one_head_only",
        "只算了一个头",
        "Counted one head only",
        "c_attn（C → 3C）和 c_proj（C → C）是所有头共用的整块线性层，每个头只是其中 hs = C / n_head 宽的一段；"
        "数参数或输出宽度时不能只算一个头。",
        "c_attn (C → 3C) and c_proj (C → C) are single linear layers shared by all heads, each head being a slice "
        "hs = C / n_head wide; counting parameters or widths for one head leaves the others out.",
    ),
    Misconception(
        "single_head_of_width_c",
        "以为拆头后只有一个宽度为 C 的头",
        "Thought the split leaves one head of width C",
        "view(B, T, n_head, C // n_head) 把 C 切成 n_head 段，transpose(1, 2) 之后是 (B, nh, T, hs)："
        "头维的大小是 n_head，每个头宽 hs = C / n_head，而不是 1 个宽 C 的头。",
        "view(B, T, n_head, C // n_head) cuts C into n_head slices, and after transpose(1, 2) the shape is "
        "(B, nh, T, hs): the head axis has n_head entries, each head hs = C / n_head wide, not one head of width C.",
    ),
    Misconception(
        "att_block_size",
        "以为 att 的大小是 block_size × block_size",
        "Thought att is block_size × block_size",
        "因果掩码 bias 按 block_size 注册为 (1, 1, block_size, block_size)，但 att 是长度为 T 的 q 与 k 相乘得到的 "
        "(B, nh, T, T)；正因为如此，掩码要先切成 bias[:, :, :T, :T] 才能与 att 对齐。",
        "The causal mask buffer bias is registered at (1, 1, block_size, block_size), but att comes from q and k "
        "of length T and is (B, nh, T, T); that is why the mask is sliced to bias[:, :, :T, :T] before it is applied.",
    ),
    Misconception(
        "heads_share_weights",
        "以为所有头共用一张注意力权重表",
        "Thought all heads share one table of attention weights",
        "每个头有自己的 q 和 k，所以各算一张 (T, T) 的权重表：att 是 (B, nh, T, T)。"
        "形状为 (1, 1, T, T) 的是因果掩码，它靠广播作用到每个样本、每个头。",
        "Each head has its own q and k, so each computes its own (T, T) table of weights: att is (B, nh, T, T). "
        "What has shape (1, 1, T, T) is the causal mask, which broadcasts over every example and every head.",
    ),
    # --- KV cache -----------------------------------------------------------------------------
    Misconception(
        "kv_count_attention_scores",
        "数成了注意力打分次数",
        "Counted attention scores, not K/V projections",
        "KV cache 省的是 K/V 投影：不缓存第 t 步要投影 t 个词，缓存后只投影 1 个；注意力打分每步仍要和全部旧词比。",
        "A KV cache saves K/V projections: without it step t projects t tokens, with it only 1; the "
        "attention scores still compare against all earlier tokens at every step.",
    ),
    Misconception(
        "kv_count_n_squared",
        "每步都按 n 个词计",
        "Counted n tokens at every step",
        "第 t 步只有 t 个词需要重算，总数是 1 + 2 + … + n = n(n+1)/2，不是 n × n。",
        "Step t recomputes only t tokens, so the total is 1 + 2 + … + n = n(n+1)/2, not n × n.",
    ),
    Misconception(
        "triangular_not_halved",
        "1 + 2 + … + n 忘了除以 2",
        "Forgot to halve 1 + 2 + … + n",
        "1 + 2 + … + n = n(n+1)/2：把它和倒过来的 n + … + 1 相加，每对都是 n + 1，共 n 对，再除以 2；"
        "n(n+1) 是它的两倍。",
        "1 + 2 + … + n = n(n+1)/2: add it to n + … + 1, each pair makes n + 1, n pairs, then halve; n(n+1) is twice "
        "the sum.",
    ),
    Misconception(
        "kv_steps_off_by_one",
        "少数了一步",
        "Counted one step too few",
        "生成 n 个 token 就是 n 步，第 t 步（t = 1…n）输入 t 个 token；从 0 数起会少一步，"
        "得到 n − 1 步的 n(n−1)/2 次。",
        "Generating n tokens takes n steps, step t (t = 1…n) feeding t tokens; counting from 0 drops a step and "
        "gives the n(n−1)/2 of n − 1 steps.",
    ),
    Misconception(
        "percent_remaining",
        "算成了剩下的比例",
        "Gave the fraction remaining, not saved",
        "节省比例 = 1 − 缓存后次数 / 不缓存次数；缓存后次数 / 不缓存次数是剩下的比例。",
        "The saving is 1 − with / without; with / without is the fraction that remains.",
    ),
    # --- RNN gradients ------------------------------------------------------------------------
    Misconception(
        "exponent_off_by_one",
        "指数差了一",
        "Exponent off by one",
        "传 n 步就乘 n 次系数，剩下 factor^n，不是 factor^(n−1)。",
        "Passing back n steps multiplies by the factor n times: factor^n remains, not factor^(n−1).",
    ),
    Misconception(
        "exponent_counts_the_start",
        "把起点也算了一步",
        "Counted the starting step too",
        "传 n 步就乘 n 次系数，剩下 factor^n；把梯度出发的那一步也算上，就多乘了一次，成了 factor^(n+1)。",
        "Passing back n steps multiplies by the factor n times, leaving factor^n; counting the step the gradient "
        "starts from as well multiplies once more, factor^(n+1).",
    ),
    Misconception(
        "gradient_linear_decay",
        "以为梯度线性衰减",
        "Thought the gradient decays linearly",
        "每步是乘以系数，不是减去固定的量：衰减是指数的 factor^n，不是 1 − n(1 − factor)。",
        "Each step multiplies by the factor rather than subtracting a fixed amount: the decay is "
        "exponential, factor^n, not 1 − n(1 − factor).",
    ),
    Misconception(
        "gradient_factor_as_loss",
        "把系数当成了每步损失的比例",
        "Took the factor as the part lost per step",
        "梯度每步乘以系数 factor：factor 是保留下来的比例。当成每步损失 factor，剩下的就成了 (1 − factor)^n。",
        "The gradient is multiplied by the factor at each step: the factor is the part kept. Taken as the part "
        "lost per step, what remains becomes (1 − factor)^n.",
    ),
    Misconception(
        "gradient_lost_fraction",
        "算成了损失掉的部分",
        "Gave the part lost, not the part left",
        "问的是梯度还剩多少：factor^n；1 − factor^n 是损失掉的部分。",
        "The question asks what remains, factor^n; 1 − factor^n is the part that was lost.",
    ),
    # --- BERT vs GPT ----------------------------------------------------------------------------
    Misconception(
        "bert_all_positions",
        "以为 BERT 每个位置都被监督",
        "Thought BERT is supervised at every position",
        "BERT 只预测被选中的 token：N × 选中率（15%）个位置，"
        "不论它们被换成 [MASK]、随机词还是保持原样；其余位置没有损失。",
        "BERT predicts only the selected tokens: N × selection rate (15%) positions, whether each became [MASK], a "
        "random token or stayed unchanged; the other positions have no loss.",
    ),
    Misconception(
        "bert_unmasked_positions",
        "以为 BERT 预测没被遮的词",
        "Thought BERT predicts the unmasked tokens",
        "BERT 的监督信号来自被选中预测的 15%（其中 80% 换成 [MASK]），不是剩下的 85%。",
        "BERT's training signal comes from the 15% selected for prediction (80% of them replaced by [MASK]), not "
        "from the remaining 85%.",
    ),
    Misconception(
        "gpt_all_positions",
        "以为 GPT 预测 N 个位置",
        "Thought GPT predicts N positions",
        "GPT 每个位置预测下一个词，第一个词没有前文可供预测它：N 个词给出 N − 1 个监督位置。",
        "GPT predicts the next token at each position and nothing predicts the first token: N tokens "
        "give N − 1 supervised positions.",
    ),
    Misconception(
        "bert_mask_token_only",
        "以为 BERT 只预测换成 [MASK] 的词",
        "Thought BERT predicts only the tokens replaced by [MASK]",
        "BERT 选出 15% 的位置作为预测目标：其中 80% 换成 [MASK]、10% 换成随机词、10% 保持不变，三种都计算损失；"
        "只数 [MASK] 会少算五分之一。",
        "BERT picks 15% of the positions as prediction targets: 80% of them become [MASK], 10% a random token and "
        "10% stay unchanged, and all three count in the loss; counting only the [MASK] ones misses a fifth.",
    ),
    Misconception(
        "gpt_last_position_only",
        "以为 GPT 只在最后一个位置预测",
        "Thought GPT predicts at the last position only",
        "训练时 GPT 在每个位置都预测下一个 token，一次前向给出 N − 1 个监督位置；"
        "只在最后一个位置预测的是生成时的一步。",
        "In training GPT predicts the next token at every position, N − 1 supervised positions in one forward pass; "
        "predicting at the last position only is one step of generation.",
    ),
    # --- memory ----------------------------------------------------------------------------------
    Misconception(
        "dtype_bits_as_bytes",
        "把位数当成字节数",
        "Used bits as bytes",
        "float32 是 32 位 = 4 字节，float16/bfloat16 是 2 字节，float64 是 8 字节。",
        "float32 is 32 bits = 4 bytes; float16/bfloat16 are 2 bytes and float64 is 8 bytes.",
    ),
    Misconception(
        "memory_missing_heads",
        "忘了乘以头数",
        "Forgot the number of heads",
        "每个头都有自己的 (T, T) 注意力矩阵：总元素数是 B × n_head × T × T。",
        "Every head has its own (T, T) attention matrix: B × n_head × T × T elements in total.",
    ),
    Misconception(
        "blockwise_materialises_full",
        "以为分块仍要存整张矩阵",
        "Thought blockwise still stores the full matrix",
        "分块注意力不存整张 (T, T) 矩阵：只把 key 按 tile 分块时，同一时刻只存一个 (T, tile_size) 的分数块和每行的运行"
        "统计量；FlashAttention 把 query 也分块，片上一次只放一个 B_r × B_c 的分数块。",
        "Blockwise attention never stores the full (T, T) matrix: chunking only the keys holds one (T, tile_size) "
        "score slab plus per-row running statistics at a time; FlashAttention tiles the queries too and keeps "
        "a single B_r × B_c score tile on chip.",
    ),
    Misconception(
        "memory_missing_batch",
        "忘了乘以 batch",
        "Forgot the batch size",
        "batch 里每个序列都有自己的注意力矩阵：元素数要乘以 B。",
        "Every sequence in the batch has its own attention matrix: the element count is multiplied by B.",
    ),
    Misconception(
        "mib_as_mb",
        "把 MiB 当成了 10⁶ 字节",
        "Took a MiB to be 10⁶ bytes",
        "1 MiB = 2²⁰ = 1,048,576 字节，1 GiB = 2³⁰ 字节；除以 10⁶ 得到的是 MB，数值大了约 5%。",
        "1 MiB = 2²⁰ = 1,048,576 bytes and 1 GiB = 2³⁰ bytes; dividing by 10⁶ gives MB, about 5% larger.",
    ),
    Misconception(
        "memory_counts_elements",
        "只数了元素个数，没乘字节数",
        "Counted elements, not bytes",
        "显存 = 元素个数 × 每个元素的字节数（float32 为 4，float16/bfloat16 为 2，float64 为 8）；"
        "只数元素，结果小了 2–8 倍。",
        "Memory is the number of elements times the bytes per element (4 for float32, 2 for float16/bfloat16, 8 for "
        "float64); counting elements only comes out 2 to 8 times too small.",
    ),
    # --- KV-cache memory ------------------------------------------------------------------------
    Misconception(
        "kv_caches_queries",
        "把 Q 也算进了缓存",
        "Cached the queries too",
        "decode 时每一步只用新 token 的 query，它和所有缓存的 K、V 做注意力；旧 token 的 Q 以后再也用不到，"
        "所以只缓存 K 和 V。把 Q 也算进去，每层每 token 多了 n_head·head_size 个数。",
        "At each decode step only the new token's query is used, against every cached K and V; the old tokens' "
        "queries are never needed again, so only K and V are cached. Counting Q adds n_head·head_size numbers "
        "per token per layer.",
    ),
    Misconception(
        "kv_forgot_two",
        "忘了乘以 2（K 和 V）",
        "Forgot the factor 2 (K and V)",
        "KV cache 每层存两个张量：K 和 V，各是 (B, n_kv_head, T, head_size)，所以要乘以 2。",
        "The cache holds two tensors per layer, K and V, each (B, n_kv_head, T, head_size): hence the factor 2.",
    ),
    Misconception(
        "kv_ignores_gqa",
        "用了 n_head 而不是 n_kv_head",
        "Used n_head instead of n_kv_head",
        "分组查询（GQA）/多查询（MQA）注意力里，几个 query 头共用一组 K/V：缓存里只有 n_kv_head 个头的 K、V。",
        "With grouped-query (GQA) or multi-query (MQA) attention several query heads share one K/V head: "
        "the cache holds only n_kv_head heads of K and V.",
    ),
    Misconception(
        "kv_forgot_layers",
        "忘了乘以层数",
        "Forgot the number of layers",
        "每一层都有自己的 K、V 缓存：总量要乘以 n_layer。",
        "Every layer keeps its own K and V cache: the total is multiplied by n_layer.",
    ),
    # --- online softmax (FlashAttention) -------------------------------------------------------
    Misconception(
        "online_no_rescale",
        "旧的和没有重新缩放",
        "Did not rescale the old sum",
        "l₁ 里的每一项是 e^(s − m₁)；最大值变成 m₂ 后要乘以 e^(m₁ − m₂) 才能和新项 e^(s − m₂) 相加。",
        "Each term of l₁ is e^(s − m₁); once the max becomes m₂ it must be multiplied by e^(m₁ − m₂) "
        "before it can be added to the new terms e^(s − m₂).",
    ),
    Misconception(
        "online_rescale_inverted",
        "缩放因子写反了",
        "Rescaled with the inverted factor",
        "新最大值 m₂ ≥ m₁，旧的和要乘以 e^(m₁ − m₂) ≤ 1（变小）；乘 e^(m₂ − m₁) 方向反了。",
        "The new max m₂ ≥ m₁, so the old sum is multiplied by e^(m₁ − m₂) ≤ 1 (it shrinks); e^(m₂ − m₁) "
        "goes the wrong way.",
    ),
    Misconception(
        "online_tile_local_max",
        "每个 tile 各用自己的最大值",
        "Kept each tile's own max",
        "各 tile 的项必须相对同一个运行最大值：第 1 个 tile 的项也要换算到 m₂（乘以 e^(m₁ − m₂)），不能留在 m₁。",
        "All terms must be relative to the same running max: the first tile's terms are moved to m₂ "
        "(times e^(m₁ − m₂)) rather than left relative to m₁.",
    ),
    Misconception(
        "online_dropped_old_sum",
        "丢掉了前一个 tile 的和",
        "Dropped the previous tile's sum",
        "运行和要累积所有已处理的 key：l₂ = l₁·e^(m₁ − m₂) + Σ_新 e^(s − m₂)，不是只算新 tile。",
        "The running sum accumulates every key seen so far: l₂ = l₁·e^(m₁ − m₂) + Σ_new e^(s − m₂), "
        "not the new tile alone.",
    ),
    Misconception(
        "online_rescaled_new_tile",
        "把缩放因子乘在了新 tile 上",
        "Rescaled the new tile instead of the old sum",
        "换算的是旧的和：l₁ 的项相对 m₁，要乘以 e^(m₁ − m₂) 才相对 m₂；"
        "新 tile 的项 e^(s − m₂) 本来就相对 m₂，不用再乘。",
        "It is the old sum that is moved: the terms of l₁ are relative to m₁ and need e^(m₁ − m₂) to be relative to "
        "m₂; the new tile's terms e^(s − m₂) already are, and need no factor.",
    ),
    # --- softmax of large logits -----------------------------------------------------------------
    Misconception(
        "linear_normalisation",
        "按数值线性归一化",
        "Normalised linearly",
        "softmax 是 e^x / Σ e^x，不是 x / Σ x：它只看 logit 之间的差，差 1 就是 e ≈ 2.7 倍的权重。",
        "The softmax is e^x / Σ e^x, not x / Σ x: it depends only on the differences of the logits, and a "
        "difference of 1 is a factor e ≈ 2.7 in weight.",
    ),
    Misconception(
        "shifted_linear_normalisation",
        "平移后按比例归一化",
        "Shifted, then normalised linearly",
        "减去最小值让分数非负、再除以总和，仍是线性归一化：softmax 的权重正比于 e^x，差 1 就是 e ≈ 2.7 倍。",
        "Subtracting the minimum to make the scores non-negative and dividing by their sum is still linear: "
        "softmax weights are proportional to e^x, so a difference of 1 is a factor e ≈ 2.7.",
    ),
    Misconception(
        "clamp_logits",
        "把 logit 截断到不溢出的上限",
        "Clamped the logits to the overflow limit",
        "截断会把超过上限的 logit 变成同一个值，丢掉它们之间的差；减去最大值不改变 softmax，也不会溢出。",
        "Clamping turns every logit above the limit into the same value and loses their differences; "
        "subtracting the max leaves the softmax unchanged and cannot overflow.",
    ),
    Misconception(
        "standardised_logits",
        "先把 logit 标准化（减均值、除以标准差）",
        "Standardised the logits (minus the mean, over the std)",
        "softmax 只对平移不变：每个 logit 减去同一个数（如最大值）结果不变；"
        "再除以标准差就改变了 logit 之间的差，权重也跟着变。",
        "The softmax is invariant to shifts only: subtracting one number from every logit (the max, say) changes "
        "nothing, but dividing by the standard deviation changes the differences between logits, and the weights.",
    ),
    Misconception(
        "minmax_scaled_logits",
        "把 logit 缩放到 [0, 1]",
        "Scaled the logits to [0, 1]",
        "(x − min) / (max − min) 不只是平移，还把 logit 之间的差缩放了；softmax 只对平移不变，对缩放不是，权重跟着变。",
        "(x − min) / (max − min) does not only shift the logits, it also rescales their differences; the softmax is "
        "invariant to shifts, not to scaling, so the weights change.",
    ),
    # --- shapes, continued ---------------------------------------------------------------------
    Misconception(
        "dv_equals_dk",
        "以为 V 的宽度也是 d_k",
        "Thought V has width d_k too",
        "Q、K 要做点积，宽度都是 d_k；V 的宽度是 d_v，可以不同，输出 O = W V 的宽度也是 d_v。",
        "Q and K are dotted, so both have width d_k; V has its own width d_v, and so does the output O = W V.",
    ),
    Misconception(
        "head_count_for_size",
        "把头数和每头维度弄混了",
        "Mixed up the head count and the head size",
        "d_model = n_head × head_size：n_head 是头的个数，每个头的维度是 d_model / n_head。",
        "d_model = n_head × head_size: n_head counts the heads, each head has d_model / n_head dimensions.",
    ),
    Misconception(
        "kv_counted_twice",
        "把 K 和 V 分开数了",
        "Counted K and V separately",
        "题目数的是算 K/V 的位置数：一个位置的 K 和 V 一起算一次，不是两次；节省的比例不受影响。",
        "The question counts positions whose K/V are computed: K and V of one position count once, not "
        "twice; the percentage saved is the same either way.",
    ),
    # --- code questions (attention_engine.codecheck) -------------------------------------------
    Misconception(
        "t_reverses_all_axes",
        "用 .T 转置了所有轴",
        "Used .T, which reverses every axis",
        ".T（以及不带 axes 的 np.transpose）会反转所有轴：二维时正好是 Kᵀ，"
        "但 (B, nh, T, d) 会变成 (d, T, nh, B)；批量时用 K.swapaxes(-2, -1) 只交换最后两维。",
        ".T (and np.transpose without axes) reverses every axis: for 2-D that is Kᵀ, but (B, nh, T, d) becomes "
        "(d, T, nh, B); with batches, K.swapaxes(-2, -1) swaps only the last two axes.",
    ),
    Misconception(
        "mask_convention_swapped",
        "掩码的 True 含义弄反了",
        "Swapped the meaning of True in the mask",
        "np.where(mask, -inf, s) 里 True 表示“挡住”（未来，np.triu(..., k=1)）；"
        "用 np.tril 造的 mask 里 True 表示“可以看”，两种约定混用会挡住过去和自己、放出未来。",
        "In np.where(mask, -inf, s) True means hidden (the future, np.triu(..., k=1)); a mask made with np.tril "
        "has True meaning may attend, and mixing the two conventions hides the past and the token itself and "
        "shows the future.",
    ),
    Misconception(
        "mask_transposed",
        "掩码挡住了过去而不是未来",
        "The mask hid the past instead of the future",
        "未来位置是 j > i，在对角线上方：np.triu(..., k=1)；"
        "np.tril(..., k=-1) 挡住的是 j < i 的过去，每个位置反而能看到未来。",
        "The future is j > i, above the diagonal: np.triu(..., k=1); np.tril(..., k=-1) hides the past "
        "(j < i), so every position sees the future instead.",
    ),
    Misconception(
        "missing_keepdims",
        "归约时忘了 keepdims=True",
        "Reduced without keepdims=True",
        "x.max(axis=-1) 的形状是 (m,)，与 (m, n) 相减时按最后一维广播：减的是错位的最大值，或者直接形状不匹配；"
        "keepdims=True 保留 (m, 1)，每行减自己的最大值。",
        "x.max(axis=-1) has shape (m,), which broadcasts against (m, n) along the last axis: each column gets "
        "some other row's max, or the shapes do not match at all; keepdims=True keeps (m, 1), so each row loses "
        "its own max.",
    ),
    Misconception(
        "softmax_global_max",
        "减的是整个数组的最大值",
        "Subtracted the max of the whole array",
        "x - x.max() 对每一行减同一个数：结果在数学上没错，但某一行远小于全局最大值时，"
        "e^x 全部下溢为 0，0/0 得到 nan；要减每一行自己的最大值（axis=-1, keepdims=True）。",
        "x - x.max() subtracts one number from every row: mathematically fine, but a row far below the global "
        "max underflows to all zeros and 0/0 gives nan; subtract each row's own max (axis=-1, keepdims=True).",
    ),
    Misconception(
        "split_wrong_order",
        "拆头时把 C 拆成了 (hs, nh)",
        "Split C as (hs, nh) instead of (nh, hs)",
        "nanoGPT 把 C 看作 n_head 个连续的 hs 维块：reshape(B, T, nh, hs)；"
        "reshape(B, T, hs, nh) 让每个头拿到间隔 nh 的通道。",
        "nanoGPT treats C as n_head consecutive blocks of hs: reshape(B, T, nh, hs); reshape(B, T, hs, nh) "
        "gives each head every nh-th channel instead.",
    ),
    Misconception(
        "merge_missing_transpose",
        "合并多头前没有 transpose 回来",
        "Merged the heads without transposing back",
        "(B, nh, T, hs) 直接 reshape 成 (B, T, C) 会把不同位置的数据拼在一起；"
        "要先 transpose(1, 2) 回到 (B, T, nh, hs)，再 reshape。",
        "Reshaping (B, nh, T, hs) straight to (B, T, C) mixes different positions together; transpose(1, 2) "
        "back to (B, T, nh, hs) first, then reshape.",
    ),
    Misconception(
        "merge_wrong_order",
        "合并多头的顺序错了",
        "Merged the heads in the wrong order",
        "合并时每个位置的 C 维应是 nh 个 hs 维块首尾相接（head 0 的 hs 个通道，再 head 1 …）："
        "transpose(0, 2, 1, 3)；transpose(0, 2, 3, 1) 把各头的通道交错排列了。",
        "After merging, each position's C dimensions must be nh blocks of hs side by side (head 0's hs "
        "channels, then head 1's …): transpose(0, 2, 1, 3); transpose(0, 2, 3, 1) interleaves the heads' "
        "channels.",
    ),
    Misconception(
        "kv_attend_new_only",
        "只对新 token 的 key 做了注意力",
        "Attended only to the new key",
        "解码时新 query 要和缓存里所有的 key 比较（包括新加入的）；"
        "只用新 key，softmax 权重恒为 1，输出就是新 token 的 v。",
        "When decoding, the new query is compared with every cached key (the new one included); with only the "
        "new key the softmax weight is always 1 and the output is just the new token's v.",
    ),
    Misconception(
        "kv_append_after_attend",
        "先做注意力再追加到缓存",
        "Attended before appending to the cache",
        "新 token 也能看到自己：先把新的 k、v 追加进缓存，再让 query 对全部缓存做注意力；"
        "先注意力后追加漏掉了自己，第一步缓存为空时甚至无法计算。",
        "The new token may attend to itself: append its k and v to the cache first, then attend to the whole "
        "cache; attending first leaves the token out, and at the first step (empty cache) there is nothing to "
        "attend to.",
    ),
    Misconception(
        "kv_causal_mask_top_left",
        "单个 query 用了左上对齐的因果掩码",
        "Applied a top-left causal mask to the single new query",
        "新 token 在所有缓存位置之后，一个 query 不需要掩码；"
        "np.triu(ones((1, S)), k=1) 是左上对齐的，会让它只看到第一个位置"
        "（PyTorch 在 L ≠ S 时 is_causal=True 也是这样）。",
        "The new token comes after every cached position, so a single query needs no mask; "
        "np.triu(ones((1, S)), k=1) is top-left aligned and lets it see only the first position (as PyTorch's "
        "is_causal=True does when L ≠ S).",
    ),
    Misconception(
        "shift_not_max",
        "减的不是每行的最大值",
        "Shifted by something other than the row max",
        "softmax(x − c) 对每行任意的 c 都等于 softmax(x)，但只有 c 取该行最大值时，所有指数都 ≤ 0（不会上溢）"
        "且最大的那个等于 0（不会全部下溢）。减最小值、平均值或第一个元素，e^(x − c) 仍可大到 e^(max − c)："
        "一行的跨度超过约 709（float64）就溢出，例如 [−800, 800, 0] 减去最小值后是 e^1600 = inf，inf/inf = nan。",
        "softmax(x − c) equals softmax(x) for any c per row, but only c = the row's max keeps every exponent "
        "≤ 0 (no overflow) with the largest one equal to 0 (no total underflow). Subtracting the min, the mean "
        "or the first element leaves e^(x − c) as large as e^(max − c), which overflows once a row spans more "
        "than about 709 (float64): [−800, 800, 0] minus its min gives e^1600 = inf, and inf/inf = nan.",
    ),
    Misconception(
        "axis_from_front",
        "从前面数轴",
        "Counted an axis from the front",
        "axis=1、shape[1]、len(x)（即 shape[0]）只在二维数组里碰巧指向最后的轴；"
        "前面多了批量维（(B, nh, T, d)）时，它们指向的是批量维。要从末尾数：axis=-1、shape[-1]、shape[-2]。",
        "axis=1, shape[1] and len(x) (shape[0]) name the last axes only in a 2-D array; with batch axes in "
        "front ((B, nh, T, d)) they name a batch axis instead. Count from the end: axis=-1, shape[-1], shape[-2].",
    ),
    Misconception(
        "scale_by_dv",
        "用 √d_v 而不是 √d_k 缩放",
        "Scaled by √d_v instead of √d_k",
        "分数 q·k 是 d_k 项之和，方差随 d_k 增长，所以除以 √d_k（Q.shape[-1] 或 K.shape[-1]）；"
        "V 的宽度 d_v 与分数无关，d_k ≠ d_v 时两者就不同了。",
        "The score q·k sums d_k terms, so its variance grows with d_k: divide by √d_k (Q.shape[-1] or "
        "K.shape[-1]). d_v, the width of V, plays no part in the scores, and differs from d_k whenever d_k ≠ d_v.",
    ),
    Misconception(
        "mask_fill_not_low_enough",
        "掩码填的数不够小",
        "Masked with a number that is not low enough",
        "有限的填充值只有在 e^(填充值 − 行最大值) 与可见位置的权重相比可以忽略时才等于 −∞："
        "−1e9、−1e30 或 np.finfo(dtype).min 都可以；填 −10 时每个被遮住的位置仍分到约 e^(−10) ≈ 4.5e−5 的权重，"
        "未来的信息漏了进来。",
        "A finite fill acts as −∞ only when e^(fill − row max) is negligible next to the visible weights: −1e9, "
        "−1e30 or np.finfo(dtype).min are; with −10 every hidden position still gets about e^(−10) ≈ 4.5e−5 "
        "of the weight, so the future leaks in.",
    ),
)

# --- issue 29, lesson 4: positional information (sinusoidal, RoPE, ALiBi) ------------------------
_POSITIONAL = (
    Misconception(
        "sinusoid_sin_cos_swapped",
        "正弦编码里 sin 和 cos 放反了",
        "Swapped sin and cos in the sinusoidal encoding",
        "偶数维 2i 放 sin，奇数维 2i+1 放 cos：PE(pos, 2i) = sin(pos/10000^(2i/d))，PE(pos, 2i+1) = cos(同一个角度)；"
        "位置 0 的编码因此是 [0, 1, 0, 1, …]。",
        "Even dimensions 2i hold the sine, odd dimensions 2i+1 the cosine of the same angle: PE(pos, 2i) = "
        "sin(pos/10000^(2i/d)), PE(pos, 2i+1) = cos(pos/10000^(2i/d)); position 0 is therefore [0, 1, 0, 1, …].",
    ),
    Misconception(
        "sinusoid_exponent_missing_two",
        "指数写成了 i/d，少了 2",
        "Wrote the exponent as i/d, without the 2",
        "第 i 对的频率是 1/10000^(2i/d)：指数里是这一对的第一个维度下标 2i，除以 d_model。写成 i/d 时频率下降得慢一倍，"
        "最低的频率只到 10000^(-1/2)。",
        "Pair i has frequency 1/10000^(2i/d): the exponent holds 2i, the pair's first dimension, over d_model. "
        "With i/d the frequencies fall half as fast and the lowest is only 10000^(-1/2).",
    ),
    Misconception(
        "sinusoid_dim_as_pair_index",
        "把维度下标当成了 i",
        "Used the dimension index as the pair index i",
        "维度 2i 和 2i+1 共用第 i 对的频率 10000^(-2i/d)；把维度下标 dim 直接当成 i，指数成了 2·dim/d，"
        "算的是另一对、频率更低的维度。",
        "Dimensions 2i and 2i+1 share pair i's frequency 10000^(-2i/d); taking the dimension index itself as i "
        "gives the exponent 2·dim/d, the frequency of another, slower pair.",
    ),
    Misconception(
        "sinusoid_multiplied_not_divided",
        "位置乘以 10000^(2i/d) 而不是除以",
        "Multiplied the position by 10000^(2i/d) instead of dividing",
        "角度是 pos / 10000^(2i/d)：维度越高，波长越长（从 2π 到 10000·2π）。乘以 10000^(2i/d) 让高维转得最快，"
        "方向正好反了。",
        "The angle is pos / 10000^(2i/d): the higher the dimension, the longer the wavelength (2π up to "
        "10000·2π). Multiplying by 10000^(2i/d) makes the high dimensions turn fastest, the wrong way round.",
    ),
    Misconception(
        "trig_in_degrees",
        "把弧度当成了角度（计算器在 DEG 模式）",
        "Took the angle in degrees (a calculator in DEG mode)",
        "公式里的 sin、cos 以弧度为单位（numpy 的 np.sin 也是）；把同一个数当作角度，sin 的值完全不同。",
        "The sin and cos of the formulas take radians (so does np.sin); the same number read as degrees gives a "
        "quite different value.",
    ),
    Misconception(
        "sinusoid_position_from_one",
        "位置从 1 数起",
        "Counted positions from 1",
        "正弦编码的 pos 就是 token 的下标，第一个 token 是 pos = 0（编码 [0, 1, 0, 1, …]）；"
        "从 1 数起，每个位置都错了一位。",
        "The pos of the sinusoidal encoding is the token's index, the first token being pos = 0 (encoded "
        "[0, 1, 0, 1, …]); counting from 1 shifts every position by one.",
    ),
    Misconception(
        "rope_offset_sign",
        "相对位置的符号反了",
        "Took the relative position with the wrong sign",
        "(R_m q)·(R_n k) = q·(R_{n−m} k)：k 相对 q 转过 (n − m)θ_i。用 m − n 时余弦项不变，正弦项变号，"
        "分数一般就错了。",
        "(R_m q)·(R_n k) = q·(R_{n−m} k): k is turned by (n − m)θ_i relative to q. With m − n the cosine terms "
        "stay but the sine terms change sign, so the score is wrong in general.",
    ),
    Misconception(
        "rope_half_pairing_on_interleaved",
        "交错配对的数据用了 rotate_half 的配对",
        "Used rotate_half's pairing on interleaved data",
        "RoFormer 把下标 (2i, 2i+1) 配成一对；rotate_half 配的是 (i, i + d/2)。同一组 q、k 用另一种配对旋转，"
        "得到的是另一组向量和另一个分数；两种写法只在坐标按固定置换重排后才一致。",
        "RoFormer pairs indices (2i, 2i+1); rotate_half pairs (i, i + d/2). Rotating the same q and k with the "
        "other pairing gives other vectors and another score; the two agree only after the coordinates are "
        "permuted by a fixed permutation.",
    ),
    Misconception(
        "rope_theta_exponent",
        "θ_i 的指数少了 2：10000^(−i/d)",
        "Dropped the 2 from θ_i's exponent: 10000^(−i/d)",
        "RoPE 的频率是 θ_i = 10000^(−2i/d)，i = 0 … d/2 − 1，与正弦编码同一组；写成 10000^(−i/d)，除第 0 对以外"
        "每一对都转得太快。",
        "RoPE's frequencies are θ_i = 10000^(−2i/d), i = 0 … d/2 − 1, the same as the sinusoidal encoding's; "
        "with 10000^(−i/d) every pair but the first turns too fast.",
    ),
    Misconception(
        "rope_same_angle_both",
        "q 和 k 转了同一个角度",
        "Rotated q and k by the same angle",
        "q 按它自己的位置 m 旋转，k 按它的位置 n 旋转。两者转同一个角度（例如都按 n），旋转相互抵消，"
        "分数就是未旋转的 q·k，位置信息没了。",
        "q turns by its own position m and k by its position n. Turned by the same angle (both by n, say), the "
        "rotations cancel and the score is the unrotated q·k: the position information is gone.",
    ),
    Misconception(
        "rope_only_q",
        "只旋转了 q，没有旋转 k",
        "Rotated q but not k",
        "RoPE 同时旋转 q（按 m）和 k（按 n），分数才只依赖 n − m；只转 q 时分数是 q·(R_{−m} k)，取决于绝对位置 m。",
        "RoPE rotates both q (by m) and k (by n), which is why the score depends only on n − m; rotating q alone "
        "gives q·(R_{−m} k), which depends on the absolute position m.",
    ),
    Misconception(
        "rope_query_by_key_position",
        "q 按 key 的位置 n 旋转，而不是它自己的 m",
        "Rotated q by the key's position n instead of its own m",
        "每个向量按它自己所在的位置旋转：q 按 m，k 按 n。q 用了 n 的角度，分数里的相对位置就成了 0 或别的数，"
        "query 和 key 的长度不同时连形状都对不上。",
        "Each vector turns by its own position: q by m, k by n. With n's angles for q the relative position in the "
        "score becomes 0 or some other number, and when the queries and keys differ in number the shapes do not "
        "even match.",
    ),
    Misconception(
        "rope_pairs_not_interleaved_back",
        "旋转后没有把两半交错放回 (2i, 2i+1)",
        "Did not interleave the rotated pairs back into (2i, 2i+1)",
        "交错配对从 x[..., 0::2] 和 x[..., 1::2] 取出每对的两个坐标，旋转后要放回原来的位置："
        "np.stack([a, b], axis=-1).reshape(x.shape)。直接 np.concatenate([a, b], axis=-1) 把它们排成了前后两半，"
        "坐标的顺序变了（点积在 q、k 同样排列时不变，但 q_rot、k_rot 本身错了）。",
        "The interleaved pairing takes each pair's coordinates from x[..., 0::2] and x[..., 1::2]; after the "
        "rotation they go back where they were: np.stack([a, b], axis=-1).reshape(x.shape). "
        "np.concatenate([a, b], axis=-1) lays them out as two halves instead: the coordinates are reordered "
        "(dot products survive when q and k are reordered alike, but q_rot and k_rot themselves are wrong).",
    ),
    Misconception(
        "alibi_slope_from_zero",
        "斜率的指数从 0 数起",
        "Counted the slope's exponent from 0",
        "n 个头的斜率是 2^(−8/n), 2^(−16/n), …, 2^(−8)：第 h 个头（从 1 数起）是 2^(−8h/n)。从 0 数起，"
        "第一个头的斜率成了 1，整列都错一位。",
        "The slopes of n heads are 2^(−8/n), 2^(−16/n), …, 2^(−8): head h (counted from 1) has 2^(−8h/n). "
        "Counting from 0 gives the first head slope 1 and shifts the whole sequence by one.",
    ),
    Misconception(
        "alibi_eight_head_slopes",
        "不管几个头都用 1/2, 1/4, …",
        "Used 1/2, 1/4, … whatever the number of heads",
        "1/2, 1/4, …, 1/256 是 8 个头时的斜率；首项和公比都是 2^(−8/n)，随头数而变：4 个头是 1/4, 1/16, …，"
        "16 个头从 2^(−1/2) 开始。",
        "1/2, 1/4, …, 1/256 are the slopes for 8 heads; first term and ratio are both 2^(−8/n) and change with "
        "the number of heads: 4 heads have 1/4, 1/16, …, and 16 heads start at 2^(−1/2).",
    ),
    Misconception(
        "alibi_heads_reversed",
        "头的顺序反了：第一个头斜率最小",
        "Reversed the heads: the first head got the smallest slope",
        "官方的 get_slopes 从最大的斜率 2^(−8/n) 开始，逐头乘以 2^(−8/n)，最后一个头是 2^(−8)；"
        "把顺序反过来，第 h 个头拿到的是第 n + 1 − h 个头的斜率。",
        "The official get_slopes starts at the largest slope 2^(−8/n) and multiplies by 2^(−8/n) per head, "
        "ending at 2^(−8); reversed, head h gets the slope of head n + 1 − h.",
    ),
    Misconception(
        "alibi_forgot_slope",
        "只用了距离，忘了乘斜率",
        "Used the distance alone, without the slope",
        "ALiBi 加的是 −m·(i − j)：距离乘以这个头的斜率 m。只减距离，等于每个头的斜率都是 1，"
        "比 ALiBi 的任何一个头都陡。",
        "ALiBi adds −m·(i − j): the distance times the head's slope m. Subtracting the distance alone gives "
        "every head slope 1, steeper than any of ALiBi's heads.",
    ),
    Misconception(
        "alibi_distance_one_short",
        "距离少数了一个（只数了中间的 token）",
        "Counted one too few in the distance (only the tokens between)",
        "距离是 i − j：query 看前一个 token 时是 1。只数 i 和 j 之间的 token，得到 i − j − 1，每个偏置少减了一个 m。",
        "The distance is i − j: 1 for the token just before the query. Counting only the tokens between i "
        "and j gives i − j − 1, and every bias loses one m too few.",
    ),
    Misconception(
        "alibi_slope_next_head",
        "用了下一个头的斜率（指数多乘了一个 8/n）",
        "Took the next head's slope (one 8/n too many in the exponent)",
        "第 h 个头（从 1 数起）的斜率是 2^(−8h/n)。把序号再加一，算的是 2^(−8(h+1)/n)，也就是第 h + 1 个头的"
        "斜率，每个偏置的绝对值都偏小。",
        "Head h (counted from 1) has slope 2^(−8h/n). Adding one to the index computes 2^(−8(h+1)/n), head "
        "h + 1's slope, and every bias comes out too small in magnitude.",
    ),
    Misconception(
        "alibi_distance_off_by_one",
        "距离多数了一个（数了两端）",
        "Counted one too many in the distance (both ends)",
        "距离是 i − j：query 看它自己时是 0，看前一个 token 是 1。把两端都数上得到 i − j + 1，每个偏置都多减了一个 m。",
        "The distance is i − j: 0 when the query looks at itself, 1 for the token before. Counting both ends "
        "gives i − j + 1, and every bias loses one m too many.",
    ),
)

# --- lesson 6, cost accounting (issue 29): parameters and FLOPs --------------------------------------------
# Counting convention of every stem: a matmul (m, k)·(k, n) costs 2·m·n·k FLOPs; the T×T work in full.
_LESSON6_COSTS: tuple[Misconception, ...] = (
    Misconception(
        "embeddings_forgotten",
        "漏了嵌入",
        "Left out the embeddings",
        "sum(p.numel()) 数的是模型的全部参数：词嵌入 wte（V × d）和位置嵌入 wpe（block_size × d）也在里面；"
        "只数 block 得到的是 Kaplan 等的非嵌入参数 N，不是题目问的数。",
        "sum(p.numel()) counts every parameter of the model: the token embedding wte (V × d) and the position "
        "embedding wpe (block_size × d) are in it; counting only the blocks gives Kaplan et al.'s non-embedding N, "
        "not the number asked for.",
    ),
    Misconception(
        "untied_head_counted",
        "把共享的 lm_head 又算了一遍",
        "Counted the tied lm_head a second time",
        "nanoGPT 的 lm_head 与 wte 是同一个张量（weight tying），model.parameters() 只交出一次；"
        "再加 V × d 就把它算了两遍。",
        "nanoGPT's lm_head and wte are one tensor (weight tying), which model.parameters() yields once; adding "
        "V × d again counts it twice.",
    ),
    Misconception(
        "wpe_subtracted",
        "减掉了位置嵌入",
        "Subtracted the position embedding",
        "nanoGPT 的 get_num_params() 默认减去 wpe 再打印；题目问的是 sum(p.numel())，"
        "位置嵌入的 block_size × d 要算上。",
        "nanoGPT's get_num_params() subtracts wpe by default before printing; the question asks for "
        "sum(p.numel()), which includes the block_size × d of the position embedding.",
    ),
    Misconception(
        "mlp_as_4d2",
        "把 MLP 记成了 4d²",
        "Counted 4d² for the MLP",
        "MLP 是两个矩阵：c_fc（d → 4d）和 c_proj（4d → d），各 4d² 个权重，共 8d²；只算一个就少了一半。"
        "一个 block 的权重是注意力 4d² 加 MLP 8d²，共 12d²。",
        "The MLP has two matrices, c_fc (d → 4d) and c_proj (4d → d), 4d² weights each, 8d² in all; counting "
        "one leaves half out. A block's weights are 4d² of attention plus 8d² of MLP, 12d².",
    ),
    Misconception(
        "bias_ln_forgotten",
        "漏了偏置和 LayerNorm",
        "Left out the biases and LayerNorms",
        "12d² 只是权重矩阵；bias=True 时每个线性层每个输出还有一个偏置，"
        "每个 LayerNorm 有缩放（和偏置时的平移）各 d 个，最后还有 ln_f。精确计数要把它们加上。",
        "12d² is the weight matrices only; with bias=True every linear layer has one bias per output, and every "
        "LayerNorm a scale (and, with bias, a shift) of d, plus ln_f at the end. An exact count adds them.",
    ),
    Misconception(
        "mac_counted_once",
        "一次乘加只记了 1 FLOP",
        "Counted a multiply-add as one FLOP",
        "约定是 (m, k)·(k, n) 记 2·m·n·k FLOPs：每次乘加是一次乘法加一次加法，记 2。"
        "只记 m·n·k 得到的是乘加次数（MACs），是 FLOPs 的一半。",
        "The convention is 2·m·n·k FLOPs for (m, k)·(k, n): a multiply-add is a multiplication and an addition, "
        "2 FLOPs. m·n·k counts multiply-accumulates (MACs), half the FLOPs.",
    ),
    Misconception(
        "attention_term_forgotten",
        "漏了注意力的 T×T 两步",
        "Left out attention's T×T work",
        "2N 只数了乘权重的矩阵乘；打分 QKᵀ 和加权求和 AV 没有参数，却是实实在在的矩阵乘，"
        "按满算每层每 token 前向 4·T·d FLOPs，T 大时不能略去。",
        "2N counts only the matmuls with weights; the scores QKᵀ and the weighted sum AV have no parameters but "
        "are matmuls all the same, 4·T·d FLOPs per layer per token forward counted in full, not negligible at "
        "large T.",
    ),
    Misconception(
        "causal_halving",
        "按因果掩码减半了",
        "Halved the T×T work for the causal mask",
        "题目约定 T×T 两步按满算：手写的因果注意力把整张 T×T 都算了（被挡住的格子也算），FLOP 计数器报的也是 4·T·d；"
        "按因果平均的 2·T·d（Kaplan 等那一项的大小）是另一种约定。",
        "The stem counts the T×T work in full: a hand-written causal attention computes the whole T×T (masked "
        "cells too), and a FLOP counter reports 4·T·d; the causal average 2·T·d (the size of Kaplan et al.'s "
        "term) is another convention.",
    ),
    Misconception(
        "crossover_t_squared_per_token",
        "把整张 T×T 表的 FLOPs 当成了每个 token 的",
        "Counted the whole T x T table's FLOPs as one token's",
        "整条序列在打分和加权求和上是 4·T²·d FLOPs，摊到每个 token 是 4·T·d。拿 4·T²·d 去和每 token 的 MLP "
        "FLOPs 比，解出的 T 只是正确值的平方根量级，远远偏小。",
        "A whole sequence spends 4·T²·d FLOPs on the scores and the weighted sum, 4·T·d per token. Setting "
        "4·T²·d equal to the MLP's FLOPs per token gives a T of the order of the square root of the right one, "
        "far too small.",
    ),
    Misconception(
        "crossover_training_flops_for_weights",
        "权重一侧用了训练的 6 FLOPs/参数",
        "Used training's 6 FLOPs per weight on the weights' side",
        "题目比的是前向：每个权重 2 FLOPs，注意力的 T×T 两步 4·T·d。权重一侧换成训练的 6 FLOPs/参数"
        "（前向 2 加反向 4），注意力一侧却还是前向，要追上的量大了 3 倍，T 也大了 3 倍。",
        "The question compares forward passes: 2 FLOPs per weight against 4·T·d for the T x T work. Taking "
        "training's 6 FLOPs per weight (2 forward, 4 backward) on the weights' side only makes the target 3 "
        "times too large, and T with it.",
    ),
    Misconception(
        "crossover_one_head_only",
        "只算了一个头的 T×T 两步",
        "Counted the T x T work of one head only",
        "一个头的打分和加权求和是 4·T·hs FLOPs，n_head 个头合起来才是 4·T·d。只算一个头，注意力一侧少了 "
        "n_head 倍，要追上 MLP 所需的 T 就被算大了 n_head 倍。",
        "One head's scores and weighted sum cost 4·T·hs FLOPs; the n_head heads together cost 4·T·d. Counting "
        "one head makes attention's side n_head times too small, and the T it needs to catch up n_head times "
        "too large.",
    ),
    Misconception(
        "attention_flops_times_heads",
        "以为注意力的 FLOPs 随头数成倍增加",
        "Thought attention's FLOPs multiply with the heads",
        "每个头的打分和加权求和是 2·T·hs FLOPs 各一次，n_head 个头合起来 n_head·hs = d，还是 4·T·d；"
        "随头数增加的是 (B, n_head, T, T) 权重的元素个数和显存，不是矩阵乘的 FLOPs。",
        "Each head's scores and weighted sum cost 2·T·hs FLOPs each; n_head heads add up to n_head·hs = d, still "
        "4·T·d. What grows with the heads is the element count and memory of the (B, n_head, T, T) weights, not "
        "the matmul FLOPs.",
    ),
    Misconception(
        "forward_added_to_training",
        "在 3 倍前向之外又加了一次前向",
        "Added the forward again on top of 3× the forward",
        "训练约是前向的 3 倍（约 6N）：这 3 倍里已经有前向的 1 倍，另外 2 倍是反向。再加一次前向得到 4 倍"
        "（约 8N），前向被算了两遍。",
        "Training is about 3× the forward (about 6N): those 3× already hold the forward once, the other 2× are "
        "the backward. Adding the forward again gives 4× (about 8N), the forward counted twice.",
    ),
    Misconception(
        "mask_buffer_counted",
        "把因果掩码的 buffer 算成了参数",
        "Counted the causal mask's buffer as parameters",
        "nanoGPT 不用 flash 时，每层用 register_buffer 存一个 (1, 1, block_size, block_size) 的下三角 bias："
        "它是 buffer，不在 model.parameters() 里，sum(p.numel()) 不数它，也不参与训练。",
        "Without flash, nanoGPT stores a (1, 1, block_size, block_size) lower-triangular bias per layer with "
        "register_buffer: a buffer, not in model.parameters(), so sum(p.numel()) does not count it and it is "
        "never trained.",
    ),
    Misconception(
        "forward_only",
        "训练只算了前向",
        "Counted only the forward pass for training",
        "训练要前向加反向：反向对每个矩阵乘 Y = XW 要算 ∂L/∂X 和 ∂L/∂W 两个同样大的矩阵乘，"
        "所以训练约是前向的 3 倍（约 6N 对 2N）。",
        "Training is forward plus backward: for every matmul Y = XW the backward computes ∂L/∂X and ∂L/∂W, two "
        "matmuls of the same size, so training is about 3× the forward (about 6N against 2N).",
    ),
    Misconception(
        "forward_counted_as_training",
        "前向按训练的 6N 算了",
        "Used training's 6N for a forward pass",
        "6N 是前向加反向；只做前向（推理、打分）时每个权重一次乘加，约 2N。",
        "6N is forward plus backward; a forward pass alone (inference, scoring) is one multiply-add per weight, "
        "about 2N.",
    ),
    Misconception(
        "per_sequence_not_per_token",
        "算成了整条序列的 FLOPs",
        "Gave the FLOPs of the whole sequence, not of one token",
        "题目问每个 token：2N 加每层 4·T·d 已经是一个 token 的量；再乘 T 是整条序列的总量。",
        "The question asks per token: 2N plus 4·T·d per layer is already one token's share; multiplying by T "
        "gives the whole sequence.",
    ),
    Misconception(
        "crossover_against_all_weights",
        "跟全部权重比了",
        "Compared with all the weights",
        "题目问 T×T 两步追上 MLP 的那一点：MLP 每 token 2·(2·r·d²) FLOPs（r 是 MLP 的倍宽）；"
        "把注意力的 4d² 权重也算进去，得到的是追上整层权重的那个更长的 T。",
        "The question asks where the T×T work catches up with the MLP, 2·(2·r·d²) FLOPs per token (r the MLP's "
        "width ratio); adding attention's 4d² weights gives the longer T where it catches up with all of the "
        "layer's weights.",
    ),
    Misconception(
        "crossover_against_mlp_only",
        "只跟 MLP 比了",
        "Compared with the MLP alone",
        "题目问 T×T 两步追上一层全部权重的那一点：注意力的 4d² 个投影权重也要算上，不只是 MLP 的 2·r·d²。",
        "The question asks where the T×T work catches up with all of a layer's weights: attention's 4d² "
        "projection weights count too, not only the MLP's 2·r·d².",
    ),
    Misconception(
        "params_for_flops",
        "拿参数量和 FLOPs 比",
        "Compared a parameter count with FLOPs",
        "T×T 两步的 4·T·d 是 FLOPs；另一边也要换成 FLOPs：每个权重每 token 一次乘加，2 FLOPs，不是直接拿参数个数来比。",
        "The 4·T·d of the T×T work is FLOPs; the other side has to be FLOPs too, 2 per weight per token (one "
        "multiply-add), not the parameter count itself.",
    ),
)

# --- lesson 5, the multi-head attention module and its masks (issue 29) ------------------------------------
_LESSON5_MASKS: tuple[Misconception, ...] = (
    Misconception(
        "hidden_rows_causal_ignored",
        "只看了 padding 掩码，忘了因果掩码",
        "Looked at the padding mask alone, without the causal one",
        "单看 padding 掩码，padding 的 query 行还能看见真实 token；可因果掩码只让它看前面，左侧补齐时前面全是 padding，"
        "两个掩码合起来这一行一个可见的 key 都没有。",
        "The padding mask alone leaves a padding query the real tokens to see; but the causal mask lets it see only "
        "earlier positions, which under left padding are all padding: together they block its whole row.",
    ),
    Misconception(
        "hidden_rows_last_pad_sees_real",
        "以为每个样本最后一个 padding 行能看到第一个真实 token",
        "Thought each sample's last padding row sees the first real token",
        "因果掩码只让第 i 行看位置 ≤ i：最后一个 padding 行之后才是第一个真实 token，它看不到。"
        "左侧补齐时 padding 的每一行都整行被挡，一行也不少。",
        "The causal mask lets row i see positions ≤ i only: the first real token comes after the last padding "
        "row, which cannot see it. With left padding every padding row is fully blocked, not one fewer.",
    ),
    Misconception(
        "hidden_rows_first_real_counted",
        "把第一个真实 token 的行也算成整行被挡",
        "Counted the first real token's row as fully blocked",
        "第一个真实 token 的行能看见它自己：对角线不被因果掩码挡住，它也不是 padding。"
        "整行被挡的只有 padding 自己的那些行。",
        "The first real token's row sees itself: the causal mask keeps the diagonal and it is not padding. Only the "
        "padding's own rows are fully blocked.",
    ),
    Misconception(
        "hidden_rows_per_head",
        "按头把同一行数了 n_head 次",
        "Counted each row once per head",
        "每个头用同一张掩码，题目问的是批里的 query 行（每个位置一行），各头只算一次；"
        "乘上 n_head 数的是 (B, nh, T, T) 里的行。",
        "Every head uses the same mask and the question counts the batch's query rows (one per position), once; "
        "times n_head counts the rows of (B, nh, T, T).",
    ),
    Misconception(
        "hidden_rows_one_per_sample",
        "以为每条带 padding 的序列只有一行被挡",
        "Thought each padded sequence loses one row",
        "左侧补齐时，padding 的每一行都只能看前面的 padding：有几个 padding 就有几行整行被挡，不只第一行；"
        "右侧补齐时一行都没有，每行都能看到句首的真实 token。",
        "Under left padding every padding row sees only earlier padding: as many rows are blocked as there are "
        "padding positions, not just the first; under right padding none are, every row sees the real tokens first.",
    ),
    Misconception(
        "hidden_rows_whole_sample",
        "以为带 padding 的序列整条都被挡住",
        "Thought a padded sequence is blocked in every row",
        "padding 掩码只挡 padding 作为 key 的列；真实 token 的行至少还能看见它自己，不会整行被挡。",
        "The padding mask blocks only the padding's columns (as keys); a real token's row still sees at least "
        "itself and is never fully blocked.",
    ),
    Misconception(
        "right_padding_hides_rows",
        "以为右侧补齐也会出现整行被挡的行",
        "Thought right padding leaves fully blocked rows too",
        "右侧补齐时 padding 在句尾：它的 query 行按因果掩码能看前面全部位置，其中有真实 token，所以每行都有可见的 key，"
        "不会出 0/0，也就没有 NaN。",
        "Under right padding the padding sits at the end: its query rows see every earlier position, real tokens "
        "among them, so every row has a visible key: no 0/0 and no NaN.",
    ),
    Misconception(
        "nan_stays_in_hidden_rows",
        "以为 NaN 只留在整行被挡的那几行",
        "Thought the NaN stays in the fully blocked rows",
        "下一层里，别的行虽然把这些位置挡住（权重恰为 0），加权求和时 0 × NaN 仍是 NaN：同一个样本的每一行都变成 NaN。",
        "In the next layer the other rows do block those positions (weight exactly 0), but the weighted sum takes "
        "0 × NaN = NaN: every row of that sample becomes NaN.",
    ),
    Misconception(
        "nan_spreads_across_batch",
        "以为 NaN 会传到别的样本",
        "Thought the NaN spreads to the other samples",
        "批里的样本互不相混：投影按位置做，注意力在每个样本自己的 (T, T) 表里做。NaN 只会占满有整行被挡的那些样本。",
        "Samples never mix: the projections work per position and attention within each sample's own (T, T) table. "
        "The NaN fills only the samples that had a fully blocked row.",
    ),
    Misconception(
        "nan_rows_zeroed_like_sdpa",
        "以为手写的 softmax 会像 SDPA 那样把整行被挡的行置零",
        "Thought a hand-written softmax zeroes fully blocked rows as SDPA does",
        "整行都是 −∞ 时，exp(s − max) 里 −∞ − (−∞) 是 NaN，0/0 也是 NaN；"
        "只有 PyTorch SDPA 内部的 _safe_softmax 才把这种行"
        "变成 0。手写的 softmax 没有这一步。",
        "With a whole row of −∞, exp(s − max) computes −∞ − (−∞) = NaN and the sum is 0/0; only PyTorch SDPA's "
        "internal _safe_softmax turns such rows into 0. A hand-written softmax has no such step.",
    ),
    Misconception(
        "nan_both_layers_summed",
        "把两层含 NaN 的位置加在了一起",
        "Added up the NaN positions of both layers",
        "问的是第 2 层输出里含 NaN 的位置：第 1 层的 NaN 行已经包含在第 2 层那些样本的全部行里，"
        "再加上第 1 层的个数就重复计数了。",
        "The question asks for the positions holding NaN in layer 2's output: layer 1's NaN rows are already "
        "among the rows of those samples in layer 2, and adding layer 1's count counts them twice.",
    ),
    Misconception(
        "nan_spreads_one_row_per_layer",
        "以为 NaN 每层只往后传一行",
        "Thought the NaN moves one row further per layer",
        "加权求和是一次矩阵乘：行 i 的输出要乘过 value 的每一行，挡住的那些乘的是 0，0 × NaN 仍是 NaN。"
        "所以一层之后同一个样本的每一行都是 NaN，而不是只多一行。",
        "The weighted sum is one matmul: row i's output multiplies every row of the values, the blocked ones by 0, "
        "and 0 × NaN is NaN. So after one layer every row of the sample is NaN, not one row more.",
    ),
    Misconception(
        "nan_padding_rows_spared",
        "以为第 2 层的掩码把 padding 行的 NaN 挡掉了",
        "Thought layer 2's mask removes the NaN from the padding rows",
        "掩码挡的是列（key），不改写任何一行自己的值：padding 行在第 1 层已经是 NaN，第 2 层它们仍然整行被挡，"
        "还是 0/0；"
        "真实 token 的行则从 0 × NaN 得到 NaN。这个样本的每一行都是 NaN。",
        "A mask blocks columns (keys) and rewrites no row's own value: the padding rows are NaN after layer 1 and, "
        "still fully blocked in layer 2, are 0/0 again, while the real tokens' rows get NaN from 0 × NaN. Every "
        "row of the sample is NaN.",
    ),
    Misconception(
        "padding_rows_are_nan",
        "以为 padding 的位置总会变成 NaN",
        "Thought padding positions always turn NaN",
        "NaN 来自整行被挡的 0/0，不来自 padding 本身。右侧补齐时 padding 的行也能看见句首的真实 token，"
        "结果有限（无用，但不是 NaN）。",
        "The NaN comes from a fully blocked row's 0/0, not from padding itself. Under right padding the padding's "
        "rows still see the real tokens first: their output is finite (useless, but not NaN).",
    ),
    Misconception(
        "mha_fused_in_proj_assumed",
        "按自注意力的打包权重 (3E, E) 数了",
        "Counted the packed (3E, E) weight of self-attention",
        "给了 kdim、vdim 且与 embed_dim 不同，nn.MultiheadAttention 不再用 in_proj_weight (3E, E)，"
        "而是三个分开的 q_proj_weight (E, E)、k_proj_weight (E, kdim)、v_proj_weight (E, vdim)。",
        "With kdim and vdim unlike embed_dim, nn.MultiheadAttention drops in_proj_weight (3E, E) for three separate "
        "weights q_proj_weight (E, E), k_proj_weight (E, kdim) and v_proj_weight (E, vdim).",
    ),
    Misconception(
        "mha_kv_projected_to_own_width",
        "以为 k、v 被投影到编码器自己的宽度",
        "Thought k and v are projected to the encoder's own width",
        "k 和 v 要与 q 做点积、拼回 E 维，所以都投影到 embed_dim：k_proj_weight 是 (E, kdim)，不是 (kdim, kdim)。",
        "k is dotted with q and v merged back to E, so both are projected to embed_dim: k_proj_weight is "
        "(E, kdim), not (kdim, kdim).",
    ),
    Misconception(
        "mha_out_proj_forgotten",
        "漏了输出投影 out_proj",
        "Left out the output projection out_proj",
        "nn.MultiheadAttention 拼回各头之后还有 out_proj（论文里的 W^O）：E × E 个权重，bias=True 时再加 E 个偏置。",
        "After merging the heads nn.MultiheadAttention applies out_proj (the paper's W^O): E × E weights, and E "
        "biases with bias=True.",
    ),
    Misconception(
        "mha_kv_bias_sized_by_kdim",
        "把 k、v 的偏置按 kdim、vdim 算",
        "Sized the k and v biases by kdim and vdim",
        "偏置跟着输出走：k、v 都投影到 E 维，所以打包的 in_proj_bias 是 3E 个，与 kdim、vdim 无关。",
        "A bias follows the output: k and v are both projected to E, so the packed in_proj_bias holds 3E values "
        "whatever kdim and vdim are.",
    ),
    Misconception(
        "cross_mask_causal_added",
        "给交叉注意力也加了因果掩码",
        "Added a causal mask to cross-attention",
        "源句在解码之前已经完整给出，解码器的每个位置都可以看它的全部位置；“不许看未来”只在解码器自己的自注意力里。"
        "交叉注意力只挡编码器的 padding。",
        "The source is complete before decoding starts, so every decoder position may see all of it; 'no peeking "
        "ahead' belongs to the decoder's own self-attention. Cross-attention blocks only the encoder's padding.",
    ),
    Misconception(
        "cross_mask_decoder_padding",
        "挡成了解码器的 padding",
        "Blocked the decoder's padding instead",
        "交叉注意力的列是编码器的位置，要挡的是编码器 padding 的那些列；解码器的 padding 在行上，"
        "那些行的输出不进损失。",
        "Cross-attention's columns are the encoder's positions, and the encoder's padding columns are what it "
        "blocks; the decoder's padding is in the rows, whose outputs the loss skips.",
    ),
    Misconception(
        "cross_mask_both_paddings",
        "把解码器 padding 的整行也挡了",
        "Also blocked the decoder's padding rows",
        "常见做法只传编码器的 key_padding_mask (B, T_k)：挡列。解码器 padding 的行照常计算（不进损失），"
        "整行挡住反而会让这些行出 NaN。",
        "The usual call passes only the encoder's key_padding_mask (B, T_k): columns. The decoder's padding rows "
        "are computed as usual (the loss skips them); blocking them whole would make those rows NaN.",
    ),
    Misconception(
        "mask_cells_heads_forgotten",
        "忘了掩码广播到每个头",
        "Forgot the mask is broadcast to every head",
        "(B, 1, 1, T_k) 的掩码在第 1 维广播到 n_head 个头：每个头的分数表里都挡住同样的格子，要乘 n_head。",
        "The (B, 1, 1, T_k) mask is broadcast over dimension 1 to the n_head heads: every head's table blocks the "
        "same cells, so multiply by n_head.",
    ),
    Misconception(
        "mask_broadcast_rows_forgotten",
        "只数了掩码本身的元素，忘了广播到每一行",
        "Counted the mask's own elements, not its broadcast to every row",
        "(B, 1, 1, T_k) 的掩码在第 2 维广播到 T_q 行：解码器的每个位置都挡住同样的列，要乘 T_q。",
        "The (B, 1, 1, T_k) mask is broadcast over dimension 2 to the T_q rows: every decoder position blocks the "
        "same columns, so multiply by T_q.",
    ),
    Misconception(
        "cross_mask_visible_counted",
        "数成了可见的格子",
        "Counted the visible cells",
        "被挡住的是编码器 padding 的列，每条样本 T_k − 长度 列；按真实长度数，数到的是可见的格子。",
        "The blocked cells are the encoder's padding columns, T_k − length per sample; counting by the real length "
        "gives the visible cells.",
    ),
    Misconception(
        "scale_by_sqrt_d_model",
        "按 √d_model 缩放，而不是每个头的 √hs",
        "Scaled by √d_model instead of each head's √hs",
        "每个头的点积只有 hs = C // n_head 项，方差是 hs，所以除以 √hs（nanoGPT 的 1/√k.size(-1)）；"
        "除以 √C 把分数压得太小。",
        "Each head's dot product has hs = C // n_head terms, variance hs, so divide by √hs (nanoGPT's "
        "1/√k.size(-1)); dividing by √C shrinks the scores too much.",
    ),
    Misconception(
        "fully_masked_rows_nan",
        "挡住的格子填 −∞，整行被挡的行成了 NaN",
        "Filled −∞, so a fully blocked row became NaN",
        "左侧补齐时 padding 的行一个可见的 key 都没有，填 −∞ 时 softmax 是 0/0 = NaN，下一层 0 × NaN 再传给每一行。"
        "填有限的 np.finfo(dtype).min：有可见 key 的行结果不变，整行被挡的行只是均匀平均。",
        "Under left padding the padding rows have no visible key; with −∞ their softmax is 0/0 = NaN, which the next "
        "layer's 0 × NaN passes to every row. Fill the finite np.finfo(dtype).min: rows with a visible key are "
        "unchanged, a fully blocked row is a uniform average.",
    ),
    Misconception(
        "padding_mask_on_queries",
        "padding 掩码挡成了行（query），而不是列（key）",
        "Applied the padding mask to the rows (queries), not the columns (keys)",
        "padding 掩码挡的是 padding 作为 key 的列，形状 (B, 1, 1, T)；写成 (B, 1, T, 1) 挡的是 padding 的 query 行，"
        "真实 token 照样从 padding 取到信息。",
        "The padding mask blocks the padding as keys, the columns: shape (B, 1, 1, T); as (B, 1, T, 1) it blocks "
        "the padding's query rows, and the real tokens still read from the padding.",
    ),
)

# --- issue 29, lesson 7: inference serving (KV cache with MLA, decode's bandwidth bound, paged blocks,
# speculative decoding, the GQA decode step) -----------------------------------------------------------
_LESSON7_SERVING: tuple[Misconception, ...] = (
    Misconception(
        "mla_rope_key_forgotten",
        "漏了 MLA 共享的 RoPE 键",
        "Left out MLA's shared RoPE key",
        "MLA 每层每 token 缓存潜向量 c^KV（d_c 个数）和一个所有头共享、带 RoPE 的键 k^R（d_h^R 个数）："
        "RoPE 并不进潜向量的升维矩阵，k^R 要单独缓存，共 d_c + d_h^R 个数。",
        "MLA caches, per layer and token, the latent c^KV (d_c numbers) and one RoPE key k^R shared by all heads "
        "(d_h^R numbers): RoPE cannot be folded into the latent's up-projection, so k^R is cached too, "
        "d_c + d_h^R numbers in all.",
    ),
    Misconception(
        "mla_latent_per_k_and_v",
        "以为 MLA 给 K 和 V 各存一份",
        "Cached MLA's latent once for K and once for V",
        "c^KV 是 K 和 V 联合压缩成的一个向量，K、V 都由它升维得到：MLA 的缓存没有 MHA 公式里那个 2。",
        "c^KV is one vector into which K and V are compressed jointly; both are up-projected from it, so MLA's "
        "cache has no factor 2 of the MHA formula.",
    ),
    Misconception(
        "mla_as_mha",
        "按每个头完整的 K、V 算了 MLA",
        "Counted MLA as full per-head K and V",
        "MLA 不缓存各头的 K、V（那是 2·n_head·d_h 个数），只缓存潜向量和共享的 RoPE 键，d_c + d_h^R 个数。",
        "MLA does not cache every head's K and V (2·n_head·d_h numbers), only the latent and the shared RoPE key, "
        "d_c + d_h^R numbers.",
    ),
    Misconception(
        "params_as_bytes",
        "把参数个数当成了字节数",
        "Took the parameter count for bytes",
        "每个参数占 dtype 的字节数：bf16/fp16 是 2 字节，fp32 是 4 字节，int8 是 1 字节；权重字节 = 参数个数 × 它。",
        "Every parameter takes its dtype's bytes (2 for bf16/fp16, 4 for fp32, 1 for int8): weight bytes = "
        "parameters × that.",
    ),
    Misconception(
        "weights_fp32_bytes",
        "按 fp32 的 4 字节算了权重",
        "Counted the weights at fp32's 4 bytes",
        "题目给了权重的 dtype：bf16/fp16 每个参数 2 字节，int8 1 字节；按 4 字节算，读权重的时间多了一倍以上。",
        "The question gives the weights' dtype: 2 bytes per parameter for bf16/fp16, 1 for int8; at 4 bytes the "
        "weights take twice as long or more to read.",
    ),
    Misconception(
        "kv_cache_one_sequence",
        "只算了一条序列的 KV cache",
        "Counted one sequence's KV cache, not the batch's",
        "每一步 decode 都要读 batch 里每条序列各自的 KV cache：B·T·(每 token 的字节)。只算一条，读的字节偏少，"
        "上限就偏高。",
        "Every decode step reads each sequence's own KV cache: B·T·(bytes per token). Counting one sequence "
        "reads too few bytes and gives too high a bound.",
    ),
    Misconception(
        "kv_cache_forgotten",
        "漏了 KV cache 的读取",
        "Left out reading the KV cache",
        "decode 的每一步除了读一遍权重，还要把 batch 里每条序列自己的 KV cache 读一遍："
        "分母是权重字节加上这一批 KV cache 的字节。",
        "Besides the weights, every decode step reads each sequence's own KV cache: the denominator is the weight "
        "bytes plus the batch's KV-cache bytes.",
    ),
    Misconception(
        "weights_read_per_sequence",
        "以为每条序列各读一遍权重",
        "Read the weights once per sequence",
        "同一步里 batch 的所有序列共用同一遍权重读取，所以加大 batch 能提高吞吐；各自的只有 KV cache。",
        "All sequences of a batch share one read of the weights per step, which is why a larger batch raises "
        "throughput; only the KV cache is read per sequence.",
    ),
    Misconception(
        "batch_tokens_forgotten",
        "只算了一条序列的 token",
        "Counted one sequence's tokens only",
        "一步 decode 让 batch 里 B 条序列各前进 1 个 token：整台机器每步产出 B 个 token，上限要乘以 B。",
        "One decode step moves each of the B sequences one token, so the machine makes B tokens per step: the bound "
        "is multiplied by B.",
    ),
    Misconception(
        "spec_gamma_not_gamma_plus_one",
        "漏了目标模型自己给的那个 token",
        "Left out the target's own token",
        "求和要到 α^γ：1 + α + … + α^γ = (1 − α^(γ+1)) / (1 − α)。γ 个草稿全被接受时，目标模型在同一次前向里"
        "已经算出第 γ + 1 个位置的分布，再采 1 个；上限是 γ + 1，不是 γ。",
        "The sum runs to α^γ: 1 + α + … + α^γ = (1 − α^(γ+1)) / (1 − α). When all γ drafts are accepted the target "
        "has already computed the distribution at position γ + 1 in the same call and samples one more: at most "
        "γ + 1, not γ.",
    ),
    Misconception(
        "spec_independent_positions",
        "把各位置当成互不影响",
        "Treated the positions as independent",
        "一旦某个草稿被拒绝，它后面的草稿全部作废：第 i 个草稿留下要前 i 个都被接受，概率 α^i，不是 α；"
        "所以期望是 1 + α + … + α^γ，不是 1 + γα。",
        "Once a draft is rejected every later draft is dropped: draft i survives only if the first i are all "
        "accepted, with probability α^i rather than α, so the mean is 1 + α + … + α^γ, not 1 + γα.",
    ),
    Misconception(
        "spec_infinite_gamma",
        "用了草稿无限长时的极限",
        "Used the limit of an endless draft",
        "1 / (1 − α) 是 γ → ∞ 时的极限；草稿只有 γ 个，每次调用至多 γ + 1 个 token，"
        "要用截断的和 (1 − α^(γ+1)) / (1 − α)。",
        "1 / (1 − α) is the limit as γ → ∞; with γ drafts a call yields at most γ + 1 tokens, so the truncated sum "
        "(1 − α^(γ+1)) / (1 − α) applies.",
    ),
    Misconception(
        "spec_accepted_drafts_only",
        "只数了被接受的草稿",
        "Counted only the accepted drafts",
        "每次调用除了被接受的草稿，还必有目标模型自己的 1 个 token（拒绝处重采的，或全部接受后多采的）："
        "期望是 1 + α + … + α^γ，至少为 1。",
        "Besides the accepted drafts every call adds one token of the target's own (resampled where a draft was "
        "rejected, or the bonus after all were accepted): the mean is 1 + α + … + α^γ, never below 1.",
    ),
    Misconception(
        "spec_one_term_too_many",
        "多加了一项",
        "Added one term too many",
        "第 γ + 1 个 token 是目标模型的，它之后没有草稿可接受：求和到 α^γ 为止，共 γ + 1 项，上限是 γ + 1。",
        "The (γ + 1)-th token is the target's own and no draft follows it: the sum stops at α^γ, γ + 1 terms, at "
        "most γ + 1 tokens.",
    ),
    Misconception(
        "spec_draft_length_as_yield",
        "以为每次调用都产出 γ 个",
        "Took every call to yield γ tokens",
        "草稿被接受是有概率的：第 i 个草稿留下的概率是 α^i。只有 α = 1 时才全部留下，那时还要加上目标模型多采的 1 个。",
        "Drafts are accepted only with some probability: draft i survives with probability α^i. Only at α = 1 do "
        "all survive, and then the target's extra token comes on top.",
    ),
    Misconception(
        "spec_alpha_as_rejection_rate",
        "把接受率当成了拒绝率",
        "Took the acceptance rate for the rejection rate",
        "α 是草稿 token 被**接受**的概率：α 越大留下的草稿越多，α = 1 时每次得到 γ + 1 个；"
        "把 1 − α 代进公式，就把两头弄反了。",
        "α is the probability that a draft token is accepted: the larger α, the more drafts survive, γ + 1 per call "
        "at α = 1; putting 1 − α into the formula turns the two ends around.",
    ),
    Misconception(
        "paged_used_as_empty",
        "把最后一块里已用的槽当成了空槽",
        "Took the used slots of the last block for the empty ones",
        "n 除以块大小的余数是最后一块里**已用**的槽；空着的是块大小减去它（余数为 0 时最后一块正好填满）。",
        "The remainder of n divided by the block size is the number of used slots in the last block; the empty "
        "ones are the block size minus it (none when the remainder is 0).",
    ),
    Misconception(
        "paged_no_waste",
        "以为分页之后没有空槽",
        "Thought paging leaves no empty slot",
        "PagedAttention 按块分配：最后一块没填满的槽仍然空着，只是浪费少于一个块（论文称 near-zero waste）。",
        "PagedAttention allocates whole blocks: the unfilled slots of the last block stay empty, only the waste is "
        "under one block (the paper's near-zero waste).",
    ),
    Misconception(
        "paged_contiguous_max_length",
        "按最大长度连续预留来算",
        "Counted a contiguous reservation of the maximum length",
        "按最大长度连续预留是 vLLM 之前的做法；PagedAttention 只在前面的块都填满时才分配新块。",
        "Reserving the maximum length contiguously is what systems before vLLM did; PagedAttention allocates a new "
        "block only when the earlier ones are full.",
    ),
    Misconception(
        "paged_floor_not_ceil",
        "向下取整了块数",
        "Rounded the block count down",
        "块数是 ⌈n / 块大小⌉：不足一块的那些 token 也要占一个块。",
        "The block count is ⌈n / block size⌉: the tokens that do not fill a block still take one.",
    ),
    Misconception(
        "paged_separate_prompt_blocks",
        "把 prompt 和生成的 token 分开装块",
        "Put the prompt's and the generated tokens in separate blocks",
        "生成的 token 接着写进 prompt 的最后一个块，块满了才分配新块。把两部分各自向上取整再相加，"
        "两部分的零头合起来装得下一个块时，就多算了一个块。",
        "Generated tokens go on filling the prompt's last block; a new block is allocated only when it is full. "
        "Rounding the prompt and the generated tokens up separately and adding counts one block too many "
        "whenever the two remainders fit in one block.",
    ),
    Misconception(
        "paged_prompt_only",
        "漏了生成的 token",
        "Left out the generated tokens",
        "生成出来的 token 的 K、V 也写进缓存：序列现在的长度是 prompt 加上已生成的 token。",
        "The generated tokens' K and V go into the cache too: the sequence is now the prompt plus the generated "
        "tokens.",
    ),
    Misconception(
        "gqa_tile_not_repeat",
        "用 tile 分组，头的对应关系错了",
        "Grouped the heads with tile: the wrong mapping",
        "GQA 里相邻的 n_head / n_kv_head 个 query 头共用一个 K/V 头：query 头 h 读 K/V 头 h // group，"
        "是 np.repeat（torch 的 repeat_interleave）；np.tile 给出的是 h % n_kv_head。",
        "In GQA consecutive groups of n_head / n_kv_head query heads share one K/V head: query head h reads K/V "
        "head h // group, which np.repeat (torch's repeat_interleave) gives; np.tile gives h % n_kv_head.",
    ),
    Misconception(
        "gqa_scale_by_d_model",
        "除以了 √d_model 而不是 √head_size",
        "Divided by √d_model instead of √head_size",
        "每个头的点积是 head_size 维的：缩放用 √head_size，不是所有头合起来的 √(n_head·head_size)。",
        "Each head's dot product has head_size terms: the scale is √head_size, not √(n_head·head_size) of all heads "
        "together.",
    ),
)

MISCONCEPTIONS: dict[str, Misconception] = {
    m.id: m for m in (*_ALL, *_POSITIONAL, *_LESSON6_COSTS, *_LESSON5_MASKS, *_LESSON7_SERVING)
}
ATTENTION_IDS: tuple[str, ...] = tuple(m.id for m in _ALL if m.is_attention)


def describe(id: str | None) -> dict[str, str] | None:
    """``get(id).describe()``; None for no id, and just the id for one this engine no longer knows
    (a variant stored under an older version must still display)."""
    if not id:
        return None
    found = MISCONCEPTIONS.get(id)
    return found.describe() if found else {"id": id}


def get(id: str) -> Misconception:
    """The misconception with this id; KeyError naming the known ids otherwise."""
    try:
        return MISCONCEPTIONS[id]
    except KeyError:
        raise KeyError(f"unknown misconception {id!r}; known: {', '.join(sorted(MISCONCEPTIONS))}") from None
