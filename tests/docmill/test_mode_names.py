"""The mode names are defined once (indexers.ranking.options.Mode): the server's validation, the
CLI, the search page and the evaluation read them from there."""

from __future__ import annotations

from typing import get_args

from indexers.ranking.options import Mode, SearchOptions


def test_every_face_accepts_exactly_the_modes_of_the_enum():
    from docmill import page, serve
    from docmill.cli import build_parser
    from docmill.eval.runner import ALL_MODES

    names = {m.value for m in Mode}
    assert set(get_args(serve.ModeName)) == names
    assert set(page.MODES) == names and page.MODES[0] == Mode.HYBRID
    assert set(ALL_MODES) == names
    eval_args = build_parser().parse_args(["eval", "--queries", "q.jsonl"])
    assert set(eval_args.modes.split(",")) == names


def test_search_options_check_their_values():
    import pytest

    assert SearchOptions(mode="bm25").mode is Mode.BM25
    assert SearchOptions(k=5, fetch_k=3, rerank=object(), rerank_k=20).depth == 20
    assert SearchOptions(k=5, fetch_k=3).candidates == 5
    with pytest.raises(ValueError, match="unknown mode 'fuzzy'"):
        SearchOptions(mode="fuzzy")
    with pytest.raises(ValueError, match="k and fetch_k must be positive"):
        SearchOptions(k=0)
    with pytest.raises(TypeError, match="colour"):
        SearchOptions.from_kwargs(colour="red")
