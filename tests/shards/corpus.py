"""A synthetic tree for the sharding tests: Markdown files of Zipf-distributed words (no eval data)."""

from __future__ import annotations

import random
from pathlib import Path

WORDS = [
    f"{a}{b}"
    for a in ("ka", "lo", "mi", "nu", "pe", "ro", "sa", "ti", "vu", "ze", "bra", "cle")
    for b in ("dan", "fel", "gor", "hix", "jun", "kem", "lar", "mot", "nip", "quo", "ruv", "sel")
]
TOPICS = ["install", "cache", "network", "storage", "billing", "backup", "logging", "search"]


def write_corpus(root: Path, files: int = 36, seed: int = 7) -> Path:
    """``files`` Markdown files, each a heading and a few paragraphs: real English topic words
    mixed with made-up ones drawn with Zipf weights, so BM25 scores rarely tie."""
    rng = random.Random(seed)
    weights = [1.0 / (rank + 1) for rank in range(len(WORDS))]
    for i in range(files):
        topic = TOPICS[i % len(TOPICS)]
        lines = [f"# {topic.title()} note {i}", ""]
        for _ in range(rng.randint(2, 4)):
            words = rng.choices(WORDS, weights, k=rng.randint(25, 70))
            words += [topic] * rng.randint(1, 3)
            rng.shuffle(words)
            lines += [" ".join(words) + ".", ""]
        path = root / f"part{i % 4}" / f"{topic}-{i}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines), encoding="utf-8")
    return root


def queries(count: int = 24, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(count):
        words = rng.sample(WORDS, rng.randint(1, 3)) + ([TOPICS[i % len(TOPICS)]] if i % 2 else [])
        out.append(" ".join(words))
    return out
