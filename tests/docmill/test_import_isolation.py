"""`import docmill` and a BM25 query must not pull in the ingest side or the model stack."""

import json
import os
import subprocess
import sys

HEAVY = ["prefect", "pdfplumber", "tree_sitter", "rapidocr", "sentence_transformers", "torch", "faiss"]
# faiss is part of the query path (loaded by open_index); the model stack and the ingest side are not.


def _modules_after(code: str) -> dict:
    script = code + f"\nimport sys, json\nprint(json.dumps({{m: m in sys.modules for m in {HEAVY!r}}}))"
    out = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_docmill_loads_nothing_heavy():
    loaded = _modules_after("import docmill\nfrom docmill import open_index, Hit, SearchResult")
    assert not any(loaded.values()), loaded


def test_bm25_query_loads_no_model_and_vector_query_loads_it(small_index):
    bm25 = _modules_after(
        f"import docmill\nidx = docmill.open_index({str(small_index)!r})\n"
        "assert idx.search('install linux', mode='bm25').hits"
    )
    assert bm25["faiss"]
    assert not any(v for name, v in bm25.items() if name != "faiss"), bm25
    vec = _modules_after(
        f"import docmill\nidx = docmill.open_index({str(small_index)!r})\n"
        "assert idx.search('install linux', mode='vector').hits"
    )
    assert vec["sentence_transformers"] and vec["faiss"]
    assert not (vec["prefect"] or vec["pdfplumber"] or vec["tree_sitter"] or vec["rapidocr"]), vec
