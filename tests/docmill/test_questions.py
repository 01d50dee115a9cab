"""Question sets (`docmill eval --queries`): loading the three shapes, splitting, and scoring by
page or by chunk, hand-checked."""

import json
from dataclasses import dataclass

import pytest

from docmill.eval.questions import Question, Relevant, Tally, first_rank, load_questions, select_half


@dataclass(frozen=True)
class C:
    path: str
    lines: tuple[int, int] | None = None
    pages: tuple[int, int] | None = None
    symbol: str | None = None


def test_loads_tree_pdf_code_and_offtopic_shapes(tmp_path):
    rows = [
        {"id": "a", "query": "page question", "kind": "docs", "relevant": ["guide/x.md"]},
        {
            "id": "b",
            "query": "code question",
            "kind": "code",
            "relevant": [{"path": "pkg/m.py", "lines": [10, 20], "symbol": "C.f"}],
        },
        {"q": "pdf question", "file": "r.pdf", "pages": [3]},
        {"q": "which function", "symbols": ["parse"]},
        {"id": "e", "query": "nothing answers", "relevant": []},
    ]
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    qs = load_questions(path)
    assert [q.kind for q in qs] == ["docs", "code", "", "", "offtopic"]
    assert qs[1].relevant[0] == Relevant("pkg/m.py", (10, 20), (), ("C.f",))
    assert qs[2].relevant[0].pages == (3,) and qs[3].relevant[0].symbols == ("parse",)
    assert qs[4].offtopic and not qs[0].offtopic
    off = tmp_path / "off.txt"
    off.write_text("one\n\ntwo\n", encoding="utf-8")
    assert [q.query for q in load_questions(off, offtopic=True)] == ["one", "two"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query": "no relevance"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="bad.jsonl:1"):
        load_questions(bad)


def test_page_questions_rank_distinct_pages_and_code_questions_rank_chunks():
    page = Question("p", "q", (Relevant("guide/x.md"),))
    hits = [C("docs/guide/a.md"), C("docs/guide/a.md"), C("docs/guide/b.md"), C("docs/guide/x.md")]
    assert first_rank(page, hits, root="docs") == 3  # a, b, x: the second a is the same page
    code = Question("c", "q", (Relevant("pkg/m.py", (10, 20), (), ("C.f",)),))
    chunks = [
        C("pkg/m.py", (1, 9), symbol="C"),
        C("pkg/m.py", (5, 30), symbol="C.g"),
        C("pkg/m.py", (10, 20), symbol="C.f"),
    ]
    assert first_rank(code, chunks) == 3  # the symbol decides where the chunk has one
    unnamed = Question("u", "q", (Relevant("pkg/m.py", (10, 20)),))
    assert first_rank(unnamed, [C("pkg/m.py", (21, 30)), C("pkg/m.py", (18, 25))]) == 2  # overlap
    pdf = Question("d", "q", (Relevant("r.pdf", None, (4,)),))
    assert first_rank(pdf, [C("docs/r.pdf", pages=(1, 3)), C("docs/r.pdf", pages=(3, 5))]) == 2
    assert first_rank(pdf, [C("docs/r.pdf", pages=(1, 3))] * 20) is None


def test_halves_are_stable_disjoint_and_complete():
    qs = [Question(f"q{i}", "x", (Relevant("a"),)) for i in range(200)]
    fit, held = select_half(qs, "fit"), select_half(list(reversed(qs)), "held")
    assert not {q.id for q in fit} & {q.id for q in held}
    assert len(fit) + len(held) == 200 and 70 < len(fit) < 130
    with pytest.raises(ValueError, match="unknown half"):
        select_half(qs, "test")


def test_tally_counts_an_abstained_answer_as_a_miss_but_keeps_its_rank():
    tally = Tally()
    tally.add(1, False)
    tally.add(2, True)
    tally.add(None, False)
    tally.add(7, False)
    s = tally.summary()
    assert s["hit@5"] == pytest.approx(1 / 4) and s["hit@5_no_abstain"] == pytest.approx(2 / 4)
    assert s["mrr@10"] == pytest.approx((1 + 1 / 7) / 4) and s["wrongly_abstained"] == 0.25
