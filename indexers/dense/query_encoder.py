"""Query embeddings for a cold process: the tokenizer (`tokenizers`) and the ONNX export run by ONNX
Runtime, without importing torch, transformers or sentence-transformers (~6 s of imports).

An Embedder that has checked its ONNX query path against sentence-transformers saves a *bundle*
under ``cache_dir()/query/<key>``: the Hugging Face tokenizer's own ``tokenizer.json``, the
settings sentence-transformers tokenizes with (max_seq_length, lower-casing, strip), the path of
the ONNX export and a probe vector. The key is made of the model folder (file names, sizes,
mtimes), the backend and the installed onnxruntime, tokenizers, torch and sentence-transformers
versions (read from package metadata, not by importing them), so a later process with the same
model and software finds it and anything else misses it. Loading runs the probe again and refuses
the bundle if its vector moved; the caller then takes the sentence-transformers path.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from indexers.dense.onnx_export import cache_dir

log = logging.getLogger(__name__)

BUNDLE_FORMAT = 1  # bump to invalidate saved bundles
PROBE_TOLERANCE = 1e-5
META, TOKENIZER = "meta.json", "tokenizer.json"
_VERSIONED = ("onnxruntime", "tokenizers", "torch", "sentence-transformers", "transformers")


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def bundle_dir(model_path: str, kind: str) -> Path:
    """Where the bundle for this model folder and query path kind ("onnx", "onnx-int8") lives."""
    folder = Path(model_path)
    stamp = (
        [(p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(folder.iterdir()) if p.is_file()]
        if folder.is_dir()
        else []
    )
    versions = [_version(p) for p in _VERSIONED]
    digest = hashlib.sha256(json.dumps([str(folder), stamp, kind, versions, BUNDLE_FORMAT]).encode())
    return cache_dir() / "query" / digest.hexdigest()[:16]


def save_bundle(
    model: Any, model_path: str, kind: str, onnx_path: Path, probe: str, vector: np.ndarray
) -> Path:
    """Write the bundle of a SentenceTransformer ``model`` whose ONNX query path (``onnx_path``)
    was checked; ``vector`` is that path's embedding of ``probe``. Atomic: a folder is renamed
    into place, so a reader sees a whole bundle or none."""
    target = bundle_dir(model_path, kind)
    if (target / META).is_file():
        return target
    transformer = list(model)[0]
    meta = {
        "format": BUNDLE_FORMAT,
        "kind": kind,
        "onnx": str(onnx_path),
        "max_seq_length": int(model.max_seq_length),
        "do_lower_case": bool(getattr(transformer, "do_lower_case", False)),
        "unk_token_id": model.tokenizer.unk_token_id,
        "probe": probe,
        "probe_vector": [float(x) for x in vector],
    }
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / TOKENIZER).write_text(model.tokenizer.backend_tokenizer.to_str(), encoding="utf-8")
    (tmp / META).write_text(json.dumps(meta), encoding="utf-8")
    try:
        os.rename(tmp, target)
    except OSError:  # another process saved it first
        for name in (TOKENIZER, META):
            (tmp / name).unlink(missing_ok=True)
        tmp.rmdir()
    return target


class QueryEncoder:
    """One query -> its L2-normalised vector, as the Embedder's ONNX path computes it. Thread-safe."""

    def __init__(self, folder: Path, threads: int = 1) -> None:
        from tokenizers import Tokenizer

        self.meta = json.loads((folder / META).read_text(encoding="utf-8"))
        if self.meta.get("format") != BUNDLE_FORMAT:
            raise ValueError(f"query bundle {folder} has format {self.meta.get('format')!r}")
        spec = (folder / TOKENIZER).read_text(encoding="utf-8")
        # Two tokenizers, because truncation is a setting of the object: queries as
        # sentence-transformers feeds them, and the unknown-token count as unknown_token_share does.
        self._query_tokenizer = Tokenizer.from_str(spec)
        self._query_tokenizer.no_padding()
        self._query_tokenizer.enable_truncation(int(self.meta["max_seq_length"]))
        self._plain_tokenizer = Tokenizer.from_str(spec)
        self._plain_tokenizer.no_padding()
        self._plain_tokenizer.enable_truncation(512)
        self._lock = threading.Lock()
        self.unk_token_id = self.meta["unk_token_id"]
        self._session = _session(Path(self.meta["onnx"]), threads)
        self._inputs = {i.name for i in self._session.get_inputs()}
        expected = np.asarray(self.meta["probe_vector"], dtype=np.float32)
        drift = float(np.abs(self.encode(self.meta["probe"]) - expected).max())
        if drift > PROBE_TOLERANCE:
            raise ValueError(f"query bundle {folder} reproduces its probe only to {drift:.2e}")

    @classmethod
    def find(cls, model_path: str, kind: str, threads: int = 1) -> QueryEncoder | None:
        """The saved bundle for this model and kind, or None (missing or failing its probe: logged)."""
        folder = bundle_dir(model_path, kind)
        if not (folder / META).is_file():
            return None
        try:
            return cls(folder, threads)
        except (ImportError, OSError, ValueError, KeyError, RuntimeError) as exc:
            log.warning("query bundle %s not used (%s); using sentence-transformers", folder, exc)
            return None

    def encode(self, text: str) -> np.ndarray:
        if self.meta["do_lower_case"]:
            text = text.lower()
        with self._lock:
            encoding = self._query_tokenizer.encode(text.strip())  # sentence-transformers strips
        feed = {
            "input_ids": np.asarray([encoding.ids], dtype=np.int64),
            "attention_mask": np.asarray([encoding.attention_mask], dtype=np.int64),
            "token_type_ids": np.asarray([encoding.type_ids], dtype=np.int64),
        }
        hidden = self._session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0]
        mask = feed["attention_mask"][..., None].astype(np.float32)
        pooled = (hidden.astype(np.float32) * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
        vector = pooled[0] / max(float(np.linalg.norm(pooled[0])), 1e-12)
        return np.ascontiguousarray(vector, dtype=np.float32)

    def __call__(self, text: str, **_: Any) -> dict[str, list[int]]:
        """Stands in for the Hugging Face tokenizer in ``unknown_token_share`` (no special tokens,
        truncated at 512)."""
        with self._lock:
            ids = self._plain_tokenizer.encode(text, add_special_tokens=False).ids
        return {"input_ids": list(ids)}


def _session(path: Path, threads: int) -> Any:
    import onnxruntime as ort

    if not path.is_file():
        raise FileNotFoundError(f"ONNX export {path} is gone")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
