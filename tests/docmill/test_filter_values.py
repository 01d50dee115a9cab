"""Filter values checked against what the build holds (issue 23): an unknown language or doc_id
is a clear error (CLI exit 1, HTTP 400), not "no hits"; a path glob matching nothing stays an
answer. Real builds, model, FAISS and uvicorn on 127.0.0.1."""

from __future__ import annotations

import httpx
import pytest

import docmill
from docmill.cli import main
from docmill.filters import FilterError


def test_an_unknown_language_is_an_error_listing_the_languages_the_build_holds(small_index, capsys):
    assert main(["query", str(small_index), "cache", "--filter", "language=py"]) == 1
    captured = capsys.readouterr()
    assert "unknown language 'py' in filter 'language'; this build holds: python" in captured.err
    assert "no hits" not in captured.out
    assert main(["query", str(small_index), "evict", "--filter", "language=python", "--no-abstain"]) == 0
    assert "LRUCache" in capsys.readouterr().out


def test_an_unknown_doc_id_is_an_error_with_near_names(small_index, capsys):
    assert main(["query", str(small_index), "install", "--filter", "doc_id=proj/guide/instal.md"]) == 1
    err = capsys.readouterr().err
    assert "unknown doc_id 'proj/guide/instal.md': not among this build's 3 documents" in err
    assert "did you mean: proj/guide/install.md" in err


def test_the_python_error_names_the_field_and_a_glob_matching_nothing_is_an_answer(small_index):
    index = docmill.open_index(small_index)
    with pytest.raises(FilterError) as caught:
        index.search("cache", filters={"language": ["python", "cobol"]})
    assert caught.value.field == "language" and "'cobol'" in str(caught.value)
    assert index.search("cache", filters={"path": "nowhere/*"}).hits == []


def test_the_server_answers_400_for_an_unknown_language(small_index, embedder, run_server):
    from docmill.live import LiveIndex
    from docmill.serve import create_app

    live = LiveIndex(small_index, embedder, check_interval=0)
    try:
        with run_server(create_app(live)) as url:
            got = httpx.get(f"{url}/search", params={"q": "cache", "filter": "language=rust"}, timeout=30)
            assert got.status_code == 400, got.text
            assert (
                "unknown language 'rust' in filter 'language'; this build holds: python"
                in got.json()["error"]
            )
            assert got.json()["field"] == "language"
            body = {"query": "cache", "filters": {"language": "rust"}}
            posted = httpx.post(f"{url}/search", json=body, timeout=30)
            assert posted.status_code == 400 and "unknown language 'rust'" in posted.json()["error"]
            assert posted.json()["field"] == "language"
    finally:
        live.close()
