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
from typing import Any

import numpy as np
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from attention_engine.core import causal_mask, scaled_dot_product_attention, softmax
from attention_engine.exercise import D_K, D_MODEL, D_V, T, exercise_tensors
from attention_engine.generators.shapes import FIVE_STEPS
from attention_engine.masks import combined_hide, padding_mask, rows_without_key

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
_MASKED_FILL = "#e4e6ea"
_INK = "#111111"
_ids = itertools.count(1)  # unique ids per process: several figures share one page


def _mix(weight: float) -> tuple[int, int, int]:
    t = min(max(weight, 0.0), 1.0)
    return tuple(round(a + (b - a) * t) for a, b in zip(_LIGHT, _DARK, strict=True))  # type: ignore[return-value]


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
    return f"{value:.2f}"


def heatmap_data(
    weights: Sequence[Sequence[float]],
    *,
    masked: Sequence[Sequence[bool]] | None = None,
    row_labels: Sequence[str] | None = None,
    col_labels: Sequence[str] | None = None,
    highlight_row: int | None = None,
    label: str = "",
) -> dict[str, Any]:
    """What a heatmap draws, as data (the API's figure data; :func:`heatmap_svg` draws exactly this).

    ``weights``: (rows, T) numbers; ``masked``: the same shape, True where a cell is masked (drawn grey, shown as 0);
    ``highlight_row`` (0-based) the row a question asked about, outlined; ``label`` the one-sentence summary.
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
    cell_w, cell_h = 52, 34
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
    descriptions = []
    for i, row in enumerate(rows):
        y = top + i * cell_h
        body.append(
            f'<text x="{left - 6}" y="{y + cell_h / 2 + 5}" text-anchor="end" font-size="13" fill="{_INK}">'
            f"{escape(row_labels[i])}</text>"
        )
        said = []
        for j, value in enumerate(row):
            x = left + j * cell_w
            hidden = bool(masked[i][j])
            fill = _MASKED_FILL if hidden else _hex(_mix(value))
            ink = _INK if hidden else text_colour(_mix(value))
            shown = "0" if hidden else _weight_text(value)
            title = f"{row_labels[i]} → {col_labels[j]}: {shown}" + (f" ({masked_word})" if hidden else "")
            said.append(f"{shown} ({masked_word})" if hidden else shown)
            dash = ' stroke="#6b7280" stroke-dasharray="4 3"' if hidden else ' stroke="#ffffff"'
            body.append(
                f'<g class="heat-cell{" heat-cell--masked" if hidden else ""}"><title>{escape(title)}</title>'
                f'<rect x="{x}" y="{y}" width="{cell_w}" height="{cell_h}" fill="{fill}"{dash}/>'
                f'<text x="{x + cell_w / 2}" y="{y + cell_h / 2 + 5}" text-anchor="middle" font-size="13" '
                f'fill="{ink}">{escape(shown)}</text></g>'
            )
        descriptions.append(f"{row_labels[i]}: " + ", ".join(said))
    if highlight_row is not None:
        body.append(
            f'<rect x="{left - 1}" y="{top + highlight_row * cell_h - 1}" width="{n_cols * cell_w + 2}" '
            f'height="{cell_h + 2}" fill="none" stroke="#b45309" stroke-width="3"/>'
        )
    return _svg(width, height, data["label"], descriptions, body, ident=ident)


def _svg(
    width: int, height: int, label: str, description: Sequence[str], body: Sequence[str], *, ident: str | None = None
) -> SafeString:
    """``ident``: the ids' stem (a lesson figure's name: the same bytes in every process); else a fresh number."""
    n = ident or next(_ids)
    return mark_safe(
        f'<svg class="figure-svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
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
        body.append(
            f'<text x="0" y="{y0 + 15}" font-size="13" font-weight="600" fill="{_INK}">{escape(sample["title"])}</text>'
        )
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


def figure_svg(data: Mapping[str, Any], *, ident: str | None = None) -> SafeString:
    """The SVG of a figure's data (:func:`heatmap_data`, :func:`five_steps_data` or :func:`mask_combine_data`): the
    one drawing of each kind."""
    draw = {"heatmap": heatmap_svg, "shapes": shapes_svg, "mask": mask_svg}[data["kind"]]
    return draw(data, ident=ident)


#: The pictures a teaching section may name (``figure:``), each as its data; ``dk_demo`` is the live d_k demo
#: (a form on the page, GET /api/v1/engine/demo/ in the API), not an SVG.
FIGURES = {"five_steps": five_steps_data, "causal_heatmap": exercise_heatmap_data, "mask_combine": mask_combine_data}
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
