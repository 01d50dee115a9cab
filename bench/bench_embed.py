"""Passage embedding throughput and quality: docmill's Embedder backends vs plain
``SentenceTransformer.encode`` (same MiniLM folder, its default threads), same run.

Throughput: passages/s on ~200-token SciFact passages (first 150 words of each abstract),
candidates alternated per round, median of rounds. Quality: nDCG@10 of exact cosine search on a
SciFact subset (the documents relevant to the first train queries, filled up to ``--docs`` with
others; only queries whose relevant documents are all inside), each backend embedding both sides.

    PYTHONPATH=. .venv/bin/python bench/bench_embed.py [--passages 96] [--rounds 3] [--docs 1000]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402

from bench.common import SCIFACT, load_jsonl, median, table  # noqa: E402


def passages(corpus: list[dict[str, Any]], n: int, words: int = 150) -> list[str]:
    return [" ".join(f"{d.get('title', '')} {d['text']}".split()[:words]) for d in corpus[:n]]


def subset(docs: int) -> tuple[list[str], list[str], dict[str, str], dict[str, dict[str, int]]]:
    """(doc ids, doc texts, queries, qrels) for a SciFact subset of ``docs`` documents."""
    from docmill.eval.runner import load_beir

    beir = load_beir(SCIFACT, "train")
    corpus = {
        str(d["_id"]): f"{d.get('title', '')} {d['text']}" for d in load_jsonl(SCIFACT / "corpus.jsonl")
    }
    chosen: dict[str, None] = {}
    queries: dict[str, str] = {}
    for qid, text in beir.queries.items():
        relevant = [d for d in beir.qrels[qid] if d in corpus]
        if len(chosen) + len(set(relevant) - set(chosen)) > docs // 2:
            break
        chosen.update(dict.fromkeys(relevant))
        queries[qid] = text
    for doc_id in corpus:  # fill with documents no kept query is about: distractors
        if len(chosen) >= docs:
            break
        chosen.setdefault(doc_id, None)
    ids = list(chosen)
    return ids, [corpus[i] for i in ids], queries, {q: beir.qrels[q] for q in queries}


def ndcg(
    encode: Callable[[list[str]], np.ndarray],
    ids: list[str],
    texts: list[str],
    queries: dict[str, str],
    qrels: dict[str, dict[str, int]],
) -> float:
    from indexers.ranking.metrics import ndcg_at_k

    doc_vectors = encode(texts)
    query_vectors = encode(list(queries.values()))
    scores = query_vectors @ doc_vectors.T
    total = 0.0
    for row, qid in enumerate(queries):
        top = np.argsort(-scores[row])[:10]
        total += ndcg_at_k([ids[i] for i in top], qrels[qid], 10)
    return total / len(queries)


def torch_int8_encoder(path: str) -> Callable[[list[str]], np.ndarray]:
    """Another candidate: torch's dynamic int8 Linear layers (fbgemm), on one thread."""
    import torch
    from sentence_transformers import SentenceTransformer

    from indexers.dense.embedder import _torch_threads

    model = torch.ao.quantization.quantize_dynamic(
        SentenceTransformer(path, device="cpu"), {torch.nn.Linear}, dtype=torch.qint8
    )

    def encode(batch: list[str]) -> np.ndarray:
        with _torch_threads(1):
            vectors = model.encode(batch, batch_size=32, normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)

    return encode


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=96)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--docs", type=int, default=1000, help="SciFact subset size for nDCG@10 (0: skip)")
    args = parser.parse_args(argv)

    from sentence_transformers import SentenceTransformer

    from indexers.dense.embedder import Embedder, resolve_model

    path = resolve_model("all-MiniLM-L6-v2")
    plain = SentenceTransformer(path, device="cpu")
    texts = passages(load_jsonl(SCIFACT / "corpus.jsonl"), args.passages)
    tokens = np.mean([len(plain.tokenizer(t, truncation=True, max_length=256)["input_ids"]) for t in texts])

    def plain_encode(batch: list[str]) -> np.ndarray:
        return np.asarray(
            plain.encode(batch, batch_size=32, normalize_embeddings=True, show_progress_bar=False)
        )

    int8 = "docmill onnx-int8 (fused, s8 per-channel 7-bit)"
    embedders = {
        "docmill torch (default = ST.encode), 1 thread": Embedder(num_threads=1),
        "docmill onnx fp32 (fused), 1 thread": Embedder(backend="onnx", num_threads=1),
        "docmill onnx fp32 (fused), 2 threads": Embedder(backend="onnx", num_threads=2),
        f"{int8}, 1 thread": Embedder(backend="onnx-int8", num_threads=1),
        f"{int8}, 2 threads": Embedder(backend="onnx-int8", num_threads=2),
    }
    candidates: dict[str, Callable[[list[str]], np.ndarray]] = {"plain ST.encode (peer)": plain_encode}
    candidates.update({name: e.encode for name, e in embedders.items()})
    candidates["torch quantize_dynamic(Linear, qint8), 1 thread"] = torch_int8_encoder(path)
    reference = plain_encode(texts)
    for fn in candidates.values():
        fn(texts[:4])  # load + export off the clock
    rates: dict[str, list[float]] = {name: [] for name in candidates}
    for round_ in range(args.rounds):
        names = list(candidates) if round_ % 2 == 0 else list(candidates)[::-1]
        for name in names:
            started = time.perf_counter()
            candidates[name](texts)
            rates[name].append(len(texts) / (time.perf_counter() - started))
    cosines = {name: float((fn(texts) * reference).sum(axis=1).min()) for name, fn in candidates.items()}

    quality: dict[str, float] = {}
    if args.docs:
        ids, doc_texts, queries, qrels = subset(args.docs)
        quality["plain ST.encode (peer)"] = ndcg(plain_encode, ids, doc_texts, queries, qrels)
        # Vectors that differ from the peer's get their own nDCG (1-thread and 2-thread ONNX runs
        # of one model give the same vectors); the others equal the peer's.
        measured: dict[str, float] = {}
        for name, fn in candidates.items():
            if cosines[name] > 0.99999 or name in quality:
                continue
            key = name.rsplit(",", 1)[0]
            if key not in measured:
                measured[key] = ndcg(fn, ids, doc_texts, queries, qrels)
            quality[name] = measured[key]
    peer = median(rates["plain ST.encode (peer)"])
    rows = []
    for name in candidates:
        q = quality.get(name)
        if q is None and cosines[name] > 0.99999:
            q_text = "= peer (same vectors)"
        else:
            q_text = f"{q:.4f}" if q is not None else "-"
        rows.append((name, median(rates[name]), median(rates[name]) / peer, f"{cosines[name]:.5f}", q_text))
    header = (
        f"{len(texts)} SciFact passages, mean {tokens:.0f} word pieces; {args.rounds} rounds alternated; "
        f"plain ST.encode at torch's default {os.cpu_count()} threads, batch 32."
    )
    if args.docs:
        header += f" nDCG@10 on {len(ids)} docs / {len(queries)} queries."
    report = "\n".join(
        [header, "", table(["embedder", "passages/s", "x plain ST", "min cosine to ST", "nDCG@10"], rows)]
    )
    print(report)
    return report


if __name__ == "__main__":
    main()
