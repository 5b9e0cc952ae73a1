"""Golden digests: a change in what any version of any template generates (or in numpy's streams) fails here."""

import json

from attention_engine.generators import Variant, generate, golden, names, versions


def load() -> dict:
    return json.loads(golden.GOLDEN_PATH.read_text(encoding="utf-8"))


def test_variants_match_the_golden_digests():
    problems = golden.differences(load(), golden.compute())
    assert not problems, "\n".join(problems) + f"\n({golden.HOW_TO_UPDATE})"


def test_golden_file_covers_every_version_of_every_template_for_five_seeds():
    expected = load()
    assert sorted(expected) == names()
    for name, entry in expected.items():
        assert sorted(entry["versions"], key=int) == [str(v) for v in versions(name)]
        assert all(sorted(d) == ["0", "1", "2", "3", "4"] for d in entry["versions"].values())


def test_version_1_digests_are_the_ones_published_before_version_2():
    """Copied from the golden file as it was before any version 2 existed (one template's seeds shown):
    stored questions pinned to version 1 keep generating exactly these variants."""
    v1 = load()["attention_output"]["versions"]["1"]
    assert v1["0"] == "d5b881d76e7d8f6f449ec18f9af81ba92fa10f19697636daf9e9b4bb3b945dbf"
    assert load()["attention_matrix_memory"]["versions"]["1"]["0"] == (
        "128e812bfcf6f601eab15c42060aa204e5675dcb0ce2c1529dd81a03e929a0c0"
    )


def test_a_drift_is_reported_with_the_fix():
    actual = golden.compute(seeds=range(1))
    drifted = json.loads(json.dumps(actual))
    drifted["head_dimension"]["versions"]["1"]["0"] = "0" * 64
    del drifted["kv_cache_savings"]["versions"]["2"]
    drifted["rnn_gradient_decay"]["versions"]["9"] = {"0": "0" * 64}
    del drifted["bert_gpt_positions"]
    problems = golden.differences(drifted, actual)
    assert problems == [
        "bert_gpt_positions: not in the golden file yet; run with --write",
        "head_dimension v1 seed 0: the variant changed; " + golden.HOW_TO_UPDATE,
        "kv_cache_savings v2: not in the golden file yet; run with --write",
        "rnn_gradient_decay v9: in the golden file but the template no longer has this version; "
        "a published version must keep generating",
    ]


def test_write_adds_what_is_missing_and_never_rewrites_a_published_digest(tmp_path):
    path = tmp_path / "variants.json"
    recorded = json.loads(json.dumps(load()))
    recorded["head_dimension"]["versions"]["1"]["0"] = "0" * 64  # a drift of a published version
    del recorded["kv_cache_savings"]["versions"]["2"]  # a version not recorded yet
    path.write_text(json.dumps(recorded), encoding="utf-8")

    assert golden.main(["--write", "--path", str(path)]) == 1  # the drift is still reported
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written["head_dimension"]["versions"]["1"]["0"] == "0" * 64
    assert written["kv_cache_savings"]["versions"]["2"] == load()["kv_cache_savings"]["versions"]["2"]

    assert golden.main(["--write", "--force", "--path", str(path)]) == 0
    assert json.loads(path.read_text(encoding="utf-8")) == load()


def test_digest_ignores_the_last_bits_of_a_float_but_not_a_visible_change():
    v = generate("attention_output", 0)
    nudged = Variant.from_dict({**v.to_dict(), "answer": [a * (1 + 1e-13) for a in v.answer]})
    changed = Variant.from_dict({**v.to_dict(), "answer": [a + 1e-6 for a in v.answer]})
    assert golden.digest(nudged) == golden.digest(v) != golden.digest(changed)
