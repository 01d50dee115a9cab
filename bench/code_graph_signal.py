"""Does the code graph help rank code hits? Tune on one half of the questions, report the other.

    PYTHONPATH=. .venv/bin/python bench/code_graph_signal.py \\
        --set eval/code/click.jsonl:/tmp/idx-click --set eval/code/cobra.jsonl:/tmp/idx-cobra

Two signals re-rank the hybrid top 30 (the stored fusion, abstaining off): ``beta`` multiplies a
code hit's fused score by ``1 + beta * p``, where ``p`` is the percentile of its definition in the
repo-map rank (a symbol much used by important code); ``gamma`` by ``1 + gamma`` when a word of
the question is the hit's own name (the definition a question's identifier resolves to). The
grid is scored on the even-numbered questions of every set ("tune"); the best setting, and the
baseline, are then scored on the odd-numbered ones ("held"). A signal ships only if it helps there.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
from pathlib import Path
from typing import Any

import docmill
from docmill.repomap import Ranker

GRID_BETA = [0.0, 0.05, 0.1, 0.2, 0.5]
GRID_GAMMA = [0.0, 0.1, 0.3, 1.0]
DEPTH = 30


def matches(symbol: str | None, wanted: list[str]) -> bool:
    return bool(symbol) and any(symbol == w or str(symbol).endswith("." + w) for w in wanted)


def candidates(index: Any, questions: list[dict[str, Any]]) -> list[list[tuple[float, float, bool, bool]]]:
    """Per question, per hit of the hybrid top DEPTH: (fused score, rank percentile, name in
    question, answers the question)."""
    ranked = Ranker(index.graph_file.load()).ranked_definitions()
    percentile = {
        f"{d.path}::{d.definition.symbol}": 1.0 - i / max(len(ranked) - 1, 1)
        for i, (_, d) in enumerate(ranked)
    }
    out = []
    for q in questions:
        words = {w.lower() for w in re.findall(r"\w+", q["q"])}
        hits = index.search(q["q"], k=DEPTH, fetch_k=100, abstain=False).hits
        out.append(
            [
                (
                    h.score,
                    percentile.get(h.chunk.symbol_path or "", 0.0),
                    bool(h.chunk.symbol) and h.chunk.symbol.rsplit(".", 1)[-1].lower() in words,
                    matches(h.chunk.symbol, q["symbols"]),
                )
                for h in hits
            ]
        )
    return out


def hit_at_5(rows: list[list[tuple[float, float, bool, bool]]], beta: float, gamma: float) -> float:
    found = 0
    for hits in rows:
        order = sorted(hits, key=lambda h: -h[0] * (1 + beta * h[1]) * (1 + gamma * h[2]))
        found += any(h[3] for h in order[:5])
    return found / max(len(rows), 1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", action="append", required=True, help="QUESTIONS.jsonl:INDEX")
    args = ap.parse_args(argv)
    tune: list[list[tuple[float, float, bool, bool]]] = []
    held: list[list[tuple[float, float, bool, bool]]] = []
    for item in args.set:
        questions_path, index_path = item.rsplit(":", 1)
        lines = Path(questions_path).read_text(encoding="utf-8").splitlines()
        questions = [json.loads(line) for line in lines if line.strip()]
        rows = candidates(docmill.open_index(index_path), questions)
        tune += rows[0::2]
        held += rows[1::2]
    grid = {(b, g): hit_at_5(tune, b, g) for b, g in itertools.product(GRID_BETA, GRID_GAMMA)}
    best = max(grid, key=lambda bg: (grid[bg], -bg[0] - bg[1]))  # ties: the weaker signal
    print(f"tune half ({len(tune)} questions): baseline hit@5 {grid[(0.0, 0.0)]:.3f}")
    for (b, g), score in sorted(grid.items()):
        print(f"  beta={b:<5} gamma={g:<4} hit@5 {score:.3f}")
    print(f"best on tune: beta={best[0]} gamma={best[1]} ({grid[best]:.3f})")
    signal = max((bg for bg in grid if bg != (0.0, 0.0)), key=lambda bg: (grid[bg], -bg[0] - bg[1]))
    print(
        f"best with a signal on tune: beta={signal[0]} gamma={signal[1]} ({grid[signal]:.3f}), "
        f"held {hit_at_5(held, *signal):.3f}"
    )
    print(
        f"held half ({len(held)} questions): baseline {hit_at_5(held, 0.0, 0.0):.3f}, "
        f"with beta={best[0]} gamma={best[1]}: {hit_at_5(held, *best):.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
