"""`docmill eval --queries` end to end on the small tree (real BM25 + MiniLM), with --report."""

import json

import pytest

from docmill.cli import main


def test_question_set_eval_scores_abstains_and_writes_a_report(small_index, tmp_path, capsys):
    questions = tmp_path / "q.jsonl"
    rows = [
        {
            "id": "d1",
            "query": "How do I install it on Linux?",
            "kind": "docs",
            "relevant": ["guide/install.md"],
        },
        {
            "id": "c1",
            "query": "which class evicts the least recently used entry",
            "kind": "code",
            "relevant": [{"path": "src/cache.py", "lines": [1, 40]}],
        },
    ]
    questions.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    offtopic = tmp_path / "off.txt"
    offtopic.write_text("How long should I boil an egg for a runny yolk\n", encoding="utf-8")
    report_dir = tmp_path / "report"
    argv = ["eval", "--queries", str(questions), "--offtopic", str(offtopic), "--index", str(small_index)]
    assert main([*argv, "--modes", "bm25,hybrid", "--json", "--report", str(report_dir)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["questions"] == 2 and out["offtopic"] == 1
    hybrid = out["modes"]["hybrid"]
    assert hybrid["docs"]["hit@1"] == 1.0 and hybrid["code"]["hit@5"] == 1.0
    assert hybrid["all"]["wrongly_abstained"] == 0.0 and hybrid["all"]["offtopic_abstained"] == 1.0
    # hybrid paired with BM25 on the two in-domain questions (the off-topic one is not ranked)
    compared = out["compare"]["hybrid-bm25"]
    assert set(compared) == {"hit@5", "mrr@10"} and compared["mrr@10"]["n"] == 2
    both = out["modes"]["bm25"]["all"]["mrr@10"], hybrid["all"]["mrr@10"]
    assert compared["mrr@10"]["difference"] == pytest.approx(both[1] - both[0])
    assert (report_dir / "scores.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (report_dir / "confidence.png").stat().st_size > 1000
    text = (report_dir / "report.md").read_text(encoding="utf-8")
    assert "| hybrid | docs | 1 |" in text and "confidence.png" in text
    assert "- hybrid - bm25 mrr@10: " in text
    records = [json.loads(line) for line in (report_dir / "records.jsonl").read_text().splitlines()]
    assert len(records) == 6 and all(0.0 <= r["confidence"] <= 1.0 for r in records)


def test_eval_without_a_tree_is_a_clear_error(tmp_path, capsys):
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"query": "x", "relevant": ["a.md"]}\n', encoding="utf-8")
    assert main(["eval", "--queries", str(questions)]) == 1
    assert "--docs DIR" in capsys.readouterr().err
