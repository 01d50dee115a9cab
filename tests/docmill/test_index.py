"""The query module end to end on a real index (real tokenizer, BM25, MiniLM and FAISS)."""

import re

import pytest

import docmill
from indexers.build.manifest import Manifest
from indexers.build.store import IndexStore


@pytest.fixture(scope="module")
def index(small_index, embedder):
    return docmill.open_index(small_index, embedder=embedder)


@pytest.mark.parametrize("mode", ["bm25", "vector", "hybrid"])
def test_each_mode_finds_the_linux_install_section(index, mode):
    result = index.search(
        "which folder does the installer place the daemon in, and does it register a systemd unit",
        k=3,
        mode=mode,
        abstain=False,
    )
    top = result.hits[0]
    assert top.chunk.path == "proj/guide/install.md"
    assert top.chunk.heading_path == ("Guide", "Install", "Linux")
    assert top.citation.startswith("proj/guide/install.md > Guide > Install > Linux (L")


def test_hybrid_hit_explains_both_retrievers(index):
    hit = index.search("orbital daemon installer", k=5, mode="hybrid", fusion="rrf").hits[0]
    explained = (
        r"vec#\d+\(\d\.\d\d\) bm25#\d+\(\d+\.\d\d\) rrf=0\.\d{4}( agree| exact:\S+)?( \+\d+ same place)?"
    )
    assert re.fullmatch(explained, hit.explain), hit.explain
    rank_v, rank_b = hit.ranks["vector"], hit.ranks["bm25"]
    k, w = index.fusion_rrf_k, index.fusion_weights  # calibrated for this corpus at build time
    assert hit.score == pytest.approx(w["vector"] / (k + rank_v) + w["bm25"] / (k + rank_b))
    equal = {"bm25": 1, "vector": 1}
    query = "orbital daemon installer"
    plain = index.search(query, k=5, mode="hybrid", rrf_k=60, weights=equal, fusion="rrf")
    top = plain.hits[0]
    assert top.score == pytest.approx(1 / (60 + top.ranks["vector"]) + 1 / (60 + top.ranks["bm25"]))
    assert hit.scores["bm25"] > 0 and -1 <= hit.scores["vector"] <= 1
    default = index.search("orbital daemon installer", k=5, mode="hybrid").hits[0]  # fusion "auto"
    assert re.fullmatch(explained.replace(r"rrf=0\.\d{4}", r"z=\d+\.\d{4}"), default.explain), default.explain


def test_code_search_finds_the_method_with_its_class(index):
    hit = index.search("evict oldest entry from LRU cache", k=3, mode="hybrid").hits[0]
    assert hit.chunk.kind == "code"
    assert hit.chunk.symbol == "LRUCache.evict_oldest"
    assert "class LRUCache" in hit.chunk.index_text
    assert hit.chunk.lines is not None


def test_table_chunk_is_searchable_with_its_header(index):
    hit = index.search("minimum Ubuntu version", k=3, mode="bm25").hits[0]
    assert hit.chunk.kind == "table"
    assert "| Platform | Minimum version | Notes |" in hit.chunk.text


def test_chinese_query_uses_bm25_and_says_the_vector_side_was_skipped(index):
    result = index.search("安装脚本", k=3, mode="hybrid")
    assert result.hits[0].chunk.path == "proj/guide/zh.md"
    assert any("vector side skipped" in note for note in result.notes)
    assert result.hits[0].ranks["vector"] is None


def test_filters_apply_before_the_cut(index):
    result = index.search("install", k=5, mode="hybrid", filters={"kind": "code"}, abstain=False)
    assert result.hits and all(h.chunk.kind == "code" for h in result.hits)
    everything = index.search("install", k=50, mode="vector", abstain=False, collapse="none")
    assert len(everything) == len(index)  # vector side returns every chunk when k allows


def test_abstains_on_nonsense_and_can_be_told_not_to(index):
    result = index.search("zzqx vorpal brillig", k=5)
    assert result.abstained and result.hits == [] and result.reason
    assert index.search("zzqx vorpal brillig", k=5, abstain=False).hits


def test_bad_arguments_raise_with_valid_values(index):
    with pytest.raises(ValueError, match="unknown mode 'hybird'; expected one of: bm25, vector, hybrid"):
        index.search("x", mode="hybird")
    with pytest.raises(ValueError, match="k and fetch_k must be positive"):
        index.search("x", k=0)
    assert index.search("   ").hits == []


def test_manifest_records_documents_and_skips(small_index):
    manifest = Manifest.read(IndexStore(small_index).current_build())
    by_path = {d.path: d for d in manifest.documents}
    assert by_path["proj/guide/install.md"].status == "indexed"
    assert by_path["proj/guide/install.md"].chunks >= 3
    assert by_path["proj/notes/broken.pdf"].status == "skipped"
    assert "not a PDF" in by_path["proj/notes/broken.pdf"].reason
    assert by_path["proj/notes/empty.md"].reason == "empty file"
    assert manifest.embedding == {
        "model": "all-MiniLM-L6-v2",
        "dim": 384,
        "normalized": True,
        "backend": "torch",
        "windows": {"version": 1, "width": 200},
    }
    assert manifest.tokenizer["name"] == "docmill-words"
    assert manifest.counts["chunks"] == sum(d.chunks for d in manifest.documents)
    segment = f"segments/{manifest.segments[0]['name']}"
    names = {"chunks.jsonl", "vectors.faiss", "embeddings.npy", "bm25/tf.npy", "window_vectors.npy"}
    assert set(manifest.files) >= {f"{segment}/{name}" for name in names}


def test_search_many_fuses_phrasings(index):
    single = index.search("evict least recently used entry", k=3, mode="bm25")
    many = index.search_many(["evict least recently used entry", "LRU cache capacity"], k=3, mode="bm25")
    assert many.hits[0].chunk.path == "proj/src/cache.py"
    assert re.fullmatch(r"(q\d#\d+ ?)+ rrf=0\.\d{4}", many.hits[0].explain), many.hits[0].explain
    assert {h.chunk.id for h in many.hits} & {h.chunk.id for h in single.hits}
    nothing = index.search_many(["zzqx vorpal", "brillig tove"], k=3)
    assert nothing.abstained and nothing.hits == [] and "every phrasing abstained" in nothing.reason


def test_search_many_with_filters_no_chunk_passes_says_so_and_does_not_abstain(index):
    none = index.search_many(["evict entry", "LRU cache"], k=3, filters={"path": "proj/nowhere/*"})
    assert none.hits == [] and not none.abstained and none.confidence is None
    assert none.reason == "no chunk matches the filters: path=proj/nowhere/*"


def test_concurrent_searches_from_threads_agree_with_serial_ones(index):
    from concurrent.futures import ThreadPoolExecutor

    queries = [
        "evict oldest entry",
        "install on linux",
        "minimum ubuntu version",
        "安装脚本",
        "systemd unit",
    ] * 4
    modes = ["bm25", "vector", "hybrid"]
    jobs = [(q, m) for q in queries for m in modes]
    serial = {(q, m): [h.chunk.id for h in index.search(q, k=5, mode=m, abstain=False)] for q, m in set(jobs)}
    with ThreadPoolExecutor(max_workers=8) as pool:
        parallel = list(
            pool.map(
                lambda job: [h.chunk.id for h in index.search(job[0], k=5, mode=job[1], abstain=False)], jobs
            )
        )
    assert parallel == [serial[job] for job in jobs]
