"""`docmill eval`: index a BEIR-format corpus through the real ingest path and score retrieval.

Documents are scored at document level: a document's rank is its best chunk's rank. The built
index is cached under ``cache_dir`` by corpus hash + build configuration, so re-running an eval
only runs the queries.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from indexers.ranking.metrics import mrr_at_k, ndcg_at_k, percentile, recall_at_k
from indexers.ranking.options import Mode
from indexers.ranking.qrels import read_qrels, read_queries

ALL_MODES = tuple(m.value for m in Mode)  # bm25, vector, hybrid

DEFAULT_CACHE = Path(".docmill-cache") / "eval"


@dataclass(frozen=True)
class BeirSet:
    name: str
    corpus: Path
    queries: dict[str, str]
    qrels: dict[str, dict[str, int | float]]


def load_beir(folder: str | Path, split: str) -> BeirSet:
    """corpus.jsonl, queries.jsonl and qrels/SPLIT.tsv; only queries with a qrels entry are kept."""
    root = Path(folder)
    qrels_path = root / "qrels" / f"{split}.tsv"
    for path in (root / "corpus.jsonl", root / "queries.jsonl", qrels_path):
        if not path.is_file():
            raise FileNotFoundError(f"BEIR folder {root} has no {path.relative_to(root)}")
    qrels = read_qrels(qrels_path)
    queries = read_queries(root / "queries.jsonl", only=qrels)
    return BeirSet(root.name, root / "corpus.jsonl", queries, qrels)


def corpus_digest(corpus: Path) -> str:
    digest = hashlib.sha256()
    with open(corpus, "rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()[:12]


def ensure_index(dataset: BeirSet, cache_dir: Path, config: Any = None, embedder: Any = None) -> Path:
    """The eval index for this corpus and model, brought up to date through the real (incremental)
    ingest: a no-op when nothing changed; after a tokenizer, BM25 or chunking change only what
    changed is redone, and vectors of unchanged texts come from the index's embedding cache."""
    from flows.config import IngestConfig
    from flows.pipeline import run_ingest

    config = config or IngestConfig()
    index = cache_dir / f"{dataset.name}-{corpus_digest(dataset.corpus)}-{_model_slug(config)}"
    run_ingest([dataset.corpus], index, config, embedder=embedder)
    return index


def _model_slug(config: Any) -> str:
    slug = "".join(ch if ch.isalnum() else "-" for ch in config.model)[-40:]
    if getattr(config, "embedding_url", None):  # an endpoint's vectors: keyed by its URL too
        slug = f"{slug}-{hashlib.sha256(config.embedding_id.encode()).hexdigest()[:8]}"
    return slug + "-int8" if config.embedding_backend == "onnx-int8" else slug  # other vectors


def tree_index(docs: Path, cache_dir: Path, config: Any = None) -> Path:
    """The eval index of a source tree, kept current by the real incremental ingest (a no-op
    when nothing in the tree changed), cached by the tree's absolute path and the model."""
    from flows.config import IngestConfig
    from flows.pipeline import run_ingest

    if not docs.is_dir():
        raise FileNotFoundError(f"no folder {docs}")
    config = config or IngestConfig()
    where = hashlib.sha256(str(docs.resolve()).encode()).hexdigest()[:10]
    index = cache_dir / f"tree-{docs.resolve().name}-{where}-{_model_slug(config)}"
    run_ingest([docs], index, config)
    return index


@dataclass
class ModeResult:
    """Per-query scores of one mode at the cut-off ``k`` (``docmill eval --k``; recall@100 too)."""

    k: int = 10
    ndcg: list[float] = field(default_factory=list)
    recall: list[float] = field(default_factory=list)
    recall100: list[float] = field(default_factory=list)
    mrr: list[float] = field(default_factory=list)
    abstained: int = 0
    latencies_ms: list[float] = field(default_factory=list)

    def add(self, ranked: Sequence[str], qrels: Mapping[str, int | float]) -> None:
        self.ndcg.append(ndcg_at_k(ranked, qrels, self.k))
        self.recall.append(recall_at_k(ranked, qrels, self.k))
        self.recall100.append(recall_at_k(ranked, qrels, 100))
        self.mrr.append(mrr_at_k(ranked, qrels, self.k))

    def summary(self) -> dict[str, float]:
        n = max(len(self.ndcg), 1)
        return {
            f"ndcg@{self.k}": sum(self.ndcg) / n,
            f"recall@{self.k}": sum(self.recall) / n,
            "recall@100": sum(self.recall100) / n,
            f"mrr@{self.k}": sum(self.mrr) / n,
            "abstained": self.abstained / n,
            "p50_ms": percentile(self.latencies_ms, 50),
        }


def document_ranking(doc_ids: Sequence[str], depth: int = 100) -> list[str]:
    """Chunk-level doc ids in rank order -> distinct documents by their best chunk."""
    seen: dict[str, None] = {}
    for doc in doc_ids:
        seen.setdefault(doc, None)
        if len(seen) >= depth:
            break
    return list(seen)


def evaluate(
    index: Any, dataset: BeirSet, modes: Sequence[str] = ALL_MODES, **options: Any
) -> dict[str, dict[str, float]]:
    """nDCG@k, recall@k, recall@100 and MRR@k over documents (a document ranks at its best chunk);
    ``options`` as ``evaluate_per_query``'s."""
    return {m: r.summary() for m, r in evaluate_per_query(index, dataset, modes, **options).items()}


def evaluate_per_query(
    index: Any,
    dataset: BeirSet,
    modes: Sequence[str] = ALL_MODES,
    abstain: bool = False,
    chunk_depth: int = 300,
    search_options: Mapping[str, Any] | None = None,
    k: int = 10,
) -> dict[str, ModeResult]:
    """``evaluate`` with each mode's per-query scores kept (ModeResult), for paired comparisons
    (docmill.eval.compare)."""
    if k < 1:
        raise ValueError(f"--k must be at least 1, got {k}")
    results: dict[str, ModeResult] = {m: ModeResult(k=k) for m in modes}
    options = dict(search_options or {})
    depth = max(k, 100)
    chunk_depth = max(chunk_depth, 3 * depth)
    if modes and any(m != "bm25" for m in modes) and dataset.queries:
        index.search(next(iter(dataset.queries.values())), k=1, mode="vector")  # load the model off the clock
    for qid, text in dataset.queries.items():
        for mode in modes:
            started = time.perf_counter()
            result = index.search(
                text, k=chunk_depth, fetch_k=chunk_depth, mode=mode, abstain=abstain, **options
            )
            elapsed = (time.perf_counter() - started) * 1000
            r = results[mode]
            r.latencies_ms.append(elapsed)
            r.abstained += int(result.abstained)
            r.add(document_ranking([h.chunk.doc_id for h in result.hits], depth), dataset.qrels[qid])
    return results


def format_table(report: Mapping[str, Any]) -> str:
    k = report.get("k", 10)
    lines = [
        f"{report['dataset']} ({report['split']}): "
        f"{report['queries']} queries, {report['documents']} documents",
        f"| mode | nDCG@{k} | Recall@{k} | Recall@100 | MRR@{k} | abstained | p50 ms |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for mode, m in report["modes"].items():
        lines.append(
            f"| {mode} | {m[f'ndcg@{k}']:.4f} | {m[f'recall@{k}']:.4f} | {m['recall@100']:.4f} | "
            f"{m[f'mrr@{k}']:.4f} | {m['abstained']:.1%} | {m['p50_ms']:.1f} |"
        )
    return "\n".join(lines)


def evaluate_questions(
    index: Any,
    questions: Sequence[Any],
    modes: Sequence[str] = ALL_MODES,
    root: str = "",
    depth: int = 50,
    search_options: Mapping[str, Any] | None = None,
    k: int = 10,
) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """Each question searched as a user would (abstaining on), per mode: a summary per mode and
    question kind (docmill.eval.questions.Tally: hit@1, hit@5, hit@k, MRR@k), and one record per
    question and mode for reports (``rank``: the first relevant rank within ``k``)."""
    from docmill.eval.questions import Tally, covered, first_rank, tally_question

    if k < 1:
        raise ValueError(f"--k must be at least 1, got {k}")
    depth = max(depth, k)
    tallies: dict[str, dict[str, Tally]] = {m: {} for m in modes}
    records: list[dict[str, Any]] = []
    options = dict(search_options or {})
    for question in questions:
        for mode in modes:
            result = index.search(question.query, k=depth, fetch_k=max(depth, 100), mode=mode, **options)
            if result.abstained:  # what the hits would have been: scored separately
                shown = index.search(
                    question.query,
                    k=depth,
                    fetch_k=max(depth, 100),
                    mode=mode,
                    **{**options, "abstain": False},
                )
            else:
                shown = result
            also = [covered(h.chunk, h.siblings) for h in shown.hits]
            chunks = [h.chunk for h in shown.hits]
            rank = None if question.offtopic else first_rank(question, chunks, root, depth=k, also=also)
            tally_question(tallies[mode], question, rank, result.abstained, k=k)
            records.append(
                {
                    "id": question.id,
                    "mode": mode,
                    "kind": question.kind,
                    "offtopic": question.offtopic,
                    "rank": rank,
                    "abstained": result.abstained,
                    "reason": result.reason,
                    "confidence": result.confidence,
                }
            )
    summary = {m: {kind: t.summary() for kind, t in sorted(kinds.items())} for m, kinds in tallies.items()}
    return summary, records


def format_questions(report: Mapping[str, Any]) -> str:
    from docmill.eval.questions import cutoffs

    k = report.get("k", 10)
    hits = [f"hit@{c}" for c in cutoffs(k)]
    no_abstain = f"hit@{min(5, k)}_no_abstain"
    lines = [
        f"{report['questions_file']} ({report['half']}): {report['questions']} questions, "
        f"{report['offtopic']} off-topic; index {report['index']}",
        f"| mode | kind | n | {' | '.join(hits)} | MRR@{k} | {no_abstain.replace('_', ' ')} "
        "| wrongly abstained | off-topic abstained |",
        "|---|---|---:|" + "---:|" * (len(hits) + 4),
    ]
    for mode, kinds in report["modes"].items():
        for kind, m in kinds.items():

            def cell(key: str, fmt: str = "{:.3f}", m: Mapping[str, Any] = m) -> str:
                return fmt.format(m[key]) if key in m else "-"

            scores = " | ".join(cell(key) for key in [*hits, f"mrr@{k}", no_abstain])
            lines.append(
                f"| {mode} | {kind} | {m.get('questions', 0)} | {scores} | "
                f"{cell('wrongly_abstained', '{:.1%}')} | {cell('offtopic_abstained', '{:.1%}')} |"
            )
    return "\n".join(lines)
