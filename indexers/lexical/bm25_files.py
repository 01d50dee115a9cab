"""The files of a BM25 folder (params.json, vocab.json, the .npy arrays): read back and checked for
format, version, type and shape, with BM25FormatError naming the file otherwise. Shared by
BM25Index (indexers/lexical/bm25.py) and the segments' postings (indexers/lexical/segment_files.py)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, overload

import numpy as np
import numpy.typing as npt

from indexers.build import json_bytes
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


class Vocabulary(Sequence[str]):
    """A folder's vocab.json opened (so a build pruned meanwhile stays readable) and parsed on
    first use: opening a large build does not pay for a dictionary of every term before its
    first query (~0.2 s at 1M chunks). Its length is params.json's ``n_terms``; what the file
    holds is checked when it is read (a JSON list of that many strings, else BM25FormatError)."""

    def __init__(self, path: Path, count: int) -> None:
        self.path, self.size = path, count
        try:
            self._file: Any = open(path, "rb")  # noqa: SIM115  (read and closed on first use)
        except FileNotFoundError as exc:
            raise BM25FormatError(f"BM25 index file missing: {path}") from exc
        self._terms: list[str] | None = None
        self._ids: dict[str, int] | None = None
        self._lock = threading.Lock()

    def terms(self) -> list[str]:
        found = self._terms
        if found is None:
            with self._lock:
                if self._terms is None:
                    self._terms = self._read()
                found = self._terms
        return found

    def ids(self) -> dict[str, int]:
        """term -> term id, made once."""
        found = self._ids
        if found is None:
            terms = self.terms()
            with self._lock:
                if self._ids is None:
                    self._ids = dict(zip(terms, range(len(terms)), strict=True))
                found = self._ids
        return found

    def _read(self) -> list[str]:
        try:
            data = self._file.read()
        finally:
            self._file.close()
        try:
            terms = json_bytes.loads(data)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise BM25FormatError(f"BM25 index file {self.path} is not valid JSON: {exc}") from exc
        if not isinstance(terms, list) or len(terms) != self.size:
            raise BM25FormatError(f"{self.path} must hold a JSON list of {self.size} terms")
        return terms

    def __len__(self) -> int:
        return self.size

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...
    def __getitem__(self, i: int | slice) -> str | list[str]:
        return self.terms()[i]

    def __iter__(self) -> Iterator[str]:
        return iter(self.terms())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Vocabulary | list):
            return self.terms() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


def read_folder(
    folder: Path,
    fmt: str,
    version: int,
    what: str,
    kinds: Mapping[str, str],
    mmap: bool,
    lazy_vocabulary: bool = False,
) -> tuple[dict[str, Any], Sequence[str], dict[str, npt.NDArray[Any]]]:
    """The params, vocabulary and arrays (``kinds``: array name -> dtype kind) of a folder in
    format ``fmt`` (BM25Index's, or a segment's: indexers.lexical.segment_files), each checked for its
    format, version and type; BM25FormatError naming the file otherwise. Shapes are the caller's.
    ``lazy_vocabulary``: vocab.json opened now, parsed on first use (Vocabulary), where params.json
    says how many terms it holds."""
    params = read_json(folder / PARAMS_FILE)
    if not isinstance(params, dict) or params.get("format") != fmt:
        raise BM25FormatError(f"{folder / PARAMS_FILE} is not a {fmt} params file")
    if params.get("format_version") != version:
        raise BM25FormatError(
            f"{folder} has {what} format version {params.get('format_version')!r}; "
            f"this docmill reads version {version}: rebuild the index"
        )
    count = params.get("n_terms")
    vocab: Sequence[str]
    if lazy_vocabulary and isinstance(count, int) and not isinstance(count, bool) and count >= 0:
        vocab = Vocabulary(folder / VOCAB_FILE, count)
    else:
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


def check_shapes(folder: Path, params: dict[str, Any], vocab: Sequence[Any], arrays: dict[str, Any]) -> None:
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
