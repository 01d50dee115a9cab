"""BEIR relevance files, read once for the ingest quality gate (flows.gate) and `docmill eval`:
``queries.jsonl`` (one ``{"_id", "text"}`` per line) and ``qrels/SPLIT.tsv`` (``query-id
corpus-id score``, tab-separated, an optional header line)."""

from __future__ import annotations

import csv
import json
from collections.abc import Container
from pathlib import Path


def _score(text: str) -> int | float:
    """A qrels score as written: an int ("1"), else a float ("0.5")."""
    try:
        return int(text)
    except ValueError:
        return float(text)


def read_qrels(path: str | Path) -> dict[str, dict[str, int | float]]:
    """query id -> {corpus id: score}, every row (scores of 0 included), the header skipped."""
    qrels: dict[str, dict[str, int | float]] = {}
    with open(path, encoding="utf-8", newline="") as handle:
        for row in csv.reader(handle, delimiter="\t"):
            if not row or row[0] == "query-id":
                continue
            qrels.setdefault(row[0], {})[row[1]] = _score(row[2])
    return qrels


def read_queries(path: str | Path, only: Container[str] | None = None) -> dict[str, str]:
    """query id -> text, in file order; ``only``: keep these ids (e.g. those with qrels)."""
    queries: dict[str, str] = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                item = json.loads(line)
                qid = str(item["_id"])
                if only is None or qid in only:
                    queries[qid] = item["text"]
    return queries
