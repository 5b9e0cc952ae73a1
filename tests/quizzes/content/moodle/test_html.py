"""Moodle's texts ↔ our Markdown (quizzes.content.moodle.html): faithful both ways."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from django.conf import settings

from quizzes.content.moodle.html import join_rubric, media_in, split_rubric, to_html, to_markdown
from quizzes.content.reader import LessonYamlLoader


@pytest.mark.parametrize(
    ("html", "markdown"),
    [
        ("<p>One</p><p>Two<br>three</p>", "One\n\nTwo  \nthree"),
        ("<p><b>bold</b>, <strong>strong</strong>, <i>it</i>, <em>em</em></p>", "**bold**, **strong**, *it*, *em*"),
        ("<p>Call <code>np.sqrt(d_k)</code></p>", "Call `np.sqrt(d_k)`"),
        ("<pre><code class='language-python'>w = q @ k.T  # $x$\n</code></pre>", "```python\nw = q @ k.T  # $x$\n```"),
        ("<ul><li>a<ul><li>b</li></ul></li><li>c</li></ul>", "- a\n    - b\n- c"),
        ("<ol><li>first</li><li>second</li></ol>", "1. first\n2. second"),
        ("<p>d<sub>k</sub> and x<sup>2</sup></p>", "d$_{\\text{k}}$ and x$^{\\text{2}}$"),
        ("<p>&lt;b&gt; &amp; &eacute; &ndash; &#36;5</p>", "<b> & é – \\$5"),
        ("<p>\\(\\frac{a_i}{b}\\) and \\[x^2\\] and $$y$$</p>", "$\\frac{a_i}{b}$ and $$x^2$$ and $$y$$"),
        ("<p>a_b * c `d` [x](y)</p>", "a\\_b \\* c \\`d\\` \\[x](y)"),
        (
            "<p>1. not a list</p><p># not a heading</p><p>- not an item</p>",
            "1\\. not a list\n\n\\# not a heading\n\n\\- not an item",
        ),
        ('<p><a href="https://moodle.org/">Moodle</a></p>', "[Moodle](https://moodle.org/)"),
    ],
)
def test_html_becomes_markdown(html, markdown):
    assert to_markdown(html) == markdown


def test_cdata_and_other_formats():
    assert to_markdown("a < b\n\nc * d", "plain_text") == "a < b\n\nc \\* d"
    assert to_markdown("line one\nline two", "moodle_auto_format") == "line one  \nline two"
    assert to_markdown("**already** \\(x\\)", "markdown") == "**already** $x$"


def test_media_are_named():
    assert media_in('<p><img src="@@PLUGINFILE@@/a.png"></p><video src="v.mp4"></video>') == ["<img>", "<video>"]
    assert media_in('<a href="@@PLUGINFILE@@/notes.pdf">notes</a>') == ["@@PLUGINFILE@@"]
    assert media_in("<p>plain</p>") == []


def test_export_keeps_tex_for_mathjax_and_the_rubric_round_trips():
    assert (
        to_html("为什么除以 $\\sqrt{d_k}$？\n\n$$a<b$$") == "<p>为什么除以 \\(\\sqrt{d_k}\\)？</p>\n<p>\\[a&lt;b\\]</p>"
    )
    grader = join_rubric("参考答案：**方差**回到 1。", ["方差随 $d_k$ 增长", "softmax 不饱和"])
    assert split_rubric(grader) == ("参考答案：**方差**回到 1。", ["方差随 $d_k$ 增长", "softmax 不饱和"])
    assert split_rubric("<p>Just text.</p>") == ("Just text.", [])


def _lesson_texts() -> list[str]:
    texts = []
    for path in sorted((Path(settings.BASE_DIR) / "fixtures" / "lessons").glob("*.yaml")):
        for question in yaml.load(path.read_text(encoding="utf-8"), Loader=LessonYamlLoader)["questions"]:
            texts += [question.get(k) or "" for k in ("prompt", "explanation", "reference_answer")]
            texts += list(question.get("rubric") or [])
            texts += [o.get(k) or "" for o in question.get("options") or [] for k in ("text", "feedback")]
    return [text for text in texts if text]


def test_every_text_of_the_lesson_files_survives_a_trip_through_moodle():
    """Markdown → Moodle HTML → Markdown renders the same HTML, and a second trip changes nothing."""
    texts = _lesson_texts()
    assert len(texts) > 500
    for text in texts:
        html = to_html(text)
        back = to_markdown(html)
        assert to_html(back) == html, text
        assert to_markdown(to_html(back)) == back, text
