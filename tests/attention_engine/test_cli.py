"""`python -m attention_engine variant|list`: what an author types to inspect templates."""

import json
import subprocess
import sys
from pathlib import Path

from attention_engine import generators

REPO = Path(__file__).resolve().parents[2]


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "attention_engine", *args], capture_output=True, text=True, cwd=REPO, check=False
    )


def test_variant_prints_json_that_round_trips_to_the_same_variant():
    result = cli("variant", "attention_row_weights", "--seed", "5", "--param", "T=3", "--param", "is_causal=true")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["params"]["T"] == 3
    assert generators.Variant.from_dict(data) == generators.generate("attention_row_weights", 5, T=3, is_causal=True)


def test_variant_out_of_range_param_names_the_param_and_range():
    result = cli("variant", "attention_output", "--seed", "1", "--param", "T=9")
    assert result.returncode == 2
    assert "'T'" in result.stderr and "[2, 4]" in result.stderr


def test_unknown_template_is_an_error_listing_the_known_ones():
    result = cli("variant", "no_such_template", "--seed", "1")
    assert result.returncode == 2
    assert "kv_cache_savings" in result.stderr


def test_list_shows_every_template_with_its_params():
    result = cli("list")
    assert result.returncode == 0
    for name in generators.names():
        assert name in result.stdout
    assert "n_head" in result.stdout


def test_list_shows_every_version():
    lines = cli("list").stdout.splitlines()
    start = lines.index(next(line for line in lines if line.startswith("attention_matrix_memory ")))
    assert lines[start + 1].startswith("    v1: ") and "block_size" in lines[start + 1]
    assert lines[start + 2].startswith("    v2: ") and "tile_size" in lines[start + 2]
    assert lines[start + 3].startswith("    v3, newest: ") and "tile_size" in lines[start + 3]
    assert "example = none (numbers drawn from the seed), one of wo_chi" in "\n".join(lines)
    versions = sum(len(generators.versions(name)) for name in generators.names())
    assert sum(line.startswith("    v") for line in lines) == versions


def test_variant_at_a_version():
    result = cli(
        "variant",
        "attention_matrix_memory",
        "--seed",
        "2",
        "--version",
        "1",
        "--param",
        "block_size=64",
        "--param",
        "T=512",
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["version"] == 1 and data["given"]["block_size"] == 64
    newest = json.loads(cli("variant", "attention_output", "--seed", "2", "--param", "example=wo_chi").stdout)
    newest_version = max(generators.versions("attention_output"))
    assert newest["version"] == newest_version > 1 and newest["answer_format"]
    assert newest["params"]["example"] == "wo_chi"


def test_unknown_version_is_an_error_listing_the_known_ones():
    result = cli("variant", "attention_output", "--seed", "1", "--version", "9")
    assert result.returncode == 2 and "known versions: 1, 2" in result.stderr
