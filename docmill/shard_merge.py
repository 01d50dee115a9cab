"""The coordinator's plain data for a sharded search (docmill.sharded): corpus rows across shards,
each side merged over the shards, the summed corpus statistics, one search's state and its result."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from chunkers.model import Chunk
from docmill.hits import SearchResult
from indexers.lexical.segmented import CorpusStats
from indexers.ranking.options import SearchOptions

ROW_BITS = 40  # a corpus row: shard index << ROW_BITS | the shard's row
OWN_ROW = (1 << ROW_BITS) - 1


@dataclass(frozen=True)
class ShardedResult(SearchResult):
    """A SearchResult plus, per shard, "ok" or why it did not answer (then ``partial``)."""

    shards: dict[str, str] = field(default_factory=dict)
    # shard -> the replica that answered for it (its primary failed, was late or mid-publish)
    replicas: dict[str, str] = field(default_factory=dict)

    @property
    def partial(self) -> bool:
        return any(status != "ok" for status in self.shards.values())

    @property
    def answered(self) -> list[str]:
        return [name for name, status in self.shards.items() if status == "ok"]

    def to_json(self) -> dict[str, Any]:
        out = {**super().to_json(), "partial": self.partial, "shards": dict(self.shards)}
        return {**out, "replicas": dict(self.replicas)} if self.replicas else out


@dataclass
class SearchRun:
    """One search's state across its rounds: what it asked, what the shards answered."""

    query: str
    terms: tuple[str, ...]  # the query's BM25 terms
    options: SearchOptions
    timeout: float | None
    short: bool = False  # abstain.is_short(terms): judged on the short-query scale
    notes: list[str] = field(default_factory=list)
    status: dict[str, str] = field(default_factory=dict)  # shard -> "ok" or why it did not answer
    readable: bool = True  # the vector side reads the query (vector mode asks)
    corpus: CorpusStats = field(default_factory=lambda: CorpusStats(0, 0, ""))
    df: dict[str, int] = field(default_factory=dict)
    answers: dict[str, Any] = field(default_factory=dict)  # shard -> its search answer
    # (shard, row) -> chunk: those the search answers carried (carried_chunks), then those read
    # from the shards since (ShardFan.chunks), so no round asks a shard for one twice
    chunks: dict[tuple[str, int], Chunk] = field(default_factory=dict)
    served: dict[str, str] = field(default_factory=dict)  # shard -> the replica that answered for it

    @property
    def builds(self) -> str | None:
        """The builds that answered, ``00=<build>+01=<build>`` (ShardedIndex.build_name's form)."""
        return "+".join(f"{name}={a['build']}" for name, a in sorted(self.answers.items())) or None

    @property
    def nothing_matches(self) -> bool:
        """Every shard answered and none holds a chunk that passes the filters (``matched``)."""
        answered = bool(self.answers) and all(status == "ok" for status in self.status.values())
        return answered and not any(a.get("matched", True) for a in self.answers.values())


def corpus_of(stats: Mapping[str, Mapping[str, Any]]) -> tuple[CorpusStats, dict[str, int]]:
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


def merge_side(
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


def carried_chunks(answers: Mapping[str, Mapping[str, Any]]) -> dict[tuple[str, int], Chunk]:
    """(shard, row) -> chunk of every chunk the shards' search answers carried."""
    return {(name, row): chunk for name, a in answers.items() for row, chunk in a.get("chunks", {}).items()}


def in_row_order(
    ranked: list[tuple[int, float]], chunks_of: Callable[[list[int]], Mapping[int, Chunk]]
) -> list[tuple[int, float]]:
    """``ranked`` with rows of equal score from several shards in the order one index over the
    corpus numbers them (by path, then line; a file lies in one shard), so RRF reads the same
    ranks. ``chunks_of``: the chunks of such rows (from the search answers, or one more round),
    asked only when there are some."""
    runs: list[list[int]] = []  # index ranges of equal scores spanning shards
    start = 0
    for i in range(1, len(ranked) + 1):
        if i == len(ranked) or ranked[i][1] != ranked[start][1]:
            if len({row >> ROW_BITS for row, _ in ranked[start:i]}) > 1:
                runs.append(list(range(start, i)))
            start = i
    if not runs:
        return ranked
    chunks = chunks_of([ranked[i][0] for tie in runs for i in tie])
    out = list(ranked)
    for tie in runs:
        pairs = sorted(
            (ranked[i] for i in tie),
            key=lambda pair: (chunks[pair[0]].path if pair[0] in chunks else "\uffff", pair[0] & OWN_ROW),
        )
        out[tie[0] : tie[-1] + 1] = pairs
    return out
