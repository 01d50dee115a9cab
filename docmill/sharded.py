"""Search over a sharded index root (indexers.build.shards): ``open_index(ROOT)`` returns a
ShardedIndex when ROOT holds a root manifest.

A query is three fan-outs to the shards (each a docmill.shard_host.ShardSearcher, in this process
or in a Dask actor on a cluster worker):

1. ``statistics``: each shard's live documents, tokens and the df of the query's terms. Summed,
   they are the corpus's statistics (as segments' are summed inside one build).
2. ``search``: each shard's BM25 top ``fetch_k`` scored with those statistics (the same scores as
   one index over the whole corpus) and its vector top ``fetch_k`` (exact cosines with flat
   vectors). The coordinator merges each side by score, then ranks with HybridIndex's policy
   (indexers/ranking/policy.py): abstain on the corpus evidence, RRF with the calibrated weights,
   the agreement / exact-term tier, test-code demotion, one hit per place.
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
import functools
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docmill import filters as filtering
from docmill.hits import Hit, hit_of_place
from docmill.rerank import rerank_or_fused
from docmill.shard_clients import LocalShard, RemoteShard, ReplicatedShard, replicated
from docmill.shard_fan import ShardFan
from docmill.shard_host import ShardQuery, ShardSearcher
from docmill.shard_merge import SearchRun, ShardedResult, carried_chunks, corpus_of, in_row_order, merge_side
from indexers.build.sections import FusionSection
from indexers.build.shards import RootManifest, ShardsError
from indexers.dense.embedder import Embedder, query_vector, reads_query, unknown_token_share
from indexers.dense.remote import query_embedder
from indexers.lexical.tokenize import Tokenizer, words
from indexers.ranking import policy
from indexers.ranking.abstain import COVERAGE_DEPTH, AbstainModel, is_short, known_idf_share
from indexers.ranking.fusion import Fused
from indexers.ranking.options import Mode, SearchOptions
from indexers.ranking.policy import Ranked

AGREE = ("model", "backend", "tokenizer", "bm25")


# candidates fetched per hit asked for when hits are collapsed into places
COLLAPSE_DEPTH = 4


class ShardedIndex:
    """The shards of a root searched as one corpus (see the module docstring). ``timeout``: the
    default longest wait, in seconds, of each of a search's rounds for the shards (None: wait for
    every shard); a shard that misses a round is left out of the later ones."""

    def __init__(
        self,
        root: Path,
        shards: Mapping[str, LocalShard | RemoteShard | ReplicatedShard],
        embedder: Embedder | None = None,
        timeout: float | None = None,
        pool: ThreadPoolExecutor | None = None,
    ) -> None:
        self.root, self.shards, self.timeout, self._pool = root, dict(shards), timeout, pool
        self.fan = ShardFan(self.shards)  # the same shards: one asked, told of failures, read for chunks
        self.names = self.fan.names
        infos, failed = self.fan.call("info", {name: () for name in self.names}, None)
        if failed:
            raise ShardsError(f"shards of {root} did not open: {failed}")
        for key in AGREE:
            values = {name: info[key] for name, info in infos.items()}
            if len({repr(v) for v in values.values()}) > 1:
                raise ShardsError(f"the shards of {root} disagree on {key}: {values}")
        lead = max(infos.values(), key=lambda info: info["rows"])  # its calibration ranks for all
        self.model, self.backend = lead["model"], lead["backend"]
        self.embedding = lead["embedding"]  # the manifest's: model, and an endpoint's URL
        self.tokenizer = Tokenizer.from_dict(lead["tokenizer"])
        self.fusion = FusionSection.from_dict(lead["fusion"])
        self.abstain_model = AbstainModel.from_manifest(self.fusion.abstain)
        self.test_code = any(info["test_code"] for info in infos.values())
        self._embedder = embedder

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = query_embedder(self.embedding, self.backend)
        return self._embedder

    @property
    def fusion_weights(self) -> dict[str, float]:
        return self.fusion.fusion_weights

    def search(
        self, query: str, k: int = 10, mode: str | Mode = Mode.HYBRID, **options: Any
    ) -> ShardedResult:
        """HybridIndex.search over every shard (see the module docstring), with its options
        (indexers.ranking.options.SearchOptions) and ``timeout``: seconds (default: the index's)
        each round waits for the shards; those that have not answered are left out and the result
        is ``partial``."""
        return self.search_with(query, SearchOptions.from_kwargs(k=k, mode=mode, **options))

    def search_with(self, query: str, options: SearchOptions) -> ShardedResult:
        """``search`` with its options as one record: the shards' sides, ranked by the policy
        HybridIndex ranks with (indexers/ranking/policy.py)."""
        timeout = options.timeout if options.timeout is not None else self.timeout
        if options.filters:
            filtering.validate(options.filters)  # a bad filter is the caller's error, not a shard's
            self._check_held(options.filters, timeout)
        if not query or not query.strip():
            return ShardedResult([], abstained=True, reason="empty query")
        terms = tuple(self.tokenizer(query))
        run = SearchRun(
            query, terms, options, timeout, is_short(terms), status=dict.fromkeys(self.names, "ok")
        )
        weights = (
            dict(options.weights)
            if options.weights is not None
            else self.calibration.weights_for(self.calibration.fusion_of(options).method)
        )
        results, noise = self._run_sides(run, weights)
        if options.filters and run.nothing_matches:
            nothing = filtering.no_match(options.filters)
            return ShardedResult([], reason=nothing, notes=run.notes, build=run.builds, shards=run.status)
        lexical = known_idf_share(run.terms, run.df, run.corpus.n_docs)
        cosine = policy.top_cosine(results, run.readable)
        coverage = policy.coverage_evidence(
            self.abstain_model,
            cosine,
            lambda: (
                results["bm25"]
                if "bm25" in results
                else merge_side(self.names, run.answers, "bm25", COVERAGE_DEPTH)
            ),
            run.short,
            lambda bm25: self._best_coverage(run, bm25),
        )
        confidence, reason = policy.verdict(
            self.abstain_model, lexical, cosine, noise, options.abstain, run.notes, run.short, coverage
        )
        if reason:
            return ShardedResult(
                [], True, reason, run.notes, confidence, run.builds, shards=run.status, replicas=run.served
            )
        if options.weights is None and len(results) > 1:
            weights = self._query_weights(run, results["bm25"], weights)
        hits = self._rank(run, results, weights)
        if options.rerank is not None:
            hits = rerank_or_fused(options.rerank, query, hits, options.k, run.notes)
        return ShardedResult(
            hits,
            notes=run.notes,
            confidence=confidence,
            build=run.builds,
            shards=run.status,
            replicas=run.served,
        )

    def _check_held(self, filters: Mapping[str, Any], timeout: float | None) -> None:
        """FilterError for a ``language`` / ``doc_id`` value no shard holds (filters.check_values
        over the union of the shards' values). With a shard that did not answer, a value may be in
        it: nothing is refused then (the search's result says which shards answered)."""
        if not any(key in filters for key in filtering.HELD_KEYS):
            return
        answers, failed = self.fan.call("held", {name: (filters,) for name in self.names}, timeout)
        if not failed:
            filtering.check_values(filters, filtering.merge_held(list(answers.values())))

    def _run_sides(self, run: SearchRun, weights: Mapping[str, float]) -> tuple[dict[str, Ranked], bool]:
        """The corpus statistics, then each side the mode and the policy ask for, merged over the
        shards: (side -> ranked corpus rows, whether vector mode's hits are noise)."""
        options, query, notes = run.options, run.query, run.notes
        tokenizer = self.embedder.query_tokenizer

        def unknown() -> float:
            return unknown_token_share(tokenizer(), [query])

        use_bm25, use_vector = policy.sides_to_ask(options.mode, weights, unknown, notes)
        run.readable = options.mode is Mode.HYBRID or not use_vector or self._vector_mode_reads(query, notes)
        stats, failed = self.fan.call(
            "statistics", {name: (run.terms,) for name in self.names}, run.timeout, run.served
        )
        run.status.update(failed)
        run.corpus, run.df = corpus_of(stats)
        vector = query_vector(self.embedder, query) if use_vector else None
        flags = options.mode is Mode.HYBRID and self.test_code
        # vector mode on a query its model cannot read: BM25's hits judge the vector side's; on
        # one it reads, BM25's top hits give the coverage evidence where the build weighs it
        coverage = use_vector and self.abstain_model.reads_coverage(run.short)
        ask_bm25 = use_bm25 or not run.readable or coverage
        fetch_k = options.candidates
        corpus = run.corpus if ask_bm25 else None
        # without a BM25 side only its head is read: each shard's top rows of that many hold the
        # corpus's (merge_side), so they need send no more
        head = max(policy.AGREE_BM25_K if not run.readable else 0, COVERAGE_DEPTH if coverage else 0)
        bm25_k = fetch_k if use_bm25 else min(fetch_k, head)
        ask = ShardQuery(
            run.terms, vector, fetch_k, options.filters, corpus, run.df, options.probe, flags,
            with_chunks=options.k, bm25_k=bm25_k,
        )  # fmt: skip
        run.answers, failed = self.fan.call(
            "search", {name: (ask,) for name in stats}, run.timeout, run.served
        )
        run.status.update(failed)
        run.chunks = carried_chunks(run.answers)
        sides = [side for side, used in (("bm25", use_bm25), ("vector", use_vector)) if used]
        results = {
            side: in_row_order(
                merge_side(self.names, run.answers, side, fetch_k),
                lambda rows: self.fan.chunks(run, rows),
            )
            for side in sides
        }
        noise = not run.readable and not policy.bm25_agrees(
            results["vector"], merge_side(self.names, run.answers, "bm25", policy.AGREE_BM25_K), notes
        )
        return results, noise

    def _vector_mode_reads(self, query: str, notes: list[str]) -> bool:
        """HybridIndex._vector_mode_reads: whether the model can read ``query`` (a note if not)."""
        return reads_query(self.embedder.query_tokenizer(), query, self.model, notes)

    def _query_weights(self, run: SearchRun, bm25: Ranked, weights: dict[str, float]) -> dict[str, float]:
        """HybridIndex._query_weights: the BM25 weight scaled by the coverage of its top hit."""
        power = self.fusion.bm25_coverage_power

        def coverage() -> float:
            if not bm25:
                return 0.0
            name, row = self.fan.locate(bm25[0][0])
            answer, _ = self.fan.call("coverage", {name: (run.terms, [row], run.corpus, run.df)}, run.timeout)
            return float(answer.get(name, [0.0])[0])

        return policy.query_weights(weights, float(power) if power is not None else None, coverage, run.notes)

    def _best_coverage(self, run: SearchRun, bm25: Ranked) -> float:
        """abstain.best_coverage over the shards: BM25's top COVERAGE_DEPTH rows, each shard asked
        for its own in one call."""
        rows: dict[str, list[int]] = {}
        for name, row in (self.fan.locate(row) for row, _ in bm25[:COVERAGE_DEPTH]):
            rows.setdefault(name, []).append(row)
        terms = words(run.terms)  # as abstain.best_coverage reads them
        calls = {name: (terms, mine, run.corpus, run.df) for name, mine in rows.items()}
        answer, _ = self.fan.call("coverage", calls, run.timeout)
        return max((float(value) for values in answer.values() for value in values), default=0.0)

    def _rank(self, run: SearchRun, results: Mapping[str, Ranked], weights: Mapping[str, float]) -> list[Hit]:
        """policy.fuse (or one side's order) over corpus rows, then the chunks of its head read
        from the shards (a shard that fails here loses its hits) and policy.places over them."""
        options = run.options
        depth = options.depth
        fusion = self.calibration.fusion_of(options)
        fused = len(results) > 1
        factors: dict[int, float] = {}
        if fused:
            test = {
                row
                for name, a in run.answers.items()
                for row in self.fan.corpus_rows(name, a.get("test", []))
            }
            exact = policy.exact_rows(
                run.query, results.get("bm25"), run.df, self.tokenizer,
                lambda row: self.fan.chunks(run, [row])[row].index_text,
            )  # fmt: skip
            in_tests = test.__contains__ if test else None
            ranking, factors = policy.fuse(
                results, fusion, weights, exact, options.test_code_weight, in_tests
            )
        else:
            ranking = policy.one_side(results)
        # collapse needs the places below the first k: a page's other chunks join its lead
        top = ranking[: depth if options.collapse == "none" else COLLAPSE_DEPTH * depth]
        chunks = self.fan.chunks(run, [item.row for item in top])
        top = [item for item in top if item.row in chunks]
        if not fused:  # equal scores in the order one index numbers its rows: by path, then line
            top.sort(key=lambda item: (-item.score, chunks[item.row].path, item.row))
            top = [
                Fused(item.row, item.score, {s: rank for s in item.ranks}) for rank, item in enumerate(top, 1)
            ]
        places = policy.places(top, chunks.__getitem__, options.collapse, depth)
        raw = {name: dict(pairs) for name, pairs in results.items()}
        return [
            dataclasses.replace(
                hit_of_place(place, raw, fused, factors, chunks.__getitem__, fusion.method),
                row=None,
            )
            for place in places
        ]

    @functools.cached_property
    def calibration(self) -> policy.Calibration:
        """The lead shard's fusion calibration, read once (HybridIndex.calibration)."""
        return policy.Calibration.from_section(self.fusion)

    # What `docmill serve` reads of the index it serves (docmill.live.LiveIndex's surface): each
    # shard already follows its own CURRENT, so a sharded root is served as it is.
    closed = False

    @property
    def build(self) -> _Builds:
        return _Builds(self.build_name)

    @property
    def build_name(self) -> str:
        """The shards' current builds, ``00=<build>+01=<build>...`` (a shard that does not answer: ?)."""
        answers, _ = self.fan.call("ping", {name: () for name in self.names}, self.timeout)
        return "+".join(f"{name}={answers.get(name, '?')}" for name in self.names)

    @contextlib.contextmanager
    def acquire(self) -> Iterator[ShardedIndex]:
        if self.closed:
            raise ShardsError(f"the sharded index {self.root} is closed")
        yield self

    def describe(self) -> dict[str, Any]:
        """What `docmill serve`'s /index shows for a sharded root."""
        infos, failed = self.fan.call("info", {name: () for name in self.names}, self.timeout)
        return {
            "build": "+".join(f"{n}={infos[n]['build']}" if n in infos else f"{n}=?" for n in self.names),
            "sharded": True,
            "shards": {n: {"build": i["build"], "chunks": i["rows"]} for n, i in infos.items()},
            "unavailable": failed,
            "counts": {"chunks": sum(i["rows"] for i in infos.values())},
            "model": {"name": self.model, "backend": self.backend},
            "fusion": {"rrf_k": self.fusion.rrf_k, "weights": self.fusion_weights},
        }

    def close(self) -> None:
        self.closed = True
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)


@dataclass(frozen=True)
class _Builds:
    name: str


def open_sharded(
    root: str | Path,
    embedder: Embedder | None = None,
    client: Any = None,
    timeout: float | None = None,
    check_interval: float = 2.0,
) -> ShardedIndex:
    """A sharded root's shards (those with a build), searched in this process, or with a Dask
    ``client`` by one actor per shard folder on its workers (shard i placed on worker i mod n, its
    replica r on worker i + r mod n). A shard with replica folders is a ReplicatedShard: its
    replicas answer when its primary fails, is late or is mid-publish."""
    root = Path(root)
    manifest = RootManifest.read(root)
    entries = [e for e in manifest.shards if e.build is not None]
    if not entries:
        raise ShardsError(f"no shard of {root} holds a build: run `docmill ingest ... --shards N` first")
    folders = {e.name: [manifest.folder(root, e), *manifest.replica_folders(root, e)] for e in entries}
    if client is None:
        pool = ThreadPoolExecutor(
            max_workers=sum(len(f) for f in folders.values()), thread_name_prefix="shard"
        )
        members = {
            name: [LocalShard(ShardSearcher(folder, embedder, check_interval), pool) for folder in own]
            for name, own in folders.items()
        }
        return ShardedIndex(root, replicated(members), embedder, timeout, pool)
    workers = sorted(client.scheduler_info()["workers"])
    remote = {
        e.name: [
            RemoteShard(
                client, str(folder.resolve()), workers[(i + r) % len(workers)] if workers else None,
                check_interval,
            )
            for r, folder in enumerate(folders[e.name])
        ]
        for i, e in enumerate(entries)
    }  # fmt: skip
    for own in remote.values():
        for shard in own:
            shard.ready(timeout=300)
    return ShardedIndex(root, replicated(remote), embedder, timeout)
