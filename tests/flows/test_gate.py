"""Quality gate: nDCG@10 over document paths, golden-set formats, and a blocked publish."""

from __future__ import annotations

import json
import math

import pytest

from flows.config import IngestConfig
from flows.gate import GateResult, QualityGateFailed, load_golden
from flows.pipeline import run_ingest
from indexers.build.manifest import Manifest
from indexers.build.store import IndexStore
from indexers.ranking.metrics import ndcg_at_k


def test_ndcg_by_hand():
    # relevant a (gain 1) at rank 2, c (gain 1) at rank 3, of a three-item ranking; ideal: both on top
    dcg = 1 / math.log2(3) + 1 / math.log2(4)
    idcg = 1 / math.log2(2) + 1 / math.log2(3)
    assert ndcg_at_k(["b", "a", "c"], {"a": 1.0, "c": 1.0}) == pytest.approx(dcg / idcg)
    assert ndcg_at_k(["a", "a", "b"], {"a": 1.0}) == 1.0  # a duplicate path counts once
    assert ndcg_at_k(["b", "c"], {"a": 1.0}, k=10) == 0.0
    assert ndcg_at_k(["b", "a"], {"a": 1.0}, k=1) == 0.0


def test_golden_sets_in_both_formats(tmp_path):
    simple = tmp_path / "queries.jsonl"
    simple.write_text(json.dumps({"query": "install", "expected_paths": ["proj/a.md"]}) + "\n\n")
    assert [(q.query, dict(q.gains)) for q in load_golden(simple)] == [("install", {"proj/a.md": 1.0})]
    beir = tmp_path / "beir"
    (beir / "qrels").mkdir(parents=True)
    (beir / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "install"}) + "\n")
    (beir / "qrels/test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\tproj/a.md\t2\nq1\tproj/b.md\t0\n")
    assert [(q.query, dict(q.gains)) for q in load_golden(beir)] == [("install", {"proj/a.md": 2.0})]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"q": "x"}) + "\n")
    with pytest.raises(ValueError, match="bad.jsonl:1: expected"):
        load_golden(bad)


def test_gate_result_margin():
    assert GateResult(0.80, 0.85, 0.1, 3, "new", "cur").passed
    failed = GateResult(0.50, 0.85, 0.1, 3, "new", "cur")
    assert not failed.passed and "0.5000 vs current cur 0.8500" in failed.message()
    assert GateResult(0.1, None, 0.0, 3, "new", None).passed  # nothing to compare with


@pytest.mark.slow
def test_gate_blocks_a_worse_build_and_records_the_result(tree_copy, tmp_path, embedder):
    golden = tmp_path / "golden.jsonl"
    rows = [
        {"query": "evict the least recently used cache entry", "expected_paths": ["proj/src/cache.py"]},
        {"query": "LRU cache capacity", "expected_paths": ["proj/src/cache.py"]},
        {"query": "install on linux with the tarball", "expected_paths": ["proj/guide/install.md"]},
    ]
    golden.write_text("".join(json.dumps(r) + "\n" for r in rows))
    index = tmp_path / "idx"
    config = IngestConfig(golden=str(golden), gate_margin=0.05)
    first = run_ingest([tree_copy], index, config, embedder=embedder)
    assert first.gate["passed"] and first.gate["current"] is None and first.gate["new"] > 0.9
    good = IndexStore(index).current_build()
    (tree_copy / "src/cache.py").unlink()  # two of three queries lose their answer
    with pytest.raises(
        QualityGateFailed, match=r"quality gate FAILED: nDCG@10 new build .* vs current .*keeps serving"
    ):
        run_ingest([tree_copy], index, config, embedder=embedder)
    assert IndexStore(index).current_build() == good
    rejected = IndexStore(index).builds()[-1]
    result = Manifest.read(rejected).extra["quality_gate"]
    assert (
        not result["passed"]
        and result["current_build"] == good.name
        and result["new"] < result["current"] - 0.05
    )
