"""`docmill eval --k K` is honoured end to end: the cut-off of hit@k, MRR@k (question sets) and
nDCG@k, recall@k, MRR@k (BEIR sets), and the report's column names say it. On a tiny tree whose
BM25 ranking is known (a page that repeats the query term outranks the page that answers), k=1
and k=10 give different figures, each the right one."""

from __future__ import annotations

import json

import pytest

import docmill
from docmill.cli import main
from docmill.eval.runner import evaluate, format_table, load_beir

# "quartz" is in both pages; the decoy says it three times, so BM25 ranks it first.
TREE = {
    "decoy.md": "# Decoy\n\nQuartz quartz quartz. Minerals, shelves and a quartz clock.\n",
    "answer.md": "# Answer\n\nQuartz watches keep time with a vibrating crystal.\n",
    "other.md": "# Other\n\nBasalt columns form as lava cools slowly.\n",
}
QUESTIONS = [
    {"id": "second", "query": "quartz", "relevant": ["answer.md"]},  # BM25 rank 2
    {"id": "first", "query": "basalt columns lava", "relevant": ["other.md"]},  # BM25 rank 1
]


@pytest.fixture(scope="module")
def k_index(tmp_path_factory, embedder):
    from flows.pipeline import run_ingest

    root = tmp_path_factory.mktemp("k")
    tree = root / "tree"
    tree.mkdir()
    for name, text in TREE.items():
        (tree / name).write_text(text, encoding="utf-8")
    index = root / "idx"
    run_ingest([tree], index, embedder=embedder)
    questions = root / "q.jsonl"
    questions.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8")
    return index, questions


def _eval(k_index, capsys, *extra: str) -> str:
    index, questions = k_index
    argv = ["eval", "--queries", str(questions), "--index", str(index), "--modes", "bm25", *extra]
    assert main(argv) == 0
    return capsys.readouterr().out


def test_the_ranking_the_figures_rest_on(k_index, embedder):
    hits = docmill.open_index(k_index[0], embedder=embedder).search("quartz", mode="bm25", abstain=False)
    assert [h.chunk.path.split("/")[-1] for h in hits.hits][:2] == ["decoy.md", "answer.md"]


def test_k_1_and_k_10_give_different_correct_hit_figures(k_index, capsys):
    at1 = json.loads(_eval(k_index, capsys, "--k", "1", "--json"))
    at10 = json.loads(_eval(k_index, capsys, "--json"))  # the default stays 10
    assert at1["k"] == 1 and at10["k"] == 10
    one, ten = at1["modes"]["bm25"]["all"], at10["modes"]["bm25"]["all"]
    assert one["hit@1"] == 0.5 and one["mrr@1"] == 0.5  # the rank-2 answer is a miss at k=1
    assert "hit@5" not in one and "mrr@10" not in one and "hit@10" not in one
    assert ten["hit@1"] == 0.5 and ten["hit@5"] == 1.0 and ten["hit@10"] == 1.0
    assert ten["mrr@10"] == pytest.approx((1 / 2 + 1) / 2)


def test_the_text_report_names_the_k(k_index, capsys):
    header = _eval(k_index, capsys, "--k", "3").splitlines()[1]
    assert "| hit@1 | hit@3 | MRR@3 | hit@3 no abstain |" in header
    assert "MRR@10" not in header and "hit@5" not in header
    assert "| hit@1 | hit@5 | hit@10 | MRR@10 |" in _eval(k_index, capsys).splitlines()[1]


def test_a_k_below_one_is_refused(k_index, capsys):
    index, questions = k_index
    assert main(["eval", "--queries", str(questions), "--index", str(index), "--k", "0"]) == 1
    assert "--k must be at least 1" in capsys.readouterr().err


def test_beir_metrics_follow_k(tmp_path, k_index, embedder):
    root = tmp_path / "tiny"
    (root / "qrels").mkdir(parents=True)
    corpus = [{"_id": name, "title": "", "text": text} for name, text in TREE.items()]
    (root / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in corpus))
    (root / "queries.jsonl").write_text(json.dumps({"_id": "q", "text": "quartz"}) + "\n")
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq\tanswer.md\t1\n")
    data = load_beir(root, "test")
    from flows.pipeline import run_ingest

    run_ingest([data.corpus], tmp_path / "idx", embedder=embedder)
    index = docmill.open_index(tmp_path / "idx", embedder=embedder)
    one = evaluate(index, data, ("bm25",), k=1)["bm25"]
    ten = evaluate(index, data, ("bm25",))["bm25"]
    assert one["ndcg@1"] == 0.0 and one["recall@1"] == 0.0 and one["mrr@1"] == 0.0
    assert ten["recall@10"] == 1.0 and ten["mrr@10"] == 0.5
    assert ten["ndcg@10"] == pytest.approx(1 / 1.5849625, 1e-6)  # 1 / log2(3): rank 2
    report = {"dataset": "tiny", "split": "test", "queries": 1, "documents": 3, "k": 1}
    table = format_table({**report, "modes": {"bm25": one}})
    assert "| mode | nDCG@1 | Recall@1 | Recall@100 | MRR@1 |" in table
