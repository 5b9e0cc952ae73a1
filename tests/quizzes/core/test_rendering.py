"""quizzes.core.rendering: Markdown + LaTeX → safe HTML with MathML, offline."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from quizzes.core.rendering import math_to_mathml, render_markdown, render_value, value_to_latex


def test_inline_and_display_math_become_mathml():
    html = render_markdown("分数 $QK^\\top/\\sqrt{d_k}$：\n\n$$\\mathrm{softmax}(x)$$")
    assert '<math display="inline"' in html
    assert '<math display="block"' in html
    assert "<msqrt>" in html
    assert "$" not in html
    # the display formula stands on its own, not wrapped in <p>
    assert '<p><math display="block"' not in html


def test_underscores_and_stars_inside_math_are_not_markdown():
    html = render_markdown("$a_b * c_d$ and $x_1$ then *em*")
    assert "<em>em</em>" in html
    assert html.count("<em>") == 1
    assert "<msub>" in html


def test_raw_html_is_escaped_not_rendered():
    html = render_markdown('hi <script>alert(1)</script>\n\n<div onclick="x">block</div>')
    assert "<script" not in html
    assert "&lt;script&gt;" in html
    assert "<div" not in html
    assert "onclick" not in html or "&lt;div onclick" in html


def test_html_inside_latex_text_stays_text():
    html = render_markdown("$\\text{<img src=x onerror=alert(1)>}$ and $a & b$")
    assert "<img" not in html
    assert "&lt;img" in html
    assert "&amp;" in html


def test_unsafe_urls_are_dropped():
    html = render_markdown("[x](javascript:alert(1)) [y](https://example.org/a) ![i](data:text/html;base64,xx)")
    assert "javascript:" not in html
    assert "data:" not in html
    assert 'href="https://example.org/a"' in html


def test_dollars_in_code_and_escaped_dollars_are_literal():
    html = render_markdown("`x = $a$` and \\$5\n\n```python\ny = '$b$'\n```")
    assert "<code>x = $a$</code>" in html
    assert "y = '$b$'" in html
    assert "&#36;5" in html
    assert "<math" not in html


def test_lone_dollar_is_text():
    assert "<math" not in render_markdown("costs $ 5 and $ 6")


def test_tables_and_lists_render():
    html = render_markdown("| a | b |\n|---|---|\n| $1$ | 2 |\n\n1. one\n2. two")
    assert "<table>" in html and "<ol>" in html and "<mn>1</mn>" in html


def test_empty_text():
    assert render_markdown("") == ""
    assert render_markdown(None) == ""


def test_mathml_is_well_formed_xml():
    for latex in ("a < b", "\\frac{QK^\\top}{\\sqrt{d_k}}", "\\begin{bmatrix}1 & 2\\\\3 & 4\\end{bmatrix}", "a & b"):
        ET.fromstring(math_to_mathml(latex))  # raises if not well formed


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.5, "0.5"),
        (3, "3"),
        ([0.54, 0.46], "[0.54,\\ 0.46]"),
        ([[1.0, 0.0], [0.23, 0.77]], "\\begin{bmatrix}1 & 0 \\\\ 0.23 & 0.77\\end{bmatrix}"),
        ((2, 4, 5, 16), "(2, 4, 5, 16)"),
        (float("-inf"), "-\\infty"),
    ],
)
def test_value_to_latex(value, expected):
    assert value_to_latex(value) == expected


def test_render_value_matrix_is_a_mathml_table():
    html = render_value([[1.0, 0.0], [0.23, 0.77]])
    assert "<mtable>" in html and "<mn>0.23</mn>" in html


def test_escaped_specials_inside_text_are_unescaped():
    html = render_markdown("$(B, T, \\text{block\\_size})$ and $\\text{50\\%}$")
    assert "block_size" in html and "50%" in html
    assert "\\_" not in html


def test_matrix_brackets_are_stretchy_fences_so_they_span_the_rows():
    html_out = str(math_to_mathml(r"\begin{bmatrix} 1 & 2 \\ 3 & 4 \end{bmatrix}"))
    assert '<mo stretchy="true" fence="true" form="prefix">[</mo>' in html_out
    assert '<mo stretchy="true" fence="true" form="postfix">]</mo>' in html_out
    assert 'stretchy="true"' not in str(math_to_mathml(r"[a, b]"))  # brackets in a row stay as they are


# --- soft line breaks in Chinese prose (issue 14: "加起来。 key 只负责") ---------------------------------


def _text(html: str) -> str:
    """What a browser shows: tags removed, a newline inside a paragraph shown as the space it renders as."""
    import re

    return re.sub(r"<[^>]+>", "", html).replace("\n", " ")


@pytest.mark.parametrize(
    ("source", "shown"),
    [
        ("加起来。\nkey 只负责", "加起来。key 只负责"),  # CJK punctuation before the break
        ("（点积），\n相似度", "（点积），相似度"),
        ("用权重\n对 value 求平均", "用权重对 value 求平均"),  # CJK on both sides
        ("the weights\nsum to one", "the weights sum to one"),  # Latin words keep their space
        ("**权重**\n相似度", "权重相似度"),  # across an inline element
        ("- 列表第一行\n  接着写", "列表第一行接着写"),
    ],
)
def test_soft_line_breaks_next_to_cjk_add_no_space(source, shown):
    assert _text(str(render_markdown(source))).strip() == shown


def test_line_breaks_inside_code_blocks_stay():
    html = str(render_markdown("```\n甲\n乙\n```"))
    assert "甲\n乙" in html


def test_hard_paragraph_breaks_stay_paragraphs():
    html = str(render_markdown("第一段。\n\n第二段。"))
    assert html.count("<p>") == 2


def test_primed_renderings_come_from_the_shared_cache_and_fill_it():
    """prime_markdown reads what another process rendered (the shared cache) and stores what it renders."""
    from django.core.cache import cache

    from quizzes.core import rendering

    text = "共享的渲染 $x_1$"
    rendering._RENDERED.pop(text, None)
    rendering.prime_markdown([text, None, ""])
    assert cache.get(rendering._shared_key(text)) == str(render_markdown(text))
    rendering._RENDERED.pop(text, None)
    cache.set(rendering._shared_key(text), "<p>from another process</p>")
    rendering.prime_markdown([text])
    assert render_markdown(text) == "<p>from another process</p>"
    rendering._RENDERED.pop(text, None)
