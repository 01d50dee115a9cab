"""`docmill eval` on a tiny BEIR-format set written here (real ingest path, real model)."""

import json

import pytest

import docmill
from docmill.eval.runner import document_ranking, ensure_index, evaluate, format_table, load_beir

CORPUS = [
    {
        "_id": "d1",
        "title": "Volcanoes",
        "text": "Basaltic lava flows from shield volcanoes such as Mauna Loa.",
    },
    {"_id": "d2", "title": "Glaciers", "text": "Glaciers carve U-shaped valleys as the ice moves downhill."},
    {
        "_id": "d3",
        "title": "Coral reefs",
        "text": "Coral bleaching happens when warm water drives algae out of the coral.",
    },
]
QUERIES = [
    {"_id": "q1", "text": "which volcanoes produce basaltic lava"},
    {"_id": "q2", "text": "why does coral bleach in warm water"},
    {"_id": "q3", "text": "a query with no qrels is ignored"},
]


@pytest.fixture(scope="module")
def beir(tmp_path_factory):
    root = tmp_path_factory.mktemp("beir") / "tiny"
    (root / "qrels").mkdir(parents=True)
    (root / "corpus.jsonl").write_text("\n".join(json.dumps(r) for r in CORPUS) + "\n")
    (root / "queries.jsonl").write_text("\n".join(json.dumps(r) for r in QUERIES) + "\n")
    (root / "qrels" / "dev.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td3\t1\n")
    return root


def test_load_beir_keeps_only_judged_queries(beir):
    data = load_beir(beir, "dev")
    assert data.queries == {"q1": QUERIES[0]["text"], "q2": QUERIES[1]["text"]}
    assert data.qrels == {"q1": {"d1": 1}, "q2": {"d3": 1}}
    with pytest.raises(FileNotFoundError, match="qrels/test.tsv"):
        load_beir(beir, "test")


def test_eval_builds_once_and_scores_every_mode(beir, tmp_path, embedder):
    data = load_beir(beir, "dev")
    index_path = ensure_index(data, tmp_path / "cache", embedder=embedder)
    assert ensure_index(data, tmp_path / "cache", embedder=embedder) == index_path  # cached
    index = docmill.open_index(index_path, embedder=embedder)
    modes = evaluate(index, data, ("bm25", "vector", "hybrid"))
    for mode, m in modes.items():
        assert m["ndcg@10"] == pytest.approx(1.0), mode  # each query's document is unambiguous
        assert m["recall@100"] == 1.0 and m["mrr@10"] == 1.0 and m["abstained"] == 0.0
    table = format_table({"dataset": "tiny", "split": "dev", "queries": 2, "documents": 3, "modes": modes})
    assert "| hybrid | 1.0000 | 1.0000 | 1.0000 | 1.0000 | 0.0% |" in table


def test_document_ranking_keeps_best_chunk_rank():
    assert document_ranking(["a", "b", "a", "c", "b", "d"], depth=3) == ["a", "b", "c"]


def test_the_cli_pairs_hybrid_with_each_side(beir, tmp_path, capsys):
    """`docmill eval --beir`: the JSON carries hybrid against each side per query (real model)."""
    from docmill.cli import main

    argv = ["eval", "--beir", str(beir), "--split", "dev", "--cache", str(tmp_path / "cache")]
    assert main([*argv, "--modes", "bm25,vector,hybrid", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["compare"]) == {"hybrid-bm25", "hybrid-vector"}
    for pair, side in (("hybrid-bm25", "bm25"), ("hybrid-vector", "vector")):
        c = out["compare"][pair]["ndcg@10"]
        assert c["n"] == 2 and c["better"] + c["worse"] + c["same"] == 2
        want = out["modes"]["hybrid"]["ndcg@10"] - out["modes"][side]["ndcg@10"]
        assert c["difference"] == pytest.approx(want) and not c["distinguishable"]  # two queries
    assert main([*argv, "--modes", "hybrid"]) == 0
    assert "hybrid - " not in capsys.readouterr().out  # nothing to pair with
