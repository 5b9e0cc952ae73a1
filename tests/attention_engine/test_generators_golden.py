"""Golden digests: a change in what any template generates (or in numpy's streams) fails here."""

import json

from attention_engine.generators import Variant, generate, golden, names


def test_variants_match_the_golden_digests():
    expected = json.loads(golden.GOLDEN_PATH.read_text(encoding="utf-8"))
    problems = golden.differences(expected, golden.compute())
    assert not problems, "\n".join(problems) + f"\n({golden.HOW_TO_UPDATE})"


def test_golden_file_covers_every_template_for_five_seeds():
    expected = json.loads(golden.GOLDEN_PATH.read_text(encoding="utf-8"))
    assert sorted(expected) == names()
    assert all(sorted(entry["digests"]) == ["0", "1", "2", "3", "4"] for entry in expected.values())


def test_a_drift_is_reported_with_the_fix():
    actual = golden.compute(seeds=range(1))
    drifted = json.loads(json.dumps(actual))
    drifted["head_dimension"]["digests"]["0"] = "0" * 64
    drifted["kv_cache_savings"]["version"] = 0
    problems = golden.differences(drifted, actual)
    assert problems == [
        "head_dimension v1 seed 0: the variant changed; " + golden.HOW_TO_UPDATE,
        "kv_cache_savings: golden file has v0, the template is v1; run with --write",
    ]


def test_digest_ignores_the_last_bits_of_a_float_but_not_a_visible_change():
    v = generate("attention_output", 0)
    nudged = Variant.from_dict({**v.to_dict(), "answer": [a * (1 + 1e-13) for a in v.answer]})
    changed = Variant.from_dict({**v.to_dict(), "answer": [a + 1e-6 for a in v.answer]})
    assert golden.digest(nudged) == golden.digest(v) != golden.digest(changed)
