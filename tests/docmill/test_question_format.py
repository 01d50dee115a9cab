"""One question-file format: `docmill eval --queries` and the ingest quality gate (`--golden`) read
the same JSONL rows, and `docmill eval --help` documents them; every eval flag has help text."""

from __future__ import annotations

import argparse
import json

import pytest

from docmill.cli import main
from docmill.cli.parser import build_parser
from docmill.eval.questions import load_questions
from flows.gate import load_golden, mean_ndcg

ROWS = [
    {"query": "install on linux", "expected_paths": ["proj/guide/install.md"]},  # the README's --golden
    {"id": "d1", "query": "How do I install it on Linux?", "relevant": ["guide/install.md"]},
    {"id": "c1", "q": "evict the oldest entry", "relevant": [{"path": "src/cache.py", "lines": [1, 40]}]},
    {"q": "a page of a report", "file": "r.pdf", "pages": [3]},
    {"q": "which class caches", "symbols": ["LRUCache"]},
    {"id": "o1", "query": "how long to boil an egg", "relevant": []},
]


@pytest.fixture
def question_file(tmp_path):
    path = tmp_path / "questions.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return path


def test_eval_and_the_gate_read_the_same_rows(question_file):
    questions = load_questions(question_file)
    assert [q.query for q in questions][:2] == ["install on linux", "How do I install it on Linux?"]
    assert questions[0].relevant[0].path == "proj/guide/install.md" and not questions[0].offtopic
    assert questions[-1].offtopic
    golden = load_golden(question_file)  # rows naming no path (symbols only, off-topic) are left out
    assert [(g.query, sorted(g.gains)) for g in golden] == [
        ("install on linux", ["proj/guide/install.md"]),
        ("How do I install it on Linux?", ["guide/install.md"]),
        ("evict the oldest entry", ["src/cache.py"]),
        ("a page of a report", ["r.pdf"]),
    ]


def test_the_gate_matches_a_relative_path_as_eval_does(tmp_path):
    path = tmp_path / "g.jsonl"
    path.write_text(json.dumps({"query": "x", "relevant": ["guide/install.md"]}) + "\n", encoding="utf-8")
    golden = load_golden(path)
    assert mean_ndcg(lambda q: ["proj/other.md", "proj/guide/install.md"], golden) == pytest.approx(
        0.6309, 1e-3
    )
    assert mean_ndcg(lambda q: ["proj/xguide/install.md"], golden) == 0.0


def test_a_row_naming_no_answer_is_refused_by_both_with_the_fields_to_use(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"query": "x", "answer": "a.md"}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.jsonl:1: .*expected_paths"):
        load_questions(bad)
    with pytest.raises(ValueError, match=r"bad.jsonl:1: .*expected_paths"):
        load_golden(bad)


def test_eval_queries_accepts_the_golden_format_end_to_end(small_index, tmp_path, capsys):
    golden = tmp_path / "golden.jsonl"
    golden.write_text(
        json.dumps({"query": "How do I install it on Linux?", "expected_paths": ["guide/install.md"]}) + "\n",
        encoding="utf-8",
    )
    assert (
        main(["eval", "--queries", str(golden), "--index", str(small_index), "--modes", "bm25", "--json"])
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["questions"] == 1 and out["modes"]["bm25"]["all"]["hit@1"] == 1.0


def _eval_parser() -> argparse.ArgumentParser:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices["eval"]


def test_every_eval_flag_has_help_and_the_help_lists_the_question_fields():
    parser = _eval_parser()
    bare = [a.option_strings for a in parser._actions if a.option_strings and not a.help]
    assert bare == []
    text = parser.format_help()
    for field in ("expected_paths", "relevant", "query (or q)", "symbols", "pages", "--golden"):
        assert field in text
    k_help = next(a.help for a in parser._actions if "--k" in a.option_strings)
    assert "fixed at 10" not in k_help and "ignored" not in k_help and "MRR@k" in k_help
