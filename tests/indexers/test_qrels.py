"""The BEIR reader shared by the quality gate and `docmill eval` (indexers/ranking/qrels.py)."""

import json

from indexers.ranking.qrels import read_qrels, read_queries


def test_qrels_keep_every_row_and_the_score_as_written(tmp_path):
    path = tmp_path / "test.tsv"
    path.write_text("query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t0\nq2\td3\t0.5\n\n", encoding="utf-8")
    qrels = read_qrels(path)
    assert qrels == {"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 0.5}}
    assert isinstance(qrels["q1"]["d1"], int) and isinstance(qrels["q2"]["d3"], float)


def test_queries_by_id_optionally_only_those_asked_for(tmp_path):
    path = tmp_path / "queries.jsonl"
    rows = [{"_id": 1, "text": "install"}, {"_id": "q2", "text": "evict"}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf-8")
    assert read_queries(path) == {"1": "install", "q2": "evict"}
    assert read_queries(path, only={"q2"}) == {"q2": "evict"}
