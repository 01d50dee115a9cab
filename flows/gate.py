"""Quality gate: before a build is published, score it and the current build on a golden query set
(nDCG@10 over document paths); a drop larger than the margin blocks the publish.

Golden sets come in two shapes:
- a ``.jsonl`` question file, the same rows ``docmill eval --queries`` reads (docmill/eval/questions.py):
  the text in ``query`` (or ``q``) and the answer's documents in ``expected_paths`` (paths),
  ``relevant`` (paths, or objects with a ``path``; the lines / pages / symbols they also name are
  finer than the gate scores) or ``file``; binary gains. A path matches a document path equal to it
  or ending in ``/`` + it. Rows that name no path (off-topic, ``"relevant": []``, or only
  ``symbols``) cannot be scored on document paths and are left out;
- a BEIR folder with ``queries.jsonl`` (``{"_id", "text"}``) and ``qrels/test.tsv``
  (``query-id  corpus-id  score``, header line), where corpus ids are document paths.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flows.outcomes import IngestError
from indexers.ranking.metrics import ndcg_at_k
from indexers.ranking.qrels import read_qrels, read_queries


class QualityGateFailed(IngestError):
    """The new build scored worse than the current one by more than the margin; not published."""


@dataclass(frozen=True)
class GoldenQuery:
    query: str
    gains: Mapping[str, float]  # document path -> relevance gain (> 0)


ANSWER_FIELDS = ("expected_paths", "relevant", "file", "symbols")


def golden_paths(row: Mapping[str, Any], where: str) -> list[str]:
    """The document paths a question-file row names as its answer (see the module docstring)."""
    if not any(key in row for key in ANSWER_FIELDS):
        raise ValueError(
            f"{where}: expected 'query' (or 'q') and one of {', '.join(ANSWER_FIELDS)}; got {sorted(row)}"
        )
    paths: list[str] = []
    for item in [*(row.get("expected_paths") or ()), *(row.get("relevant") or ())]:
        path = item if isinstance(item, str) else item.get("path") if isinstance(item, Mapping) else None
        if not isinstance(path, str):
            raise ValueError(f"{where}: a path must be a string or an object with a 'path', got {item!r}")
        paths.append(path)
    if isinstance(row.get("file"), str):
        paths.append(row["file"])
    return list(dict.fromkeys(p.removeprefix("./") for p in paths))


def load_golden(path: str | Path) -> list[GoldenQuery]:
    path = Path(path)
    if path.is_dir():
        return _load_beir(path)
    queries = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            row = json.loads(line)
            query = row.get("query", row.get("q"))
            if not isinstance(query, str) or not query.strip():
                raise ValueError(f"{path}:{number}: expected 'query' (or 'q') text, got {sorted(row)}")
            paths = golden_paths(row, f"{path}:{number}")
            if paths:
                queries.append(GoldenQuery(query, {p: 1.0 for p in paths}))
    if not queries:
        raise ValueError(f"{path} holds no golden queries that name a document path")
    return queries


def _gain_key(doc_path: str, gains: Mapping[str, float]) -> str:
    """The golden path ``doc_path`` stands for: itself, or a golden path it ends with."""
    if doc_path in gains:
        return doc_path
    return next((p for p in gains if doc_path.endswith("/" + p)), doc_path)


def _load_beir(folder: Path) -> list[GoldenQuery]:
    texts = read_queries(folder / "queries.jsonl")
    qrels_dir = folder / "qrels"
    qrels_file = (
        qrels_dir / "test.tsv" if (qrels_dir / "test.tsv").is_file() else min(qrels_dir.glob("*.tsv"))
    )
    gains: dict[str, dict[str, float]] = {}
    for qid, scores in read_qrels(qrels_file).items():
        relevant = {doc: float(score) for doc, score in scores.items() if float(score) > 0}
        if relevant:
            gains[qid] = relevant
    missing = sorted(set(gains) - set(texts))
    if missing:
        raise ValueError(f"{qrels_file} names queries not in queries.jsonl: {', '.join(missing[:5])}")
    return [GoldenQuery(texts[qid], g) for qid, g in sorted(gains.items())]


def mean_ndcg(ranker: Callable[[str], list[str]], queries: Sequence[GoldenQuery], k: int = 10) -> float:
    total = 0.0
    for q in queries:
        total += ndcg_at_k([_gain_key(p, q.gains) for p in ranker(q.query)], q.gains, k)
    return total / len(queries)


@dataclass(frozen=True)
class GateResult:
    new: float
    current: float | None
    margin: float
    queries: int
    new_build: str
    current_build: str | None
    k: int = 10

    @property
    def passed(self) -> bool:
        return self.current is None or self.current - self.new <= self.margin

    def message(self) -> str:
        current = "n/a" if self.current is None else f"{self.current:.4f}"
        verdict = "passed" if self.passed else "FAILED"
        return (
            f"quality gate {verdict}: nDCG@{self.k} new build {self.new_build} {self.new:.4f} vs current "
            f"{self.current_build} {current} on {self.queries} queries (margin {self.margin})"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "metric": f"ndcg@{self.k}",
            "new": round(self.new, 6),
            "current": None if self.current is None else round(self.current, 6),
            "margin": self.margin,
            "queries": self.queries,
            "new_build": self.new_build,
            "current_build": self.current_build,
            "passed": self.passed,
        }


def path_ranker(index: Any, k: int = 10, fetch_chunks: int = 50) -> Callable[[str], list[str]]:
    """Document paths in rank order from a HybridIndex (chunk hits deduplicated by path)."""

    def rank(query: str) -> list[str]:
        result = index.search(query, k=fetch_chunks, mode="hybrid", abstain=False)
        paths: list[str] = []
        for hit in result.hits:
            if hit.chunk.path not in paths:
                paths.append(hit.chunk.path)
        return paths[:k]

    return rank


# The gate searches each build with the query engine users get (docmill.index.HybridIndex, a layer
# above flows/). It is passed in by name, never imported here: the CLI and the Prefect flow hand
# the gate its searcher, so flows/ depends on a constructor (root, build, manifest, embedder) -> an
# object with .search() and .close(), not on the docmill package.
DEFAULT_SEARCHER = "docmill.index:HybridIndex"


def resolve_searcher(spec: str) -> Callable[..., Any]:
    """``"module:attribute"`` -> the searcher class the gate opens builds with."""
    module, _, attribute = spec.partition(":")
    if not module or not attribute:
        raise ValueError(f"gate searcher must be 'module:attribute', got {spec!r}")
    return getattr(importlib.import_module(module), attribute)


def evaluate_builds(
    store: Any, folder: Path, config: Any, embedder: Any = None, searcher: str = DEFAULT_SEARCHER
) -> GateResult:
    """Score the unpublished build ``folder`` and the current build of ``store`` on ``config.golden``."""
    HybridIndex = resolve_searcher(searcher)  # noqa: N806 (a class)
    from indexers.build.manifest import Manifest
    from indexers.build.store import NoIndex

    queries = load_golden(config.golden)
    embedder = embedder or config.embedder()
    new_index = HybridIndex(store.root, folder, Manifest.read(folder), embedder)
    try:
        new_score = mean_ndcg(path_ranker(new_index), queries)
    finally:
        new_index.close()
    current_score, current_name = None, None
    try:
        current = store.current_build()
    except NoIndex:
        current = None
    if current is not None:
        manifest = Manifest.read(current)
        current_name = current.name
        current_embedder = embedder if manifest.embedding.get("model") == embedder.model_name else None
        current_index = HybridIndex(store.root, current, manifest, current_embedder)
        try:
            current_score = mean_ndcg(path_ranker(current_index), queries)
        finally:
            current_index.close()
    return GateResult(new_score, current_score, config.gate_margin, len(queries), folder.name, current_name)
