"""Pictures drawn on the server as SVG from the engine's numbers: attention-weight heatmaps and the
shapes of the five steps. No JavaScript, no CDN, nothing a Content-Security-Policy blocks (colours are
SVG presentation attributes, not inline styles).

Why here (core): a worked solution (the item presenter), the lesson's teaching text (the content
pages) and the admin preview all draw the same pictures. Every figure is an ``<svg role="img">``
with a one-sentence ``aria-label``, a ``<title>`` and a ``<desc>`` that states every number, so it
reads without sight and without colour; text colour is chosen per cell for contrast (axe
``color-contrast``).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from attention_engine.core import causal_mask, scaled_dot_product_attention, softmax
from attention_engine.costs import (
    GPTConfig,
    attention_crossover,
    attention_flops_per_token,
    block_matmul_weights,
    count_params,
    non_embedding_params,
)
from attention_engine.exercise import D_K, D_MODEL, D_V, T, exercise_tensors
from attention_engine.generators.costs import GPT2_SIZES
from attention_engine.generators.shapes import FIVE_STEPS
from attention_engine.masks import combined_hide, padding_mask, rows_without_key
from attention_engine.positional import YARN_BETA_FAST, YARN_BETA_SLOW, frequencies, rope_turns, sinusoidal_encoding
from attention_engine.serving import BYTES, kv_cache_bytes, mla_cache_bytes, paged_blocks

__all__ = [
    "FIGURES",
    "attention_heatmap_svg",
    "figure_svg",
    "five_steps_data",
    "five_steps_svg",
    "heatmap_data",
    "lesson_figure",
    "lesson_figure_data",
    "mask_combine_data",
    "solution_heatmap",
]

_LIGHT = (0xF4, 0xF8, 0xFD)  # weight 0
_DARK = (0x0B, 0x3D, 0x91)  # weight 1
_NEGATIVE = (0x9A, 0x34, 0x12)  # value −1 on a signed heatmap
_MASKED_FILL = "#e4e6ea"
_INK = "#111111"
_ZOOM = 1.3  # the phone-sized charts (340 units wide) on a desktop: 442 px, their 12-unit text at 15.6 px
_ids = itertools.count(1)  # unique ids per process: several figures share one page


def _mix(weight: float) -> tuple[int, int, int]:
    t = min(max(weight, 0.0), 1.0)
    return tuple(round(a + (b - a) * t) for a, b in zip(_LIGHT, _DARK, strict=True))  # type: ignore[return-value]


def _mix_signed(value: float) -> tuple[int, int, int]:
    """−1 dark orange, 0 light, +1 dark blue: a signed table (a sinusoid) reads by sign without the numbers."""
    t = min(max(value, -1.0), 1.0)
    end = _DARK if t >= 0 else _NEGATIVE
    return tuple(round(a + (b - a) * abs(t)) for a, b in zip(_LIGHT, end, strict=True))  # type: ignore[return-value]


def _hex(rgb: Sequence[int]) -> str:
    return "#" + "".join(f"{c:02x}" for c in rgb)


def _luminance(rgb: Sequence[int]) -> float:
    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def text_colour(fill: Sequence[int]) -> str:
    """Black or white, whichever contrasts more with ``fill`` (always ≥ 4.5:1, WCAG AA)."""
    lum = _luminance(fill)
    on_white = 1.05 / (lum + 0.05)
    on_black = (lum + 0.05) / 0.05
    return "#ffffff" if on_white > on_black else "#000000"


def _weight_text(value: float) -> str:
    text = f"{value:.2f}"
    return "0.00" if text == "-0.00" else text


def heatmap_data(
    weights: Sequence[Sequence[float]],
    *,
    masked: Sequence[Sequence[bool]] | None = None,
    row_labels: Sequence[str] | None = None,
    col_labels: Sequence[str] | None = None,
    highlight_row: int | None = None,
    label: str = "",
    scale: str = "weights",
    corner: str = "",
) -> dict[str, Any]:
    """What a heatmap draws, as data (the API's figure data; :func:`heatmap_svg` draws exactly this).

    ``weights``: (rows, T) numbers; ``masked``: the same shape, True where a cell is masked (drawn grey, shown as 0);
    ``highlight_row`` (0-based) the row a question asked about, outlined; ``label`` the one-sentence summary;
    ``scale``: ``weights`` (0 to 1, light to dark blue) or ``signed`` (−1 orange, 0 light, +1 blue); ``corner``
    names the rows' axis above their labels (empty: none).
    """
    rows = [list(map(float, row)) for row in weights]
    n_rows, n_cols = len(rows), len(rows[0]) if rows else 0
    highlighted = highlight_row if highlight_row is not None and 0 <= highlight_row < n_rows else None
    return {
        "kind": "heatmap",
        "label": label or _("Attention weights: rows are queries, columns are keys"),
        "weights": rows,
        "masked": [[bool(cell) for cell in row] for row in masked] if masked else [[False] * n_cols for _ in rows],
        "row_labels": [str(r) for r in row_labels] if row_labels else [f"q{i + 1}" for i in range(n_rows)],
        "col_labels": [str(c) for c in col_labels] if col_labels else [f"k{j + 1}" for j in range(n_cols)],
        "highlight_row": highlighted,
        "scale": scale,
        "corner": corner,
    }


def attention_heatmap_svg(
    weights: Sequence[Sequence[float]],
    *,
    masked: Sequence[Sequence[bool]] | None = None,
    row_labels: Sequence[str] | None = None,
    col_labels: Sequence[str] | None = None,
    highlight_row: int | None = None,
    label: str = "",
) -> SafeString:
    """A (rows, T) weight matrix as coloured cells with the number in each; masked cells grey and dashed.

    ``highlight_row`` (0-based) outlines the row a question asked about. ``label`` is the one-sentence
    summary (``aria-label`` and ``<title>``); ``<desc>`` lists every row's numbers.
    """
    return heatmap_svg(
        heatmap_data(
            weights,
            masked=masked,
            row_labels=row_labels,
            col_labels=col_labels,
            highlight_row=highlight_row,
            label=label,
        )
    )


def heatmap_svg(data: Mapping[str, Any], *, ident: str | None = None) -> SafeString:
    """The SVG of :func:`heatmap_data`'s figure."""
    rows, masked = data["weights"], data["masked"]
    row_labels, col_labels, highlight_row = data["row_labels"], data["col_labels"], data["highlight_row"]
    n_rows, n_cols = len(rows), len(rows[0]) if rows else 0
    signed = data.get("scale") == "signed"
    mix = _mix_signed if signed else _mix
    cell_w, cell_h = (38, 30) if signed else (52, 34)  # a signed table is wide (8 dimensions): narrower for a phone
    size, baseline = (12, 4) if signed else (13, 5)
    left = max(34, 8 + 13 * max((len(r) for r in row_labels), default=2))
    top = 24
    width, height = left + n_cols * cell_w + 4, top + n_rows * cell_h + 4
    masked_word = _("masked")
    body: list[str] = []
    for j, name in enumerate(col_labels):
        body.append(
            f'<text x="{left + j * cell_w + cell_w / 2}" y="{top - 8}" text-anchor="middle" font-size="13" '
            f'fill="{_INK}">{escape(name)}</text>'
        )
    if data.get("corner"):
        body.append(
            f'<text x="{left - 6}" y="{top - 8}" text-anchor="end" font-size="12" font-style="italic" fill="{_INK}">'
            f"{escape(data['corner'])}</text>"
        )
    descriptions = []
    for i, row in enumerate(rows):
        y = top + i * cell_h
        body.append(
            f'<text x="{left - 6}" y="{y + cell_h / 2 + baseline}" text-anchor="end" font-size="13" fill="{_INK}">'
            f"{escape(row_labels[i])}</text>"
        )
        said = []
        for j, value in enumerate(row):
            x = left + j * cell_w
            hidden = bool(masked[i][j])
            fill = _MASKED_FILL if hidden else _hex(mix(value))
            ink = _INK if hidden else text_colour(mix(value))
            shown = "0" if hidden else _weight_text(value)
            title = f"{row_labels[i]} → {col_labels[j]}: {shown}" + (f" ({masked_word})" if hidden else "")
            said.append(f"{shown} ({masked_word})" if hidden else shown)
            dash = ' stroke="#6b7280" stroke-dasharray="4 3"' if hidden else ' stroke="#ffffff"'
            body.append(
                f'<g class="heat-cell{" heat-cell--masked" if hidden else ""}"><title>{escape(title)}</title>'
                f'<rect x="{x}" y="{y}" width="{cell_w}" height="{cell_h}" fill="{fill}"{dash}/>'
                f'<text x="{x + cell_w / 2}" y="{y + cell_h / 2 + baseline}" text-anchor="middle" font-size="{size}" '
                f'fill="{ink}">{escape(shown)}</text></g>'
            )
        descriptions.append(f"{row_labels[i]}: " + ", ".join(said))
    if highlight_row is not None:
        body.append(
            f'<rect x="{left - 1}" y="{top + highlight_row * cell_h - 1}" width="{n_cols * cell_w + 2}" '
            f'height="{cell_h + 2}" fill="none" stroke="#b45309" stroke-width="3"/>'
        )
    return _svg(width, height, data["label"], descriptions, body, ident=ident, zoom=_ZOOM if signed else 1.0)


def _svg(
    width: int,
    height: int,
    label: str,
    description: Sequence[str],
    body: Sequence[str],
    *,
    ident: str | None = None,
    zoom: float = 1.0,
) -> SafeString:
    """``ident``: the ids' stem (a lesson figure's name: the same bytes in every process); else a fresh number.
    ``zoom``: drawn that much larger than its units where there is room (a desktop); a phone scales it down to its
    width (``max-width: 100%``), so a chart laid out for a phone does not read at 11 px on a wide screen."""
    n = ident or next(_ids)
    shown_w, shown_h = round(width * zoom), round(height * zoom)
    return mark_safe(
        f'<svg class="figure-svg" viewBox="0 0 {width} {height}" width="{shown_w}" height="{shown_h}" role="img" '
        f'aria-labelledby="fig{n}-title fig{n}-desc" xmlns="http://www.w3.org/2000/svg">'
        f'<title id="fig{n}-title">{escape(label)}</title>'
        f'<desc id="fig{n}-desc">{escape("; ".join(description))}</desc>'
        f"{''.join(body)}</svg>"
    )


# --------------------------------------------------------------------------- worked solutions


def _rows(value: Any) -> list[list[float]]:
    return np.atleast_2d(np.asarray(value, dtype=float)).tolist()


def _shown_scores(given: Mapping[str, Any]) -> np.ndarray | None:
    """The scaled scores a mask question works on: shown scaled (version 2: ``scores``) or as raw dot products with
    their d_k (version 3: ``dots``, ``d_k``), so the learner scales them first."""
    if "scores" in given:
        return np.asarray(given["scores"], dtype=float)  # (T, T)
    if "dots" in given and "d_k" in given:
        return np.asarray(given["dots"], dtype=float) / np.sqrt(float(given["d_k"]))  # (T, T)
    return None


def solution_heatmap(variant: Mapping[str, Any] | None) -> SafeString | None:
    """The attention weights behind a weight/mask question's worked solution, as a heatmap, or None.

    Recomputed with the engine from the numbers the prompt showed (``variant["given"]``):
    one-query templates draw every query's row with the asked one outlined; the causal-mask template
    draws the masked matrix; the "fill with 0" template draws the asked row filled with 0 beside the
    same row filled with −∞, so the weight leaking to the future is visible.
    """
    if not variant:
        return None
    template, given = variant.get("template"), variant.get("given") or {}
    if template in ("attention_row_weights", "attention_output") and "Q" in given and "K" in given:
        Q, K = np.asarray(given["Q"], dtype=float), np.asarray(given["K"], dtype=float)  # (T, d_k)
        causal = bool(given.get("is_causal"))
        W = scaled_dot_product_attention(Q, K, K, is_causal=causal, return_weights=True)[1]  # (T, T)
        n = len(W)
        hidden = ~causal_mask(n) if causal else np.zeros((n, n), dtype=bool)  # (T, T) True = masked
        query = int(given.get("query", 1)) - 1
        return attention_heatmap_svg(
            _rows(W),
            masked=hidden.tolist(),
            highlight_row=query,
            label=_("Attention weights of every query; the asked row, q%(row)s, is outlined") % {"row": query + 1},
        )
    scores = _shown_scores(given)
    if template == "causal_masked_weights" and scores is not None:
        S = scores  # (T, T) scaled
        allowed = causal_mask(len(S))  # (T, T)
        W = softmax(np.where(allowed, S, -np.inf), axis=-1)  # (T, T)
        return attention_heatmap_svg(_rows(W), masked=(~allowed).tolist(), label=_("Causally masked attention weights"))
    if template == "mask_fill_zero_contrast" and scores is not None and "query" in given:
        S = scores  # (T, T) scaled
        i = int(given["query"]) - 1
        future = np.arange(len(S)) > i  # (T,)
        zero = softmax(np.where(future, 0.0, S[i]))  # (T,)  the bug: future keys keep e^0
        right = softmax(np.where(future, -np.inf, S[i]))  # (T,)
        return attention_heatmap_svg(
            [zero.tolist(), right.tolist()],
            masked=[[False] * len(S), future.tolist()],
            row_labels=[_("fill 0"), _("fill −∞")],
            label=_("Row %(row)s filled with 0 (weight leaks to the future) and with −∞ (future weights exactly 0)")
            % {"row": i + 1},
        )
    return None


# --------------------------------------------------------------------------- lesson figures


def exercise_heatmap_data() -> dict[str, Any]:
    """Lesson 1: the exercise's causal weights (``default_rng(0)``), the matrix its expected output prints."""
    weights = exercise_tensors(np.random.default_rng(0))["weights"]  # (T, T)
    return heatmap_data(
        _rows(weights),
        masked=(~causal_mask(len(weights))).tolist(),
        label=_("The exercise's causal attention weights: above the diagonal every weight is 0"),
    )


def five_steps_data(t: int = T, d_model: int = D_MODEL, d_k: int = D_K, d_v: int = D_V) -> dict[str, Any]:
    """The five steps top to bottom as data: each step's name (empty for the input), its tensor and its shape."""
    project, score, scale, soft, weighted = (s.label for s in FIVE_STEPS)
    steps = [
        ("", "X", (t, d_model)),
        (project, "Q, K", (t, d_k)),
        (project, "V", (t, d_v)),
        (score, "QKᵀ", (t, t)),
        (scale, "S = QKᵀ/√d_k", (t, t)),
        (soft, "W = softmax(S)", (t, t)),
        (weighted, "O = W V", (t, d_v)),
    ]
    label = _("The shapes of the five steps for T=%(t)s, d_model=%(d_model)s, d_k=d_v=%(d_k)s") % {
        "t": t,
        "d_model": d_model,
        "d_k": d_k,
    }
    return {
        "kind": "shapes",
        "label": label,
        "steps": [{"step": str(step), "tensor": tensor, "shape": [rows, cols]} for step, tensor, (rows, cols) in steps],
    }


def five_steps_svg(t: int = T, d_model: int = D_MODEL, d_k: int = D_K, d_v: int = D_V) -> SafeString:
    """The five steps top to bottom, each tensor drawn as a grid of its (rows, columns) with its shape."""
    return shapes_svg(five_steps_data(t, d_model, d_k, d_v))


def shapes_svg(data: Mapping[str, Any], *, ident: str | None = None) -> SafeString:
    """The SVG of :func:`five_steps_data`'s figure."""
    unit = 8  # px per entry
    steps = data["steps"]
    left = 140
    row_h = max(unit * max((s["shape"][0] for s in steps), default=1) + 18, 44)
    width = left + unit * max((s["shape"][1] for s in steps), default=1) + 70
    body: list[str] = []
    said = []
    for i, step in enumerate(steps):
        step_name, name, (rows, cols) = step["step"], step["tensor"], step["shape"]
        y = 10 + i * row_h
        shape = f"({rows}, {cols})"
        said.append(f"{step_name + ': ' if step_name else ''}{name} {shape}")
        body.append(
            f'<text x="{left - 10}" y="{y + 12}" text-anchor="end" font-size="13" font-weight="600" fill="{_INK}">'
            f"{escape(step_name)}</text>"
            f'<text x="{left - 10}" y="{y + 28}" text-anchor="end" font-size="13" fill="{_INK}">{escape(name)}</text>'
            f'<rect x="{left}" y="{y}" width="{cols * unit}" height="{rows * unit}" fill="#dbe7f8" stroke="#0b3d91"/>'
        )
        body.extend(
            f'<line x1="{left + c * unit}" y1="{y}" x2="{left + c * unit}" y2="{y + rows * unit}" stroke="#9db7e0"/>'
            for c in range(1, cols)
        )
        body.extend(
            f'<line x1="{left}" y1="{y + r * unit}" x2="{left + cols * unit}" y2="{y + r * unit}" stroke="#9db7e0"/>'
            for r in range(1, rows)
        )
        body.append(
            f'<text x="{left + cols * unit + 10}" y="{y + rows * unit / 2 + 5}" font-size="13" fill="{_INK}">'
            f"{escape(shape)}</text>"
        )
    height = 10 + len(steps) * row_h
    return _svg(width, height, data["label"], said, body, ident=ident)


# --------------------------------------------------------------------------- lesson 5: the combined mask

#: What a cell of the combined mask is, and how it is drawn: (fill, its short text, the legend's word)
_MASK_CELLS = {
    "visible": ("#dbe7f8", "✓"),
    "causal": ("#e4e6ea", "C"),
    "padding": ("#fde7c8", "P"),
    "both": ("#c9ccd2", "CP"),
}
_HIDDEN_ROW = "#b91c1c"


def mask_combine_data(lengths: Sequence[int] = (2, 4), T: int = 5) -> dict[str, Any]:
    """Lesson 5: causal | padding for a left-padded batch, per sample a (T, T) grid of what blocks each cell
    (``visible``, ``causal``, ``padding`` or ``both``) and the rows with no visible key."""
    pad = padding_mask(lengths, T, "left")  # (B, T) True at padding
    hide = combined_hide(pad)[:, 0]  # (B, T, T) True = blocked
    causal = np.triu(np.ones((T, T), dtype=bool), k=1)  # (T, T)
    no_key = rows_without_key(combined_hide(pad))  # (B, T)
    samples = []
    for b, n in enumerate(lengths):
        by_pad = np.broadcast_to(pad[b][None, :], (T, T))  # (T, T) the padding columns
        kinds = np.where(causal & by_pad, "both", np.where(causal, "causal", np.where(by_pad, "padding", "visible")))
        assert ((kinds != "visible") == hide[b]).all()
        samples.append(
            {
                "title": _("Sample %(b)s: %(n)s tokens after %(p)s padding") % {"b": b + 1, "n": n, "p": T - n},
                "cells": kinds.tolist(),
                "hidden_rows": np.flatnonzero(no_key[b]).tolist(),
            }
        )
    return {
        "kind": "mask",
        "label": _(
            "Causal mask | padding mask for a left-padded batch: the padding's rows see no key at all (outlined)"
        ),
        "row_labels": [f"q{i + 1}" for i in range(T)],
        "col_labels": [f"k{j + 1}" for j in range(T)],
        "samples": samples,
    }


def mask_svg(data: Mapping[str, Any], *, ident: str | None = None) -> SafeString:
    """The SVG of :func:`mask_combine_data`'s figure: the samples stacked (narrow enough for a 360 px phone)."""
    words = {
        "visible": _("visible"),
        "causal": _("blocked: future"),
        "padding": _("blocked: padding"),
        "both": _("blocked: both"),
    }
    row_labels, col_labels = data["row_labels"], data["col_labels"]
    T = len(col_labels)
    cell, left, gap = 30, 34, 14
    no_key = _("no visible key")
    width = left + T * cell + 112
    body: list[str] = []
    said: list[str] = []
    y0 = 0
    for sample in data["samples"]:
        body.append(_heading(y0 + 15, sample["title"], size=13))
        top = y0 + 38
        body.extend(
            f'<text x="{left + j * cell + cell / 2}" y="{top - 6}" text-anchor="middle" font-size="12" '
            f'fill="{_INK}">{escape(name)}</text>'
            for j, name in enumerate(col_labels)
        )
        rows_said = []
        for i, row in enumerate(sample["cells"]):
            y = top + i * cell
            body.append(
                f'<text x="{left - 6}" y="{y + cell / 2 + 4}" text-anchor="end" font-size="12" fill="{_INK}">'
                f"{escape(row_labels[i])}</text>"
            )
            for j, kind in enumerate(row):
                fill, mark = _MASK_CELLS[kind]
                x = left + j * cell
                body.append(
                    f'<g class="mask-cell mask-cell--{kind}"><title>{escape(f"{row_labels[i]} → {col_labels[j]}")}: '
                    f"{escape(words[kind])}</title>"
                    f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="{fill}" stroke="#ffffff"/>'
                    f'<text x="{x + cell / 2}" y="{y + cell / 2 + 4}" text-anchor="middle" font-size="11" '
                    f'fill="{_INK}">{mark}</text></g>'
                )
            hidden = i in sample["hidden_rows"]
            if hidden:
                body.append(
                    f'<rect x="{left - 1}" y="{y + 1}" width="{T * cell + 2}" height="{cell - 2}" fill="none" '
                    f'stroke="{_HIDDEN_ROW}" stroke-width="2.5" stroke-dasharray="5 3"/>'
                    f'<text x="{left + T * cell + 6}" y="{y + cell / 2 + 4}" font-size="12" fill="{_HIDDEN_ROW}">'
                    f"✗ {escape(no_key)}</text>"
                )
            seen = [col_labels[j] for j, kind in enumerate(row) if kind == "visible"]
            rows_said.append(f"{row_labels[i]}: " + (", ".join(seen) if seen else no_key))
        said.append(f"{sample['title']}: " + "; ".join(rows_said))
        y0 = top + T * cell + gap
    legend_y = y0 + 4
    for k, (kind, (fill, mark)) in enumerate(_MASK_CELLS.items()):
        x, y = (k % 2) * (width // 2), legend_y + (k // 2) * 22
        body.append(
            f'<rect x="{x}" y="{y}" width="18" height="18" fill="{fill}" stroke="#9ca3af"/>'
            f'<text x="{x + 9}" y="{y + 13}" text-anchor="middle" font-size="10" fill="{_INK}">{mark}</text>'
            f'<text x="{x + 24}" y="{y + 13}" font-size="12" fill="{_INK}">{escape(words[kind])}</text>'
        )
    return _svg(width, legend_y + 44, data["label"], said, body, ident=ident)


# --------------------------------------------------------------------------- lesson 4: position encodings

#: Lesson 4's sinusoid table: a small d_model whose four frequencies are 1, 0.1, 0.01, 0.001 (base 10000).
SINUSOID_D_MODEL, SINUSOID_POSITIONS = 8, 10


def sinusoid_heatmap_data(d_model: int = SINUSOID_D_MODEL, n_positions: int = SINUSOID_POSITIONS) -> dict[str, Any]:
    """Lesson 4: the sinusoidal table PE (positions × dimensions), sin and cos of each pair side by side, the fast
    pairs on the left and the slow ones on the right."""
    pe = sinusoidal_encoding(np.arange(n_positions), d_model)  # (n_positions, d_model)
    omega = frequencies(d_model)  # (d_model/2,)
    cols = [f"{'sin' if j % 2 == 0 else 'cos'}{_SUB[j // 2]}" for j in range(d_model)]
    label = _(
        "Sinusoidal position encoding for d_model = %(d)s: rows are positions 0 to %(last)s, columns are the "
        "dimensions (sinᵢ, cosᵢ of pair i). Pair 0 turns fast (ω₀ = %(fast)s), pair %(slow_i)s hardly moves "
        "(ω = %(slow)s)"
    ) % {
        "d": d_model,
        "last": n_positions - 1,
        "fast": f"{omega[0]:g}",
        "slow_i": len(omega) - 1,
        "slow": f"{omega[-1]:g}",
    }
    return heatmap_data(
        _rows(pe),
        row_labels=[str(p) for p in range(n_positions)],
        col_labels=cols,
        label=label,
        scale="signed",
        corner="pos",
    )


_SUB = "₀₁₂₃₄₅₆₇₈₉"

#: Lesson 4's extrapolation example: RoPE with d = 128 trained on L = 4096 tokens.
ROPE_D, ROPE_L = 128, 4096


def rope_rotations_data(d: int = ROPE_D, L: int = ROPE_L) -> dict[str, Any]:
    """Lesson 4: how many turns each RoPE pair makes within the training length (log scale), split by YaRN's
    thresholds: above 32 turns the angles were all seen (kept), below 1 turn interpolated as PI, linear between."""
    turns = rope_turns(d, L)  # (d/2,)
    pairs = np.arange(len(turns))  # (d/2,)
    keep, ramp = turns > YARN_BETA_FAST, (turns >= YARN_BETA_SLOW) & (turns <= YARN_BETA_FAST)
    regions = [
        (_("more than %(n)g turns: kept") % {"n": YARN_BETA_FAST}, keep),
        (_("%(lo)g to %(hi)g turns: blended") % {"lo": YARN_BETA_SLOW, "hi": YARN_BETA_FAST}, ramp),
        (_("under %(n)g turn: interpolated (as PI)") % {"n": YARN_BETA_SLOW}, ~(keep | ramp)),
    ]
    # whole decades, with room above the fastest pair for its number
    low, high = 10.0 ** np.floor(np.log10(turns.min())), 10.0 ** np.ceil(np.log10(turns.max()) + 0.3)
    return {
        "kind": "plot",
        "label": _(
            "Turns of each RoPE pair within the training length L = %(L)s (d = %(d)s, log scale): pair 0 turns "
            "%(first)s times, pair %(last_i)s only %(last)s of a turn; YaRN's thresholds at %(hi)g and %(lo)g turns"
        )
        % {
            "L": L,
            "d": d,
            "first": f"{turns[0]:.0f}",
            "last_i": len(turns) - 1,
            "last": f"{turns[-1]:.3f}",
            "hi": YARN_BETA_FAST,
            "lo": YARN_BETA_SLOW,
        },
        "x_label": _("pair i"),
        "y_label": _("turns within L (log scale)"),
        "x_scale": "linear",
        "y_scale": "log",
        "x_range": [0.0, float(len(turns) - 1)],
        "y_range": [float(low), float(high)],
        "x_ticks": _ticks([0, 16, 32, 48, len(turns) - 1]),
        "y_ticks": _ticks([10.0**e for e in range(int(np.log10(low)), int(np.log10(high)) + 1)]),
        "series": [
            {
                "name": name,
                "style": "dots",
                "points": [[float(i), float(t)] for i, t in zip(pairs[m], turns[m], strict=True)],
            }
            for name, m in regions
        ],
        "guides": [
            {"axis": "y", "value": YARN_BETA_FAST, "text": _("%(n)g turns") % {"n": YARN_BETA_FAST}},
            {"axis": "y", "value": YARN_BETA_SLOW, "text": _("%(n)g turn") % {"n": YARN_BETA_SLOW}},
        ],
        "marks": [
            {"x": 0.0, "y": float(turns[0]), "text": f"{turns[0]:.0f}", "side": "above-right"},
            {"x": float(len(turns) - 1), "y": float(turns[-1]), "text": f"{turns[-1]:.3f}", "side": "below-left"},
        ],
    }


def _ticks(values: Sequence[float]) -> list[dict[str, Any]]:
    return [{"value": float(v), "text": _number(v)} for v in values]


def _number(value: float) -> str:
    """A tick's or a point's number as a learner reads it: 0.01, 1, 4096, 1e+04 as 10000."""
    return f"{value:,.0f}".replace(",", "") if value >= 1 and float(value).is_integer() else f"{value:g}"


# --------------------------------------------------------------------------- lesson 6: FLOPs against context

#: GPT-2 small's width: lesson 6's example.
FLOPS_MODEL = GPTConfig()


def flops_vs_context_data(cfg: GPTConfig = FLOPS_MODEL) -> dict[str, Any]:
    """Lesson 6: one layer's forward FLOPs per token against the context T: the weights' 24d² and the MLP's 16d²
    are flat, the T × T steps grow as 4Td (in full) or 2Td (causal mean); the four crossovers of the table marked."""
    d = cfg.n_embd
    weights = 2 * block_matmul_weights(cfg)  # 24 d²: 2 FLOPs per matmul weight
    mlp = 2 * (2 * cfg.mlp_ratio * d * d)  # 16 d²: c_fc and c_proj
    crossings = [
        (attention_crossover(cfg, "mlp"), mlp),
        (attention_crossover(cfg, "weights"), weights),
        (2 * attention_crossover(cfg, "mlp"), mlp),  # the causal mean is half the full count: twice the T
        (2 * attention_crossover(cfg, "weights"), weights),
    ]
    t_max = int(np.ceil(crossings[-1][0] * 1.1 / 2048)) * 2048  # past the last crossover, a round number
    grid = [0, t_max]
    unit = 1e6

    def line(name: str, values: Sequence[int]) -> dict[str, Any]:
        return {
            "name": name,
            "style": "line",
            "points": [[float(t), v / unit] for t, v in zip(grid, values, strict=True)],
        }

    full = [attention_flops_per_token(t, d) for t in grid]  # one layer, 4Td
    y_top = float(np.ceil(full[-1] / unit / 10) * 10)
    return {
        "kind": "plot",
        "label": _(
            "One layer's forward FLOPs per token against the context T for d = %(d)s (GPT-2 small): the weights "
            "(24d²) and the MLP (16d²) stay flat, the T × T steps grow as 4Td in full and 2Td as a causal mean; they "
            "meet at T = 4d, 6d, 8d and 12d"
        )
        % {"d": d},
        "x_label": _("context length T (tokens)"),
        "y_label": _("FLOPs per token, one layer (millions)"),
        "x_scale": "linear",
        "y_scale": "linear",
        "x_range": [0.0, float(t_max)],
        "y_range": [0.0, y_top],
        "x_ticks": _ticks([0, *sorted(t for t, _ in crossings)]),  # the axis reads the T of each crossover
        "y_ticks": _ticks(np.arange(0, y_top + 1, 10).tolist()),
        "series": [
            line(_("all weights 24d²"), [weights, weights]),
            line(_("MLP 16d²"), [mlp, mlp]),
            line(_("T × T in full 4Td"), full),
            line(_("T × T causal 2Td"), [f // 2 for f in full]),
        ],
        "guides": [],
        # the MLP's crossovers labelled below their line, the weights' above it: clear of the rising lines
        "marks": [
            {"x": float(t), "y": v / unit, "text": f"{t // d}d", "side": "below-right" if v == mlp else "above-left"}
            for t, v in crossings
        ],
    }


# --------------------------------------------------------------------------- lesson 6: where the parameters are


def param_breakdown_data() -> dict[str, Any]:
    """Lesson 6: the four GPT-2 sizes' parameters (nanoGPT's configs) split into embeddings (wte + wpe), attention
    and MLP weights, biases + LayerNorms, as shares of the total: the embeddings' share falls from about a third."""
    rows: list[dict[str, Any]] = []
    for name, (n_layer, n_head, n_embd) in GPT2_SIZES.items():
        cfg = GPTConfig(n_layer=n_layer, n_head=n_head, n_embd=n_embd)
        d, total = cfg.n_embd, count_params(cfg)
        embeddings = cfg.vocab_size * d + cfg.block_size * d  # wte (V, d) + wpe (block_size, d)
        attention = cfg.n_layer * 4 * d * d  # c_attn + c_proj weights
        mlp = cfg.n_layer * 2 * cfg.mlp_ratio * d * d  # c_fc + c_proj weights
        assert attention + mlp == non_embedding_params(cfg)
        values = [embeddings, attention, mlp, total - embeddings - attention - mlp]  # the rest: biases, ln_1/2/f
        rows.append(
            {
                "label": name,
                "total": total,
                "values": values,
                "title": _("%(name)s: %(total)s parameters, embeddings %(share)s")
                % {"name": name, "total": f"{total:,}", "share": f"{embeddings / total:.1%}"},
            }
        )
    rest = max(row["values"][3] / row["total"] for row in rows)  # too thin to see: the legend says how thin
    parts = [
        _("embeddings"),
        _("attention weights"),
        _("MLP weights"),
        _("biases + LayerNorm (at most %(share)s)") % {"share": f"{rest:.2%}"},
    ]
    return {
        "kind": "shares",
        "label": _(
            "Where GPT-2's parameters are, small to XL: the embeddings' share falls from %(first)s to %(last)s as "
            "the blocks grow as 12·L·d² and the embeddings only as d"
        )
        % {
            "first": f"{rows[0]['values'][0] / rows[0]['total']:.1%}",
            "last": f"{rows[-1]['values'][0] / rows[-1]['total']:.1%}",
        },
        "parts": parts,
        "rows": rows,
    }


_PART_FILL = ("#b45309", "#0b3d91", "#047857", "#7c3aed")


def shares_svg(data: Mapping[str, Any], *, ident: str | None = None) -> SafeString:
    """The SVG of a ``shares`` figure: one 100 % bar per row split into its parts, a part's percentage written in
    it where it fits, a legend below; 340 px wide so it reads on a 360 px phone."""
    bar_w, bar_h = _PLOT_W - 2, 22
    body: list[str] = []
    said: list[str] = []
    y = 0
    for row in data["rows"]:
        total = row["total"]
        body.append(_heading(y + 13, row["title"]))
        y += 18
        x = 1.0
        for k, value in enumerate(row["values"]):
            w = bar_w * value / total
            share = f"{value / total:.1%}"
            body.append(
                f'<rect class="share share--{k}" x="{x:.1f}" y="{y}" width="{w:.1f}" height="{bar_h}" '
                f'fill="{_PART_FILL[k]}"><title>{escape(data["parts"][k])}: {value:,} ({share})</title></rect>'
            )
            if w >= 44:
                body.append(
                    f'<text x="{x + w / 2:.1f}" y="{y + 15}" text-anchor="middle" font-size="11" '
                    f'fill="{text_colour(_rgb(_PART_FILL[k]))}">{share}</text>'
                )
            x += w
        said.append(
            f"{row['title']}: "
            + ", ".join(
                f"{part} {value:,} ({value / total:.1%})"
                for part, value in zip(data["parts"], row["values"], strict=True)
            )
        )
        y += bar_h + 10
    for k, part in enumerate(data["parts"]):  # one per line: a part's name may be long
        ly = y + k * 20
        body.append(
            f'<rect x="0" y="{ly}" width="14" height="14" fill="{_PART_FILL[k]}"/>'
            f'<text x="20" y="{ly + 12}" font-size="12" fill="{_INK}">{escape(part)}</text>'
        )
    return _svg(_PLOT_W, y + 20 * len(data["parts"]), data["label"], said, body, ident=ident, zoom=_ZOOM)


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


# --------------------------------------------------------------------------- lesson 7: KV-cache sizes


#: Lesson 7's two shapes: the 40-layer example (40 heads of 128, fp16; OPT-13B) and DeepSeek-V2's (128 heads of
#: 128, d_c = 512, d_h^R = 64, bf16). GQA with 8 K/V heads in both.
@dataclass(frozen=True)
class KVShape:
    """A model's attention shape as far as its KV cache goes; ``mla`` = (d_c, d_h^R) when it has MLA."""

    n_head: int
    head_size: int
    dtype: str
    mla: tuple[int, int] | None = None


KV_SHAPES = (KVShape(40, 128, "float16"), KVShape(128, 128, "bfloat16", mla=(512, 64)))
GQA_GROUPS = 8
_DTYPE_NAMES = {"float16": "fp16", "bfloat16": "bf16"}  # as the lesson writes them


def kv_cache_bars_data() -> dict[str, Any]:
    """Lesson 7: bytes of KV cache per token per layer for MHA, GQA-8, MQA (and MLA where the model has it), from the
    engine's kv_cache_bytes / mla_cache_bytes with one layer and one token."""
    groups = []
    for shape in KV_SHAPES:
        nbytes, hs, n_head = BYTES[shape.dtype], shape.head_size, shape.n_head
        sizes = [
            (f"MHA ({n_head})", kv_cache_bytes(1, 1, 1, n_head, hs, nbytes)),
            (f"GQA ({GQA_GROUPS})", kv_cache_bytes(1, 1, 1, GQA_GROUPS, hs, nbytes)),
            ("MQA (1)", kv_cache_bytes(1, 1, 1, 1, hs, nbytes)),
        ]
        if shape.mla:
            d_c, d_rope = shape.mla
            sizes.append((f"MLA ({d_c}+{d_rope})", mla_cache_bytes(1, 1, 1, d_c, d_rope, nbytes)))
        title = _("%(n)s heads of %(hs)s, %(dtype)s") % {"n": n_head, "hs": hs, "dtype": _DTYPE_NAMES[shape.dtype]}
        if shape.mla:
            title = _("DeepSeek-V2's shape: %(shape)s") % {"shape": title}
        groups.append(
            {
                "title": title,
                "bars": [
                    {
                        "label": name,
                        "value": size,
                        "text": _bytes_text(size),  # no "1/5": the section's checkpoint asks that fraction
                    }
                    for name, size in sizes
                ],
            }
        )
    return {
        "kind": "bars",
        "label": _(
            "KV cache per token per layer (log scale): MHA keeps every head's K and V, GQA 8 groups, MQA one, MLA "
            "one latent and one RoPE key; the numbers in brackets are the K/V heads (MLA: d_c + d_h^R)"
        ),
        "axis_label": _("bytes per token per layer (log scale)"),
        "scale": "log",
        "groups": groups,
    }


def _bytes_text(n: int) -> str:
    return f"{n} B" if n < 1024 else f"{n / 1024:g} KiB"


# --------------------------------------------------------------------------- lesson 7: PagedAttention's block table

#: Lesson 7's PagedAttention picture: blocks of 4 tokens (the paper's figure 6), two sequences, 8 physical blocks.
PAGED_BLOCK_SIZE, PAGED_TOKENS, PAGED_PHYSICAL, PAGED_SEED = 4, (7, 6), 8, 8


def paged_block_table_data(
    tokens: Sequence[int] = PAGED_TOKENS,
    block_size: int = PAGED_BLOCK_SIZE,
    n_physical: int = PAGED_PHYSICAL,
    seed: int = PAGED_SEED,
) -> dict[str, Any]:
    """Lesson 7: each sequence's logical blocks filled in order, its block table (physical block, slots filled) and
    the physical blocks scattered over the memory by a seeded allocator; only a sequence's last block has empty
    slots (the engine's paged_blocks)."""
    counts = [paged_blocks(n, block_size) for n in tokens]  # (blocks, empty slots in the last) per sequence
    free = np.random.default_rng(seed).permutation(n_physical)  # (n_physical,) the allocator's free list
    assert sum(blocks for blocks, _ in counts) <= n_physical
    physical: list[dict[str, Any]] = [
        {"block": b, "owner": None, "logical": None, "tokens": []} for b in range(n_physical)
    ]
    sequences, taken = [], 0
    for s, (n, (blocks, empty)) in enumerate(zip(tokens, counts, strict=True)):
        name = "AB"[s]
        table = []
        for logical in range(blocks):
            block = int(free[taken])
            taken += 1
            filled = block_size - empty if logical == blocks - 1 else block_size
            table.append({"logical": logical, "physical": block, "filled": filled})
            first = logical * block_size + 1
            physical[block].update(owner=name, logical=logical, tokens=list(range(first, first + filled)))
        sequences.append(
            {
                "name": name,
                "title": _("Sequence %(name)s: %(n)s tokens in %(blocks)s blocks, %(empty)s slot(s) empty")
                % {"name": name, "n": n, "blocks": blocks, "empty": empty},
                "tokens": n,
                "table": table,
            }
        )
    return {
        "kind": "paged",
        "label": _(
            "PagedAttention with blocks of %(size)s tokens: each sequence fills its logical blocks in order; its "
            "block table maps each one to a physical block anywhere in memory and counts the filled slots"
        )
        % {"size": block_size},
        "block_size": block_size,
        "sequences": sequences,
        "physical": physical,
    }


_OWNER_FILL = {"A": "#dbe7f8", "B": "#fde7c8"}
_OWNER_LINE = {"A": "#0b3d91", "B": "#b45309"}


def paged_svg(data: Mapping[str, Any], *, ident: str | None = None) -> SafeString:
    """The SVG of :func:`paged_block_table_data`'s figure: per sequence its logical blocks with their block-table
    entries, then the physical blocks two columns wide; 340 px wide so it reads on a 360 px phone."""
    size, cell = data["block_size"], 20
    logical, physical, free = _("logical %(n)s"), _("physical %(block)s"), _("free")
    logical_w, table_x = 58, 58 + size * cell + 8
    body: list[str] = []
    said: list[str] = []
    y = 0
    for seq in data["sequences"]:
        name = seq["name"]
        body.append(_heading(y + 14, seq["title"]))
        y += 22
        for entry in seq["table"]:
            body.append(
                f'<text x="{logical_w - 6}" y="{y + 14}" text-anchor="end" font-size="12" fill="{_INK}">'
                f"{escape(logical % {'n': entry['logical']})}</text>"
            )
            for k in range(size):
                token = entry["logical"] * size + k + 1
                filled = k < entry["filled"]
                body.append(
                    f'<rect x="{logical_w + k * cell}" y="{y}" width="{cell}" height="{cell}" '
                    f'fill="{_OWNER_FILL[name] if filled else "#ffffff"}" stroke="{_OWNER_LINE[name]}"/>'
                    + (
                        f'<text x="{logical_w + k * cell + cell / 2}" y="{y + 14}" text-anchor="middle" font-size="11" '
                        f'fill="{_INK}">{token}</text>'
                        if filled
                        else ""
                    )
                )
            entry_text = _("→ physical %(block)s, %(filled)s/%(size)s filled") % {
                "block": entry["physical"],
                "filled": entry["filled"],
                "size": size,
            }
            body.append(
                f'<text class="block-entry" x="{table_x}" y="{y + 14}" font-size="12" fill="{_INK}">'
                f"{escape(entry_text)}</text>"
            )
            said.append(f"{name} {logical % {'n': entry['logical']}} {entry_text}")
            y += cell + 4
        y += 8
    memory = _("Physical blocks in GPU memory")
    body.append(_heading(y + 14, memory))
    y += 22
    col_w, pcell = 170, 26
    rows = (len(data["physical"]) + 1) // 2
    for block in data["physical"]:
        b = block["block"]
        x, by = (b // rows) * col_w, y + (b % rows) * (pcell + 4)
        owner = block["owner"]
        body.append(f'<text x="{x + 26}" y="{by + 17}" text-anchor="end" font-size="12" fill="{_INK}">{b}</text>')
        if not owner:  # a free block: one grey box saying so
            body.append(
                f'<rect x="{x + 32}" y="{by}" width="{size * pcell}" height="{pcell}" fill="#eef0f3" stroke="#9ca3af"/>'
                f'<text x="{x + 32 + size * pcell / 2}" y="{by + 17}" text-anchor="middle" font-size="11" '
                f'fill="{_INK}">{escape(free)}</text>'
            )
        for k in range(size if owner else 0):
            token = block["tokens"][k] if k < len(block["tokens"]) else None
            fill = _OWNER_FILL[owner] if token is not None else "#ffffff"
            body.append(
                f'<rect x="{x + 32 + k * pcell}" y="{by}" width="{pcell}" height="{pcell}" fill="{fill}" '
                f'stroke="{_OWNER_LINE[owner]}"/>'
                + (
                    f'<text x="{x + 32 + k * pcell + pcell / 2}" y="{by + 17}" text-anchor="middle" font-size="11" '
                    f'fill="{_INK}">{owner}{token}</text>'
                    if token is not None
                    else ""
                )
            )
        said.append(
            f"{physical % {'block': b}}: " + (f"{owner} {logical % {'n': block['logical']}}" if owner else free)
        )
    height = y + rows * (pcell + 4) + 4
    return _svg(_PLOT_W, height, data["label"], said, body, ident=ident, zoom=_ZOOM)


# --------------------------------------------------------------------------- drawing: plots and bars

#: A series' colour and dash (the dash tells the lines apart without colour); all ≥ 4.5:1 on white.
_SERIES = (("#0b3d91", ""), ("#b45309", "7 4"), ("#047857", "2 3"), ("#7c3aed", "9 3 2 3"))
_GRID = "#d1d5db"
_PLOT_W = 340


def _axis(lo: float, hi: float, log: bool, start: float, length: float) -> Any:
    """value -> pixel along one axis (``length`` may be negative: y grows downwards)."""
    a, b = (np.log10(lo), np.log10(hi)) if log else (lo, hi)

    def at(v: float) -> float:
        u = np.log10(v) if log else v
        return round(start + (u - a) / (b - a) * length, 1)

    return at


def _heading(y: float, text: str, *, size: int = 12) -> str:
    """A bold line of text at the left edge: a row's, a group's or a part's title."""
    return f'<text x="0" y="{y}" font-size="{size}" font-weight="600" fill="{_INK}">{escape(text)}</text>'


def _line_and_text(
    line: tuple[float, float, float, float],
    stroke: str,
    at: tuple[float, float, str],
    text: str,
    *,
    colour: str = _INK,
    line_style: str = "",
) -> str:
    """A line with a small text beside it (an axis tick and its value, a grid line, a named guide): one drawing for
    every plot and bar axis."""
    x1, y1, x2, y2 = line
    x, y, anchor = at
    return (
        f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{stroke}"{line_style}/>'
        f'<text x="{x}" y="{y}" text-anchor="{anchor}" font-size="11" fill="{colour}">{escape(text)}</text>'
    )


def plot_svg(data: Mapping[str, Any], *, ident: str | None = None) -> SafeString:
    """The SVG of a ``plot`` figure: points or lines on linear or log axes, dashed guides and labelled marks,
    a legend below; 340 px wide so it reads on a 360 px phone."""
    left, right, top, plot_h = 50, 10, 30, 200
    plot_w = _PLOT_W - left - right
    (x_lo, x_hi), (y_lo, y_hi) = data["x_range"], data["y_range"]
    x_at = _axis(x_lo, x_hi, data["x_scale"] == "log", left, plot_w)
    y_at = _axis(y_lo, y_hi, data["y_scale"] == "log", top + plot_h, -plot_h)
    bottom = top + plot_h
    body = [f'<text x="0" y="14" font-size="12" fill="{_INK}">{escape(data["y_label"])}</text>']
    for tick in data["y_ticks"]:  # a grid line across the plot, its value to the left
        y = y_at(tick["value"])
        body.append(_line_and_text((left, y, left + plot_w, y), _GRID, (left - 5, y + 4, "end"), tick["text"]))
    for tick in data["x_ticks"]:  # a tick below the plot, its value under it
        x = x_at(tick["value"])
        body.append(_line_and_text((x, bottom, x, bottom + 4), _INK, (x, bottom + 16, "middle"), tick["text"]))
    body.append(
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="{_INK}"/>'
        f'<text x="{left + plot_w / 2}" y="{bottom + 32}" text-anchor="middle" font-size="12" fill="{_INK}">'
        f"{escape(data['x_label'])}</text>"
    )
    for guide in data["guides"]:
        y = y_at(guide["value"])
        body.append(
            _line_and_text(
                (left, y, left + plot_w, y),
                _HIDDEN_ROW,
                (left + plot_w - 4, y - 4, "end"),
                guide["text"],
                colour=_HIDDEN_ROW,
                line_style=' stroke-width="1.5" stroke-dasharray="5 3"',
            )
        )
    said = []
    for k, series in enumerate(data["series"]):
        colour, dash = _SERIES[k % len(_SERIES)]
        points = [(x_at(x), y_at(y)) for x, y in series["points"]]
        if series["style"] == "line":
            dashed = f' stroke-dasharray="{dash}"' if dash else ""
            body.append(
                f'<polyline class="plot-line" points="{" ".join(f"{x},{y}" for x, y in points)}" fill="none" '
                f'stroke="{colour}" stroke-width="2.5"{dashed}/>'
            )
        else:
            body.extend(f'<circle class="plot-dot" cx="{x}" cy="{y}" r="2.6" fill="{colour}"/>' for x, y in points)
        said.append(f"{series['name']}: " + ", ".join(f"({_number(x)}, {_number(y)})" for x, y in series["points"]))
    for mark in data["marks"]:
        x, y = x_at(mark["x"]), y_at(mark["y"])
        vertical, horizontal = mark["side"].split("-")  # where the text sits: clear of the lines (the data says)
        anchor, dx = ("end", -6) if horizontal == "left" else ("start", 6)
        dy = -7 if vertical == "above" else 15
        body.append(
            f'<circle cx="{x}" cy="{y}" r="4" fill="#ffffff" stroke="{_INK}" stroke-width="1.5"/>'
            f'<text class="plot-mark" x="{x + dx}" y="{y + dy}" text-anchor="{anchor}" font-size="12" '
            f'font-weight="600" fill="{_INK}">{escape(mark["text"])}</text>'
        )
        said.append(f"{mark['text']}: ({_number(mark['x'])}, {_number(mark['y'])})")
    legend_y = bottom + 44
    for k, series in enumerate(data["series"]):
        colour, dash = _SERIES[k % len(_SERIES)]
        y = legend_y + k * 18
        sample = (
            f'<line x1="0" y1="{y + 6}" x2="24" y2="{y + 6}" stroke="{colour}" stroke-width="2.5"'
            + (f' stroke-dasharray="{dash}"' if dash else "")
            + "/>"
            if series["style"] == "line"
            else f'<circle cx="12" cy="{y + 6}" r="4" fill="{colour}"/>'
        )
        body.append(f'{sample}<text x="30" y="{y + 10}" font-size="12" fill="{_INK}">{escape(series["name"])}</text>')
    height = legend_y + 18 * len(data["series"]) + 4
    return _svg(_PLOT_W, height, data["label"], said, body, ident=ident, zoom=_ZOOM)


def bars_svg(data: Mapping[str, Any], *, ident: str | None = None) -> SafeString:
    """The SVG of a ``bars`` figure: groups of horizontal bars on a log (or linear) axis, each bar's number
    written after it; 340 px wide so it reads on a 360 px phone."""
    label_w, bar_max, bar_h, gap = 104, 150, 20, 6
    values = [bar["value"] for group in data["groups"] for bar in group["bars"]]
    log = data["scale"] == "log"
    lo = 2.0 ** (np.floor(np.log2(min(values))) - 2) if log else 0.0  # a log bar needs a start below the smallest
    hi = lo * 8.0 ** np.ceil(np.log(max(values) / lo) / np.log(8)) if log else max(values)  # ends on a tick
    length = _axis(lo, hi, log, 0, bar_max)
    body: list[str] = []
    said: list[str] = []
    y = 0
    for group in data["groups"]:
        body.append(_heading(y + 14, group["title"], size=13))
        y += 22
        for k, bar in enumerate(group["bars"]):
            colour = _SERIES[k % len(_SERIES)][0]
            w = max(length(bar["value"]), 2)
            body.append(
                f'<g class="bar"><text x="{label_w - 6}" y="{y + 14}" text-anchor="end" font-size="12" fill="{_INK}">'
                f'{escape(bar["label"])}</text><rect x="{label_w}" y="{y}" width="{w}" height="{bar_h}" '
                f'fill="{colour}"/><text x="{label_w + w + 5}" y="{y + 14}" font-size="12" fill="{_INK}">'
                f"{escape(bar['text'])}</text></g>"
            )
            y += bar_h + gap
        said.append(f"{group['title']}: " + ", ".join(f"{bar['label']} {bar['text']}" for bar in group["bars"]))
        y += 10
    # the axis: ticks at powers of 8 (log) under the bars
    body.append(f'<line x1="{label_w}" y1="{y}" x2="{label_w + bar_max}" y2="{y}" stroke="{_INK}"/>')
    ticks = [lo * 8**k for k in range(12) if lo * 8**k <= hi] if log else np.linspace(0, hi, 4).tolist()
    for k, value in enumerate(ticks):
        x = label_w + length(value)
        anchor = "start" if k == 0 else "middle"
        body.append(_line_and_text((x, y, x, y + 4), _INK, (x, y + 16, anchor), _bytes_text(int(value))))
    body.append(f'<text x="{label_w}" y="{y + 32}" font-size="12" fill="{_INK}">{escape(data["axis_label"])}</text>')
    return _svg(_PLOT_W, y + 38, data["label"], said, body, ident=ident, zoom=_ZOOM)


def figure_svg(data: Mapping[str, Any], *, ident: str | None = None) -> SafeString:
    """The SVG of a figure's data (kinds heatmap, shapes, mask, plot, bars, paged and shares): the one drawing of
    each kind."""
    draw = {
        "heatmap": heatmap_svg,
        "shapes": shapes_svg,
        "mask": mask_svg,
        "plot": plot_svg,
        "bars": bars_svg,
        "paged": paged_svg,
        "shares": shares_svg,
    }
    return draw[data["kind"]](data, ident=ident)


#: The pictures a teaching section may name (``figure:``), each as its data; ``dk_demo`` is the live d_k demo
#: (a form on the page, GET /api/v1/engine/demo/ in the API), not an SVG.
FIGURES = {
    "five_steps": five_steps_data,
    "causal_heatmap": exercise_heatmap_data,
    "mask_combine": mask_combine_data,
    "sinusoid_heatmap": sinusoid_heatmap_data,
    "rope_rotations": rope_rotations_data,
    "flops_vs_context": flops_vs_context_data,
    "param_breakdown": param_breakdown_data,
    "kv_cache_bars": kv_cache_bars_data,
    "paged_block_table": paged_block_table_data,
}
INTERACTIVE_FIGURES = ("dk_demo",)


def lesson_figure_data(name: str) -> dict[str, Any] | None:
    """A teaching section's picture as data (what its SVG draws); None for the interactive ones and unknown names."""
    return _lesson_figure(name, get_language())[0] if name in FIGURES else None


def lesson_figure(name: str) -> SafeString | None:
    """A teaching section's picture by name, drawn from :func:`lesson_figure_data`; None for the interactive ones
    and unknown names."""
    return _lesson_figure(name, get_language())[1] if name in FIGURES else None


@functools.lru_cache(maxsize=64)
def _lesson_figure(name: str, language: str | None) -> tuple[dict[str, Any], SafeString]:
    """Memoised per language: a lesson figure depends only on its name (its labels on the language). Its ids are
    named after it, so every process draws the same bytes (the lessons API's ETag). Callers must not mutate it."""
    data = FIGURES[name]()
    return data, figure_svg(data, ident=f"fig-{name.replace('_', '-')}")
