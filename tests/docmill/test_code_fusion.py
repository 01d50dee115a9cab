"""Code corpora: the BM25 side of the fusion is weighted per query by how much of the question
its top hit covers (indexers/calibrate.py code prior, docmill/index.py), with real BM25 and MiniLM."""

import pytest

import docmill

FUNCTIONS = {
    "geometry.py": [
        (
            "polygon_area",
            "points",
            "total = 0.0\n    for (x1, y1), (x2, y2) in zip(points, points[1:] + points[:1]):\n"
            "        total += x1 * y2 - x2 * y1\n    return abs(total) / 2",
        ),
        (
            "centroid",
            "points",
            "xs = [p[0] for p in points]\n    ys = [p[1] for p in points]\n"
            "    return sum(xs) / len(xs), sum(ys) / len(ys)",
        ),
    ],
    "textutil.py": [
        (
            "slugify_title",
            "title",
            "cleaned = re.sub(r'[^a-z0-9]+', '-', title.lower())\n    return cleaned.strip('-')",
        ),
        ("count_vowels", "text", "return sum(1 for ch in text.lower() if ch in 'aeiou')"),
    ],
    "netio.py": [
        (
            "retry_fetch",
            "url, attempts",
            "for attempt in range(attempts):\n        try:\n            return urlopen(url).read()\n"
            "        except OSError:\n            time.sleep(2 ** attempt)\n    raise TimeoutError(url)",
        ),
        (
            "parse_header_line",
            "line",
            "key, _, value = line.partition(':')\n    return key.strip().lower(), value.strip()",
        ),
    ],
}


@pytest.fixture(scope="module")
def code_index(tmp_path_factory, embedder):
    from flows.pipeline import run_ingest

    src = tmp_path_factory.mktemp("code") / "repo"
    src.mkdir()
    for name, functions in FUNCTIONS.items():
        body = "import re\nimport time\nfrom urllib.request import urlopen\n\n\n"
        for fn, args, code in functions:
            body += f"def {fn}({args}):\n    {code}\n\n\n"
        (src / name).write_text(body, encoding="utf-8")
    (src / "tests").mkdir()
    (src / "tests" / "test_textutil.py").write_text(
        "from textutil import slugify_title\n\n\n"
        "def test_slugify_title_lowercases_and_joins_words():\n"
        "    assert slugify_title('Slugify Title') == 'slugify-title'\n"
        "    assert slugify_title('  A  title ') == 'a-title'\n",
        encoding="utf-8",
    )
    index = tmp_path_factory.mktemp("idx") / "idx"
    run_ingest([src], index, embedder=embedder)
    return docmill.open_index(index, embedder=embedder)


def test_a_code_tree_stores_the_per_query_bm25_weight(code_index):
    fusion = code_index.manifest.extra["fusion"]
    assert fusion["method"] == "code-prior"
    assert code_index.fusion_coverage_power == 4.0 and code_index.fusion_rrf_k == 10.0


def test_a_question_naming_the_identifiers_keeps_bm25_in_the_fusion(code_index):
    result = code_index.search("slugify title", k=3, abstain=False)
    note = next(n for n in result.notes if n.startswith("BM25 weight"))
    assert "coverage of its top hit 1.00" in note
    hit = result.hits[0]
    assert hit.chunk.symbol_path.endswith("textutil.py::slugify_title")
    # the fused score is RRF with the per-query weight (here the full stored weight, coverage 1)
    expected = 1 / (10 + hit.ranks["vector"]) + 1.0 / (10 + hit.ranks["bm25"])
    assert hit.score == pytest.approx(expected)


def test_a_question_in_words_the_code_lacks_leaves_ranking_to_the_vector_side(code_index):
    query = "compute the surface enclosed by a shape"
    hybrid = code_index.search(query, k=6, abstain=False)
    vector = code_index.search(query, k=6, mode="vector", abstain=False)
    note = next(n for n in hybrid.notes if n.startswith("BM25 weight"))
    weight = float(note.split()[2])
    assert weight < 0.2, note
    # a BM25 weight that small cannot outvote one vector rank step at k=10
    assert [h.chunk.id for h in hybrid.hits[:3]] == [h.chunk.id for h in vector.hits[:3]]


def test_explicit_weights_are_used_as_given(code_index):
    result = code_index.search("slugify title", k=3, weights={"bm25": 1.0, "vector": 1.0}, abstain=False)
    assert not any(n.startswith("BM25 weight") for n in result.notes)


def test_code_from_test_files_is_demoted_in_hybrid_search(code_index):
    query = "slugify title lowercases"
    demoted = code_index.search(query, k=8, abstain=False)
    plain = code_index.search(query, k=8, abstain=False, test_code_weight=1.0)
    test_hit = next(h for h in demoted.hits if h.chunk.path.endswith("tests/test_textutil.py"))
    same = next(h for h in plain.hits if h.chunk.id == test_hit.chunk.id)
    assert test_hit.explain.endswith("test-code x0.8")
    assert test_hit.score == pytest.approx(0.8 * same.score)
    assert "test-code" not in same.explain
    scores = [h.score for h in demoted.hits]
    assert scores == sorted(scores, reverse=True)
    assert demoted.hits[0].chunk.symbol == "slugify_title"
