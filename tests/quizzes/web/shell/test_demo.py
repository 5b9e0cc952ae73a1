"""The d_k demo: the pure function's numbers, and the page/fragment that shows them."""

from __future__ import annotations

import numpy as np
import pytest
from django.urls import reverse

from quizzes.content import attention_demo as demo


def reference_weights(d_k: int, *, causal: bool, scaled: bool) -> np.ndarray:
    """The lesson's recipe, written out independently of attention_engine."""
    rng = np.random.default_rng(demo.SEED)
    q = rng.standard_normal((6, 64))[:, :d_k]
    k = rng.standard_normal((6, 64))[:, :d_k]
    scores = q @ k.T / (np.sqrt(d_k) if scaled else 1.0)
    if causal:
        scores = np.where(np.tril(np.ones((6, 6), dtype=bool)), scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("d_k", [1, 2, 8, 33, 64])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("scaled", [False, True])
def test_weights_match_the_recipe_and_rows_sum_to_one(d_k, causal, scaled):
    result = demo.demo_matrix(d_k=d_k, causal=causal, scaled=scaled)
    weights = np.array(result["weights"])
    assert weights.shape == (6, 6)
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(weights, reference_weights(d_k, causal=causal, scaled=scaled), atol=1e-12)
    np.testing.assert_allclose(result["row_max"], weights.max(axis=1))
    assert result["mean_max_weight"] == pytest.approx(weights.max(axis=1).mean())


def test_causal_mask_zeroes_the_upper_triangle():
    weights = np.array(demo.demo_matrix(d_k=16, causal=True, scaled=True)["weights"])
    assert np.all(weights[np.triu_indices(6, k=1)] == 0.0)
    assert weights[0, 0] == 1.0  # the first token can only look at itself


def test_the_learner_visible_claim_unscaled_rows_turn_one_hot_scaled_do_not():
    def mean_max(d_k, scaled):
        return reference_weights(d_k, causal=False, scaled=scaled).max(axis=1).mean()

    unscaled_1, unscaled_64 = mean_max(1, False), mean_max(64, False)
    scaled_1, scaled_64 = mean_max(1, True), mean_max(64, True)
    assert unscaled_64 - unscaled_1 > 0.5  # sharpening: towards one-hot
    assert unscaled_64 > 0.8
    assert abs(scaled_64 - scaled_1) < 0.2  # roughly flat
    assert scaled_64 < 0.5
    # and the function reports the same numbers
    assert demo.demo_matrix(d_k=64, causal=False, scaled=False)["mean_max_weight"] == pytest.approx(unscaled_64)
    assert demo.demo_matrix(d_k=64, causal=False, scaled=True)["mean_max_weight"] == pytest.approx(scaled_64)


def test_score_spread_grows_like_sqrt_d_k_only_without_scaling():
    unscaled = demo.demo_matrix(d_k=64, causal=False, scaled=False)["score_std"]
    scaled = demo.demo_matrix(d_k=64, causal=False, scaled=True)["score_std"]
    assert unscaled == pytest.approx(scaled * 8.0)
    assert 4.0 < unscaled < 12.0


@pytest.mark.parametrize("bad", [0, 65, -3, "abc", "", 2.5, True, None])
def test_out_of_range_d_k_is_a_value_error_with_a_message(bad):
    with pytest.raises(ValueError, match="d_k must be"):
        demo.demo_matrix(d_k=bad, causal=False, scaled=False)


def test_d_k_as_text_is_accepted():
    assert demo.demo_matrix(d_k=" 12 ", causal=False, scaled=False)["d_k"] == 12


# --- pages ---------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_plain_get_submit_on_the_lesson_page(client, sdpa_lesson):
    url = reverse("web:lesson_detail", args=["sdpa"])
    unscaled = client.get(url, {"demo": "1", "d_k": "64"}).content.decode()
    expected = demo.demo_matrix(d_k=64, causal=False, scaled=False)["mean_max_weight"]
    assert f"<strong>{expected:.2f}</strong>" in unscaled
    assert "Not scaled." in unscaled
    scaled = client.get(url, {"demo": "1", "d_k": "64", "scaled": "on", "causal": "on"}).content.decode()
    assert "Scaled by 1/√d_k." in scaled
    assert "Causal mask on." in scaled
    assert scaled.count('class="masked"') == 15  # the upper triangle of a 6×6 matrix


@pytest.mark.django_db
def test_defaults_without_a_query(client, sdpa_lesson):
    body = client.get(reverse("web:lesson_detail", args=["sdpa"])).content.decode()
    assert 'name="d_k" min="1" max="64" step="1" value="16"' in body
    assert "d_k = 16:" in body


@pytest.mark.django_db
def test_htmx_gets_just_the_matrix(client):
    response = client.get(reverse("web:attention_demo"), {"demo": "1", "d_k": "8"}, headers={"HX-Request": "true"})
    assert response.status_code == 200
    body = response.content.decode()
    assert "<html" not in body
    assert body.count("<tr>") == 7  # header + 6 query rows
    assert "d_k = 8:" in body


@pytest.mark.django_db
def test_the_demo_page_without_htmx_is_a_full_page(client):
    response = client.get(reverse("web:attention_demo"), {"d_k": "3"})
    assert response.status_code == 200
    assert "<html" in response.content.decode()
    assert 'hx-get="/demo/attention/"' in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("value", "message"),
    [("65", "d_k must be from 1 to 64."), ("0", "d_k must be from 1 to 64."), ("x", "d_k must be a whole number.")],
)
def test_bad_d_k_is_a_400_with_the_reason(client, sdpa_lesson, value, message):
    for url, headers in [
        (reverse("web:attention_demo"), {"HX-Request": "true"}),
        (reverse("web:attention_demo"), {}),
        (reverse("web:lesson_detail", args=["sdpa"]), {}),
    ]:
        response = client.get(url, {"demo": "1", "d_k": value}, headers=headers)
        assert response.status_code == 400
        assert message in response.content.decode()
