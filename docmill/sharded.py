"""Search over a sharded index root (indexers.build.shards): ``open_index(ROOT)`` returns a
ShardedIndex when ROOT holds a root manifest.

A query is three fan-outs to the shards (each a docmill.shard_host.ShardSearcher, in this process
or in a Dask actor on a cluster worker):

1. ``statistics``: each shard's live documents, tokens and the df of the query's terms. Summed,
   they are the corpus's statistics (as segments' are summed inside one build).
2. ``search``: each shard's BM25 top ``fetch_k`` scored with those statistics (the same scores as
   one index over the whole corpus) and its vector top ``fetch_k`` (exact cosines with flat
   vectors). The coordinator merges each side by score, then ranks as HybridIndex does: abstain on
   the corpus evidence, RRF with the calibrated weights, test-code demotion, kind floor.
3. ``chunks``: the final hits' chunks. A search answer carries the chunks of each side's first
   ``k`` rows of its shard, which holds every hit of a one-sided search and nearly every fused
   one; this round runs only for the others.

A shard that raises, or does not answer a round within ``timeout`` seconds, is left out: the result is marked
``partial`` and names the shards that answered (``ShardedResult.shards``). A remote shard whose
calls fail is re-created on the cluster in the background (on a surviving or restarted worker).
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docmill import filters as filtering
from docmill.hits import Hit, SearchResult, explain
from docmill.index import TEST_CODE_WEIGHT, Mode
from docmill.rerank import rerank_or_fused
from docmill.shard_clients import LocalShard, RemoteShard, ShardStarting
from docmill.shard_host import ShardSearcher
from indexers.build.shards import RootManifest, ShardsError
from indexers.dense.embedder import (
    MAX_QUERY_UNKNOWN_SHARE,
    Embedder,
    model_can_read,
    query_vector,
    unknown_token_share,
)
from indexers.lexical.segmented import CorpusStats
from indexers.lexical.tokenize import Tokenizer
from indexers.ranking.abstain import AbstainModel, known_idf_share
from indexers.ranking.collapse import DEFAULT_POLICY as DEFAULT_COLLAPSE
from indexers.ranking.collapse import check_policy
from indexers.ranking.collapse import collapse as collapse_places
from indexers.ranking.fusion import Fused, rrf

ROW_BITS = 40  # a corpus row: shard index << ROW_BITS | the shard's row
AGREE = ("model", "backend", "tokenizer", "bm25")


@dataclass(frozen=True)
class ShardedResult(SearchResult):
    """A SearchResult plus, per shard, "ok" or why it did not answer (then ``partial``)."""

    shards: dict[str, str] = field(default_factory=dict)

    @property
    def partial(self) -> bool:
        return any(status != "ok" for status in self.shards.values())

    @property
    def answered(self) -> list[str]:
        return [name for name, status in self.shards.items() if status == "ok"]

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "partial": self.partial, "shards": dict(self.shards)}


# candidates fetched per hit asked for when hits are collapsed into places
COLLAPSE_DEPTH = 4


class ShardedIndex:
    """The shards of a root searched as one corpus (see the module docstring). ``timeout``: the
    default longest wait, in seconds, of each of a search's rounds for the shards (None: wait for
    every shard); a shard that misses a round is left out of the later ones."""

    def __init__(
        self,
        root: Path,
        shards: Mapping[str, LocalShard | RemoteShard],
        embedder: Embedder | None = None,
        timeout: float | None = None,
        pool: ThreadPoolExecutor | None = None,
    ) -> None:
        self.root, self.shards, self.timeout, self._pool = root, dict(shards), timeout, pool
        self.names = list(self.shards)
        infos, failed = self._fan("info", {name: () for name in self.names}, None)
        if failed:
            raise ShardsError(f"shards of {root} did not open: {failed}")
        for key in AGREE:
            values = {name: info[key] for name, info in infos.items()}
            if len({repr(v) for v in values.values()}) > 1:
                raise ShardsError(f"the shards of {root} disagree on {key}: {values}")
        lead = max(infos.values(), key=lambda info: info["rows"])  # its calibration ranks for all
        self.model, self.backend = lead["model"], lead["backend"]
        self.tokenizer = Tokenizer.from_dict(lead["tokenizer"])
        self.fusion: dict[str, Any] = dict(lead["fusion"] or {})
        self.abstain_model = AbstainModel.from_manifest(self.fusion.get("abstain"))
        self.test_code = any(info["test_code"] for info in infos.values())
        self._embedder = embedder

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = Embedder(self.model, backend=self.backend)
        return self._embedder

    @property
    def fusion_weights(self) -> dict[str, float]:
        return dict(self.fusion.get("weights") or {"bm25": 1.0, "vector": 1.0})

    def _fan(
        self, method: str, calls: Mapping[str, tuple[Any, ...]], timeout: float | None
    ) -> tuple[dict[str, Any], dict[str, str]]:
        """``method(*args)`` on each named shard at once, waiting up to ``timeout`` seconds for
        them; (answers, name -> why it failed)."""
        deadline = time.monotonic() + timeout if timeout is not None else None
        futures, failed = {}, {}
        for name, args in calls.items():
            try:
                futures[name] = self.shards[name].call(method, *args)
            except ShardStarting as exc:
                failed[name] = str(exc)
            except Exception as exc:  # a shard that cannot even be asked is down (its actor lost)
                failed[name] = f"{type(exc).__name__}: {exc}"
                self.shards[name].failed(timed_out=False)
        answers = {}
        for name, future in futures.items():
            left = None if deadline is None else max(deadline - time.monotonic(), 0.001)
            try:
                answers[name] = future.result(timeout=left)
            except TimeoutError:
                failed[name] = f"no answer within the deadline ({timeout:g} s, {method})"
                self.shards[name].failed(timed_out=True)
            except Exception as exc:
                failed[name] = f"{type(exc).__name__}: {exc}"
                self.shards[name].failed(timed_out=False)
        return answers, failed

    def search(
        self,
        query: str,
        k: int = 10,
        mode: str | Mode = Mode.HYBRID,
        fetch_k: int = 100,
        rrf_k: float | None = None,
        weights: Mapping[str, float] | None = None,
        filters: Mapping[str, Any] | None = None,
        abstain: bool = True,
        test_code_weight: float = TEST_CODE_WEIGHT,
        probe: int | None = None,
        timeout: float | None = None,
        collapse: str = DEFAULT_COLLAPSE,
        rerank: Any = None,
        rerank_k: int = 30,
    ) -> ShardedResult:
        """HybridIndex.search over every shard (see the module docstring); ``timeout``: seconds
        (default: the index's) each round waits for the shards; those that have not answered
        are left out and the result is ``partial``."""
        mode = Mode.from_str(mode)
        if k <= 0 or fetch_k <= 0 or (probe is not None and probe <= 0):
            raise ValueError(
                f"k, fetch_k and probe must be positive, got k={k}, fetch_k={fetch_k}, probe={probe}"
            )
        if filters:
            filtering.validate(filters)  # a bad filter is the caller's error, not a shard's
        if not query or not query.strip():
            return ShardedResult([], abstained=True, reason="empty query")
        timeout = timeout if timeout is not None else self.timeout
        status = dict.fromkeys(self.names, "ok")
        notes: list[str] = []
        fetch_k = max(fetch_k, k)
        explicit = weights
        weights = dict(weights) if weights is not None else self.fusion_weights
        rrf_k = rrf_k if rrf_k is not None else float(self.fusion.get("rrf_k", 60.0))
        terms = tuple(self.tokenizer(query))
        use_bm25 = mode is Mode.BM25 or (mode is Mode.HYBRID and weights.get("bm25", 1.0) > 0)
        use_vector = mode is Mode.VECTOR or (
            mode is Mode.HYBRID and self._vector_readable(query, weights, notes)
        )
        stats, failed = self._fan("statistics", {name: (terms,) for name in self.names}, timeout)
        status.update(failed)
        corpus, df = _corpus(stats)
        vector = query_vector(self.embedder, query) if use_vector else None
        flags = mode is Mode.HYBRID and (self.test_code or 1 < self._kind_floor() <= k)
        args = (terms, vector, fetch_k, filters, corpus if use_bm25 else None, df, probe, flags, k)
        answers, failed = self._fan("search", {name: args for name in stats}, timeout)
        status.update(failed)
        sides = [side for side, used in (("bm25", use_bm25), ("vector", use_vector)) if used]
        results = {side: _merge(self.names, answers, side, fetch_k) for side in sides}
        readable = (
            mode is Mode.HYBRID or not use_vector or model_can_read(self.embedder.query_tokenizer(), query)
        )
        lexical = known_idf_share(terms, df, corpus.n_docs)
        cosine = results["vector"][0][1] if readable and results.get("vector") else None
        confidence = self.abstain_model.confidence(lexical, cosine)
        reason = self.abstain_model.reason(lexical, cosine) if abstain else None
        if reason:
            return ShardedResult([], True, reason, notes, confidence, shards=status)
        if explicit is None and len(results) > 1:
            weights = self._query_weights(terms, results["bm25"], weights, corpus, df, timeout, notes)
        policy = check_policy(collapse)
        depth = max(k, rerank_k if rerank is not None else k)
        ranking, demoted = self._rank(results, answers, rrf_k, weights, test_code_weight, depth)
        # collapse needs the places below the first k: a page's other chunks join its lead
        top = ranking[: depth if policy == "none" else COLLAPSE_DEPTH * depth]
        hits, failed = self._hits(top, results, answers, timeout, demoted, test_code_weight)
        status.update(failed)
        places = collapse_places(hits, lambda hit: hit.chunk, policy, depth)
        hits = [dataclasses.replace(p[0], siblings=tuple(h.chunk for h in p[1:])) for p in places]
        hits = rerank_or_fused(rerank, query, hits, k, notes) if rerank is not None else hits[:k]
        return ShardedResult(hits, notes=notes, confidence=confidence, shards=status)

    def _kind_floor(self) -> int:
        return int(self.fusion.get("kind_floor", 0))

    def _vector_readable(self, query: str, weights: Mapping[str, float], notes: list[str]) -> bool:
        if weights.get("vector", 1.0) <= 0:
            notes.append("vector side off: its fusion weight for this index is 0 (calibrated at build time)")
            return False
        share = unknown_token_share(self.embedder.query_tokenizer(), [query])
        if share > MAX_QUERY_UNKNOWN_SHARE:
            notes.append(f"vector side skipped: {share:.0%} of the query is unknown to the embedding model")
            return False
        return True

    def _query_weights(
        self,
        terms: Sequence[str],
        bm25: list[tuple[int, float]],
        weights: dict[str, float],
        corpus: CorpusStats,
        df: Mapping[str, int],
        timeout: float | None,
        notes: list[str],
    ) -> dict[str, float]:
        """HybridIndex._query_weights: the BM25 weight scaled by the coverage of its top hit."""
        power = self.fusion.get("bm25_coverage_power")
        if power is None:
            return weights
        coverage = 0.0
        if bm25:
            name, row = self._locate(bm25[0][0])
            answer, _ = self._fan("coverage", {name: (terms, row, corpus, df)}, timeout)
            coverage = float(answer.get(name, 0.0))
        scaled = weights.get("bm25", 1.0) * coverage ** float(power)
        notes.append(f"BM25 weight {scaled:.2f} (coverage of its top hit {coverage:.2f} ** {float(power):g})")
        return {**weights, "bm25": scaled}

    def _locate(self, row: int) -> tuple[str, int]:
        return self.names[row >> ROW_BITS], row & ((1 << ROW_BITS) - 1)

    def _rank(
        self,
        results: Mapping[str, list[tuple[int, float]]],
        answers: Mapping[str, Mapping[str, Any]],
        rrf_k: float,
        weights: Mapping[str, float],
        test_code_weight: float,
        k: int,
    ) -> tuple[list[Fused], set[int]]:
        """One side: its order. Both: RRF, test-code demotion, kind floor (HybridIndex._fuse);
        and the demoted rows."""
        if len(results) < 2:
            single = [
                Fused(row, s, {side: r})
                for side, hits in results.items()
                for r, (row, s) in enumerate(hits, 1)
            ]
            return single, set()
        ranking = rrf({side: [row for row, _ in hits] for side, hits in results.items()}, rrf_k, weights)
        test, source = _flag_sets(self.names, answers)
        if test_code_weight != 1.0 and test:
            ranking = [
                dataclasses.replace(f, score=f.score * test_code_weight) if f.row in test else f
                for f in ranking
            ]
            ranking.sort(key=lambda f: (-f.score, min(f.ranks.values()), f.row))
        floor = self._kind_floor()
        if 1 < floor <= k and len(ranking) >= floor:
            head = {item.row in source for item in ranking[:floor]}
            if len(head) == 1:
                kind = head.pop()
                for i in range(floor, len(ranking)):
                    if (ranking[i].row in source) != kind:
                        ranking = [
                            *ranking[: floor - 1],
                            ranking[i],
                            *ranking[floor - 1 : i],
                            *ranking[i + 1 :],
                        ]
                        break
        return ranking, (test if test_code_weight != 1.0 else set())

    def _hits(
        self,
        top: list[Fused],
        results: Mapping[str, list[tuple[int, float]]],
        answers: Mapping[str, Mapping[str, Any]],
        timeout: float | None,
        demoted: set[int],
        factor: float,
    ) -> tuple[list[Hit], dict[str, str]]:
        """The hits of ``top``, their chunks read from their shards (a shard that fails here
        loses its hits)."""
        by_row = {(name, row): c for name, a in answers.items() for row, c in a.get("chunks", {}).items()}
        wanted: dict[str, list[int]] = {}
        for item in top:
            name, row = self._locate(item.row)
            if (name, row) not in by_row:  # a hit below every side's first k of its shard
                wanted.setdefault(name, []).append(row)
        calls = {name: (answers[name]["build"], rows) for name, rows in wanted.items()}
        chunks, failed = self._fan("chunks", calls, timeout) if calls else ({}, {})
        for name, got in chunks.items():
            by_row.update({(name, row): chunk for row, chunk in zip(wanted[name], got, strict=True)})
        raw = {side: dict(hits) for side, hits in results.items()}
        fused = len(results) > 1
        if not fused:  # equal scores in the order one index numbers its rows: by path, then line
            top = [item for item in top if self._locate(item.row) in by_row]
            top.sort(key=lambda item: (-item.score, by_row[self._locate(item.row)].path, item.row))
            top = [
                Fused(item.row, item.score, {s: rank for s in item.ranks}) for rank, item in enumerate(top, 1)
            ]
        hits = []
        for item in top:
            chunk = by_row.get(self._locate(item.row))
            if chunk is None:
                continue
            ranks: dict[str, int | None] = {side: item.ranks.get(side) for side in ("bm25", "vector")}
            scores: dict[str, float | None] = {
                side: raw.get(side, {}).get(item.row) for side in ("bm25", "vector")
            }
            text = explain(ranks, scores, item.score if fused else None)
            if fused and item.row in demoted:
                text += f" test-code x{factor:g}"
            hits.append(Hit(chunk, item.score, ranks, scores, text))
        return hits, failed

    # What `docmill serve` reads of the index it serves (docmill.live.LiveIndex's surface): each
    # shard already follows its own CURRENT, so a sharded root is served as it is.
    closed = False

    @property
    def build(self) -> _Builds:
        return _Builds(self.build_name)

    @property
    def build_name(self) -> str:
        """The shards' current builds, ``00=<build>+01=<build>...`` (a shard that does not answer: ?)."""
        answers, _ = self._fan("ping", {name: () for name in self.names}, self.timeout)
        return "+".join(f"{name}={answers.get(name, '?')}" for name in self.names)

    @contextlib.contextmanager
    def acquire(self) -> Iterator[ShardedIndex]:
        if self.closed:
            raise ShardsError(f"the sharded index {self.root} is closed")
        yield self

    def describe(self) -> dict[str, Any]:
        """What `docmill serve`'s /index shows for a sharded root."""
        infos, failed = self._fan("info", {name: () for name in self.names}, self.timeout)
        return {
            "build": "+".join(f"{n}={infos[n]['build']}" if n in infos else f"{n}=?" for n in self.names),
            "sharded": True,
            "shards": {n: {"build": i["build"], "chunks": i["rows"]} for n, i in infos.items()},
            "unavailable": failed,
            "counts": {"chunks": sum(i["rows"] for i in infos.values())},
            "model": {"name": self.model, "backend": self.backend},
            "fusion": {"rrf_k": self.fusion.get("rrf_k", 60.0), "weights": self.fusion_weights},
        }

    def close(self) -> None:
        self.closed = True
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)


@dataclass(frozen=True)
class _Builds:
    name: str


def _corpus(stats: Mapping[str, Mapping[str, Any]]) -> tuple[CorpusStats, dict[str, int]]:
    """The answering shards' statistics summed; the key names their builds."""
    df: dict[str, int] = {}
    for answer in stats.values():
        for term, count in answer["df"].items():
            df[term] = df.get(term, 0) + int(count)
    corpus = CorpusStats(
        sum(int(a["n_docs"]) for a in stats.values()),
        sum(int(a["total_length"]) for a in stats.values()),
        "|".join(f"{name}={a['build']}" for name, a in sorted(stats.items())),
    )
    return corpus, df


def _merge(
    names: Sequence[str], answers: Mapping[str, Mapping[str, Any]], side: str, k: int
) -> list[tuple[int, float]]:
    """One side's hits of every shard as corpus rows, best score first, the top ``k``."""
    merged = [
        (names.index(name) << ROW_BITS | row, score)
        for name, answer in answers.items()
        for row, score in answer.get(side, [])
    ]
    merged.sort(key=lambda pair: (-pair[1], pair[0]))
    return merged[:k]


def _flag_sets(names: Sequence[str], answers: Mapping[str, Mapping[str, Any]]) -> tuple[set[int], set[int]]:
    test: set[int] = set()
    source: set[int] = set()
    for name, answer in answers.items():
        base = names.index(name) << ROW_BITS
        test.update(base | row for row in answer.get("test", []))
        source.update(base | row for row in answer.get("source", []))
    return test, source


def open_sharded(
    root: str | Path,
    embedder: Embedder | None = None,
    client: Any = None,
    timeout: float | None = None,
    check_interval: float = 2.0,
) -> ShardedIndex:
    """A sharded root's shards (those with a build), searched in this process, or with a Dask
    ``client`` by one actor per shard on its workers (shard i placed on worker i mod n)."""
    root = Path(root)
    manifest = RootManifest.read(root)
    entries = [e for e in manifest.shards if e.build is not None]
    if not entries:
        raise ShardsError(f"no shard of {root} holds a build: run `docmill ingest ... --shards N` first")
    if client is None:
        pool = ThreadPoolExecutor(max_workers=len(entries), thread_name_prefix="shard")
        searchers = {
            e.name: ShardSearcher(manifest.folder(root, e), embedder, check_interval) for e in entries
        }
        shards: dict[str, LocalShard | RemoteShard] = {n: LocalShard(s, pool) for n, s in searchers.items()}
        return ShardedIndex(root, shards, embedder, timeout, pool)
    workers = sorted(client.scheduler_info()["workers"])
    remote = {
        e.name: RemoteShard(
            client, str(manifest.folder(root, e).resolve()), workers[i % len(workers)] if workers else None,
            check_interval,
        )
        for i, e in enumerate(entries)
    }  # fmt: skip
    for shard in remote.values():
        shard.ready(timeout=300)
    return ShardedIndex(root, remote, embedder, timeout)
