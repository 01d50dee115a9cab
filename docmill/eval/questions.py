"""Question sets over a tree (`docmill eval --queries FILE`): load, split, score.

A question names what answers it: a page (path), a path and line range or symbol (code), a path
and pages (PDF), or nothing (an off-topic question that should abstain). Three file shapes are
read, one JSON object a line:

- ``{"id", "query", "kind", "relevant": ["guide/x.md" | {"path", "lines", "symbol", "pages"}]}``
  (../shared/eval/trees); ``"relevant": []`` marks an off-topic question;
- ``{"q", "file", "pages"}`` (eval/pdf); ``{"q", "symbols"}`` (eval/code);
- ``{"query", "expected_paths": [...]}`` (the ingest ``--golden`` file, flows/gate.py, which reads
  every shape here: one question-file format for both);
- plain text, one off-topic question a line (``--offtopic``).

Scoring follows what a reader sees: a question answered by a whole page is scored on distinct
pages in rank order (a page's rank is its best chunk's); a question answered by a line range,
symbol or page number is scored on hits: a collapsed hit (indexers/ranking/collapse.py) answers
it when its chunk does or one of its siblings that the hit's own citation covers does (a class
hit citing L321-378 covers its method at L333-369). The fit/held split is by a hash of the question id,
so it is stable however the file is ordered or extended.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

HALVES = ("all", "fit", "held")


class ChunkLike(Protocol):
    path: str
    lines: tuple[int, int] | None
    pages: tuple[int, int] | None
    symbol: str | None


@dataclass(frozen=True)
class Relevant:
    """What answers a question; every field given must match (``symbols``: any one of them)."""

    path: str | None = None
    lines: tuple[int, int] | None = None
    pages: tuple[int, ...] = ()
    symbols: tuple[str, ...] = ()

    @property
    def page_level(self) -> bool:
        return self.path is not None and not (self.lines or self.pages or self.symbols)

    def matches(self, chunk: ChunkLike, root: str = "") -> bool:
        if self.path is not None and not _same_path(chunk.path, self.path, root):
            return False
        if self.symbols:
            if chunk.symbol:
                return any(_symbol_matches(chunk.symbol, s) for s in self.symbols)
            if not self.lines:
                return False
        if self.lines and not (chunk.lines and _overlap(chunk.lines, self.lines)):
            return False
        if self.pages:
            if not chunk.pages:
                return False
            first, last = chunk.pages
            return any(first <= p <= last for p in self.pages)
        return True


@dataclass(frozen=True)
class Question:
    id: str
    query: str
    relevant: tuple[Relevant, ...]
    kind: str = ""

    @property
    def offtopic(self) -> bool:
        return not self.relevant

    @property
    def half(self) -> str:
        return half_of(self.id)


def half_of(question_id: str) -> str:
    """``fit`` or ``held``, by a hash of the id: the same split for question sets and BEIR."""
    return "fit" if int(hashlib.sha1(question_id.encode()).hexdigest(), 16) % 2 == 0 else "held"


def _same_path(chunk_path: str, wanted: str, root: str) -> bool:
    wanted = wanted.lstrip("./")
    if root and chunk_path == f"{root}/{wanted}":
        return True
    return chunk_path == wanted or chunk_path.endswith("/" + wanted)


def _symbol_matches(symbol: str, wanted: str) -> bool:
    name = symbol.split("::", 1)[-1]
    return name == wanted or name.endswith("." + wanted)


def _overlap(a: Sequence[int], b: Sequence[int]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def _relevant(item: Any) -> Relevant:
    if isinstance(item, str):
        return Relevant(path=item)
    lines = item.get("lines")
    symbol = item.get("symbol")
    return Relevant(
        path=item.get("path"),
        lines=(int(lines[0]), int(lines[1])) if lines else None,
        pages=tuple(int(p) for p in item.get("pages") or ()),
        symbols=(symbol,) if symbol else tuple(item.get("symbols") or ()),
    )


def parse_question(row: Mapping[str, Any], number: int, source: str) -> Question:
    """One JSON row in any of the three shapes; ``ValueError`` naming the line if it is none."""
    query = row.get("query", row.get("q"))
    if not isinstance(query, str) or not query.strip():
        raise ValueError(f"{source}:{number}: no 'query' (or 'q') text")
    qid = str(row.get("id", row.get("_id", f"{Path(source).stem}-{number}")))
    if "relevant" in row or "expected_paths" in row:
        items = [*(row.get("expected_paths") or ()), *(row.get("relevant") or ())]
        relevant = tuple(_relevant(item) for item in items)
    elif "file" in row:
        relevant = (Relevant(path=row["file"], pages=tuple(int(p) for p in row.get("pages") or ())),)
    elif "symbols" in row:
        relevant = (Relevant(symbols=tuple(row["symbols"])),)
    else:
        raise ValueError(
            f"{source}:{number}: no 'relevant', 'expected_paths', 'file' or 'symbols' "
            "(use 'relevant': [] for off-topic)"
        )
    kind = str(row.get("kind") or ("offtopic" if not relevant else ""))
    return Question(qid, query.strip(), relevant, kind)


def load_questions(path: str | Path, offtopic: bool = False) -> list[Question]:
    """A question file (JSONL), or with ``offtopic`` a plain-text (or JSONL) list of questions
    that nothing in the tree answers."""
    source = Path(path)
    if not source.is_file():
        raise FileNotFoundError(f"no question file {source}")
    questions = []
    for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        if offtopic and not line.lstrip().startswith("{"):
            questions.append(Question(f"{source.stem}-{number}", line.strip(), (), "offtopic"))
            continue
        row = json.loads(line)
        if offtopic:
            text = row.get("query", row.get("q", row.get("text")))
            questions.append(Question(str(row.get("id", row.get("_id", number))), text, (), "offtopic"))
        else:
            questions.append(parse_question(row, number, str(source)))
    return questions


def select_half(questions: Iterable[Question], half: str) -> list[Question]:
    if half not in HALVES:
        raise ValueError(f"unknown half {half!r}; expected one of: {', '.join(HALVES)}")
    return [q for q in questions if half == "all" or q.half == half]


def covered(lead: ChunkLike, siblings: Sequence[ChunkLike]) -> list[ChunkLike]:
    """The siblings of a collapsed hit that its own citation covers (pages or lines within the
    lead's): a class hit's method, a page's other chunks; not, under ``collapse="document"``, the
    other pages of the file, which the hit does not cite."""

    def within(inner: tuple[int, int] | None, outer: tuple[int, int] | None) -> bool:
        return inner is not None and outer is not None and outer[0] <= inner[0] and inner[1] <= outer[1]

    return [
        s
        for s in siblings
        if s.path == lead.path and (within(s.pages, lead.pages) or within(s.lines, lead.lines))
    ]


def first_rank(
    question: Question,
    chunks: Sequence[ChunkLike],
    root: str = "",
    depth: int = 10,
    also: Sequence[Sequence[ChunkLike]] | None = None,
) -> int | None:
    """1-based rank of the first relevant item within ``depth`` (pages or chunks, see above).
    ``also[i]``: chunks that count as part of item ``i`` (a collapsed hit's ``covered`` siblings)."""
    page_level = all(r.page_level for r in question.relevant)
    seen: set[str] = set()
    rank = 0
    for i, chunk in enumerate(chunks):
        if page_level:
            if chunk.path in seen:
                continue
            seen.add(chunk.path)
        rank += 1
        if rank > depth:
            return None
        candidates = [chunk, *(also[i] if also is not None else ())]
        if any(r.matches(c, root) for r in question.relevant for c in candidates):
            return rank
    return None


def cutoffs(k: int) -> list[int]:
    """The hit@ cut-offs reported at ``--k`` k: 1 and 5 where they are within k, and k."""
    return [c for c in (1, 5) if c < k] + [k]


@dataclass
class Tally:
    """hit@1/5/k and MRR@k of the answerable questions (an abstained one scores as a miss, as a
    user sees it; ``hit@5_no_abstain`` scores its hits anyway) and abstain rates. Ranks beyond
    ``k`` are misses (``first_rank(..., depth=k)``)."""

    k: int = 10
    ranks: list[int | None] = field(default_factory=list)
    ranks_no_abstain: list[int | None] = field(default_factory=list)
    abstained: int = 0
    offtopic: int = 0
    offtopic_abstained: int = 0

    def add(self, rank: int | None, abstained: bool) -> None:
        self.ranks_no_abstain.append(counted_rank(rank, False, self.k))
        self.ranks.append(counted_rank(rank, abstained, self.k))
        self.abstained += int(abstained)

    def summary(self) -> dict[str, float | int]:
        n = len(self.ranks)
        out: dict[str, float | int] = {"questions": n}
        if n:
            out.update({f"hit@{c}": _hit(self.ranks, c) for c in cutoffs(self.k)})
            out[f"mrr@{self.k}"] = sum(1.0 / r for r in self.ranks if r) / n
            out[f"hit@{min(5, self.k)}_no_abstain"] = _hit(self.ranks_no_abstain, min(5, self.k))
            out["wrongly_abstained"] = self.abstained / n
        if self.offtopic:
            out.update(offtopic=self.offtopic, offtopic_abstained=self.offtopic_abstained / self.offtopic)
        return out


def counted_rank(rank: int | None, abstained: bool, k: int) -> int | None:
    """The rank a question's scores count: none when the search abstained or the first relevant
    hit lies beyond ``k`` (Tally, and the paired comparisons of docmill.eval.compare)."""
    return None if abstained or rank is None or rank > k else rank


def tally_question(
    tallies: dict[str, Tally], question: Question, rank: int | None, abstained: bool, k: int = 10
) -> None:
    """Count one searched question into ``tallies`` under "all" and under its own kind."""
    for kind in ["all"] + ([question.kind] if question.kind and question.kind != "all" else []):
        tally = tallies.setdefault(kind, Tally(k=k))
        if question.offtopic:
            tally.offtopic += 1
            tally.offtopic_abstained += int(abstained)
        else:
            tally.add(rank, abstained)


def _hit(ranks: Sequence[int | None], k: int) -> float:
    return sum(1 for r in ranks if r is not None and r <= k) / len(ranks)
