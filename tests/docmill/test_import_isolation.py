"""`import docmill` and a BM25 query must not pull in the ingest side or the model stack."""

import json
import os
import subprocess
import sys
from pathlib import Path

HEAVY = ["prefect", "pdfplumber", "tree_sitter", "rapidocr", "sentence_transformers", "torch", "faiss"]
# faiss is part of the query path (loaded by open_index); the model stack and the ingest side are not.


def _modules_after(code: str, **env: str) -> dict:
    script = code + f"\nimport sys, json\nprint(json.dumps({{m: m in sys.modules for m in {HEAVY!r}}}))"
    out = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1", **env},
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_docmill_loads_nothing_heavy():
    loaded = _modules_after("import docmill\nfrom docmill import open_index, Hit, SearchResult")
    assert not any(loaded.values()), loaded


def test_bm25_query_loads_no_model_and_vector_query_loads_only_onnxruntime(small_index, embedder, tmp_path):
    bm25 = _modules_after(
        f"import docmill\nidx = docmill.open_index({str(small_index)!r})\n"
        "assert idx.search('install linux', mode='bm25').hits"
    )
    assert bm25["faiss"]
    assert not any(v for name, v in bm25.items() if name != "faiss"), bm25
    embedder.encode_query("install linux")  # the checked ONNX query path is saved for new processes
    vector_query = (
        f"import docmill\nidx = docmill.open_index({str(small_index)!r})\n"
        "assert idx.search('install linux', mode='vector').hits"
    )
    vec = _modules_after(vector_query)
    assert vec["faiss"] and not vec["sentence_transformers"] and not vec["torch"], vec
    assert not (vec["prefect"] or vec["pdfplumber"] or vec["tree_sitter"] or vec["rapidocr"]), vec
    # Without a saved query path (only the ONNX export cached) the model stack loads, as before.
    (tmp_path / "onnx").symlink_to(Path(os.environ["DOCMILL_CACHE_DIR"]) / "onnx")
    fallback = _modules_after(vector_query, DOCMILL_CACHE_DIR=str(tmp_path))
    assert fallback["sentence_transformers"] and fallback["faiss"] and not fallback["prefect"], fallback
