"""The files of a BM25 folder (params.json, vocab.json, the .npy arrays): read back and checked for
format, version, type and shape, with BM25FormatError naming the file otherwise. Shared by
BM25Index (indexers/lexical/bm25.py) and the segments' postings (indexers/lexical/segment_files.py)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from indexers.build.files import BM25_PARAMS_FILE as PARAMS_FILE
from indexers.build.files import BM25_VOCAB_FILE as VOCAB_FILE


class BM25FormatError(ValueError):
    """A BM25 folder is missing, truncated or inconsistent; rebuild the index."""


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise BM25FormatError(f"BM25 index file missing: {path}") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BM25FormatError(f"BM25 index file {path} is not valid JSON: {exc}") from exc


def read_folder(
    folder: Path, fmt: str, version: int, what: str, kinds: Mapping[str, str], mmap: bool
) -> tuple[dict[str, Any], list[Any], dict[str, npt.NDArray[Any]]]:
    """The params, vocabulary and arrays (``kinds``: array name -> dtype kind) of a folder in
    format ``fmt`` (BM25Index's, or a segment's: indexers.lexical.segment_files), each checked for its
    format, version and type; BM25FormatError naming the file otherwise. Shapes are the caller's."""
    params = read_json(folder / PARAMS_FILE)
    if not isinstance(params, dict) or params.get("format") != fmt:
        raise BM25FormatError(f"{folder / PARAMS_FILE} is not a {fmt} params file")
    if params.get("format_version") != version:
        raise BM25FormatError(
            f"{folder} has {what} format version {params.get('format_version')!r}; "
            f"this docmill reads version {version}: rebuild the index"
        )
    vocab = read_json(folder / VOCAB_FILE)
    if not isinstance(vocab, list):
        raise BM25FormatError(f"{folder / VOCAB_FILE} must hold a JSON list of terms")
    arrays = {name: load_array(folder / f"{name}.npy", kind, mmap) for name, kind in kinds.items()}
    return params, vocab, arrays


def load_array(path: Path, kind: str, mmap: bool) -> npt.NDArray[Any]:
    try:
        array: npt.NDArray[Any] = np.load(path, mmap_mode="r" if mmap else None, allow_pickle=False)
    except FileNotFoundError as exc:
        raise BM25FormatError(f"BM25 index file missing: {path}") from exc
    except (ValueError, OSError, EOFError) as exc:
        raise BM25FormatError(f"BM25 index file {path} is truncated or not a .npy array: {exc}") from exc
    if array.ndim != 1 or array.dtype.kind != kind:
        raise BM25FormatError(
            f"{path}: expected a 1-d array of kind {kind!r}, got {array.dtype} {array.shape}"
        )
    return array


def check_shapes(folder: Path, params: dict[str, Any], vocab: list[Any], arrays: dict[str, Any]) -> None:
    problems = []
    if len(arrays["indptr"]) != len(vocab) + 1:
        problems.append(f"indptr has {len(arrays['indptr'])} entries for {len(vocab)} terms")
    elif int(arrays["indptr"][-1]) != len(arrays["data"]):
        problems.append(f"indptr ends at {int(arrays['indptr'][-1])} but data has {len(arrays['data'])}")
    if len(arrays["indices"]) != len(arrays["data"]):
        problems.append(f"indices has {len(arrays['indices'])} entries, data {len(arrays['data'])}")
    if len(arrays["doc_lengths"]) != params.get("n_docs"):
        problems.append(
            f"doc_lengths has {len(arrays['doc_lengths'])} entries, params n_docs={params.get('n_docs')}"
        )
    if problems:
        raise BM25FormatError(f"inconsistent BM25 index in {folder}: {'; '.join(problems)}")
