"""The torch-free query path: a new process embeds queries from the saved bundle (tokenizers +
ONNX Runtime) to the reference's vectors, and a bundle that does not reproduce itself is refused."""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
import sys

import numpy as np

from indexers.dense.embedder import Embedder, resolve_model, unknown_token_share
from indexers.dense.query_encoder import META, QueryEncoder, bundle_dir

QUERIES = [
    "How do I install Lumen on Linux?",
    "  LRU cache eviction  ",
    "what is BM25's k1 parameter?",
    "Ünïcödé Straße café",
    "在服务器上运行安装脚本",
    "token " * 400,  # past max_seq_length: truncated like sentence-transformers truncates
]
HEAVY = ("torch", "transformers", "sentence_transformers")


def _bundle(embedder) -> str:
    embedder.encode_query("docmill saves its query path after checking it")
    folder = bundle_dir(resolve_model(embedder.model_name), "onnx")
    assert (folder / META).is_file()
    return str(folder)


def test_a_new_process_embeds_queries_without_torch_to_the_reference_vectors(embedder):
    _bundle(embedder)
    script = f"""
import json, sys
from indexers.dense.embedder import Embedder, unknown_token_share
e = Embedder()
queries = {QUERIES!r}
vectors = [e.encode_query(q).tolist() for q in queries]
shares = [unknown_token_share(e.query_tokenizer(), [q]) for q in queries]
loaded = [m for m in {HEAVY!r} if m in sys.modules]
print(json.dumps({{"vectors": vectors, "shares": shares, "loaded": loaded}}))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["loaded"] == []
    reference = embedder._reference(QUERIES)  # SentenceTransformer.encode
    assert float(np.abs(np.asarray(result["vectors"]) - reference).max()) <= 1e-5
    assert result["shares"] == [unknown_token_share(embedder.tokenizer(), [q]) for q in QUERIES]
    assert result["shares"][4] > 0.3  # the Chinese query is mostly unknown words to this model


def test_a_bundle_that_does_not_reproduce_its_probe_is_refused(embedder, tmp_path, monkeypatch, caplog):
    source = _bundle(embedder)
    monkeypatch.setenv("DOCMILL_CACHE_DIR", str(tmp_path))
    model_path = resolve_model(embedder.model_name)
    target = bundle_dir(model_path, "onnx")
    shutil.copytree(source, target)
    assert QueryEncoder.find(model_path, "onnx") is not None
    meta = json.loads((target / META).read_text())
    meta["probe_vector"][0] += 1e-3
    (target / META).write_text(json.dumps(meta))
    with caplog.at_level(logging.WARNING, logger="indexers.dense.query_encoder"):
        assert QueryEncoder.find(model_path, "onnx") is None
    assert "reproduces its probe only to" in caplog.text
    fresh = Embedder()
    assert fresh._cold_encoder() is None  # so queries take the sentence-transformers path


def test_a_bundle_whose_onnx_export_is_gone_is_refused(embedder, tmp_path, monkeypatch, caplog):
    source = _bundle(embedder)
    monkeypatch.setenv("DOCMILL_CACHE_DIR", str(tmp_path))
    model_path = resolve_model(embedder.model_name)
    target = bundle_dir(model_path, "onnx")
    shutil.copytree(source, target)
    meta = json.loads((target / META).read_text())
    meta["onnx"] = str(tmp_path / "gone" / "model.onnx")
    (target / META).write_text(json.dumps(meta))
    with caplog.at_level(logging.WARNING, logger="indexers.dense.query_encoder"):
        assert QueryEncoder.find(model_path, "onnx") is None
    assert "is gone" in caplog.text


def test_no_bundle_for_another_model_folder(tmp_path):
    assert QueryEncoder.find(str(tmp_path), "onnx") is None
