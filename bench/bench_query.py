"""Hybrid query latency on SciFact: docmill vs LangChain's EnsembleRetriever and LlamaIndex's
QueryFusionRetriever, same model, same run.

docmill: ``open_index(...).search(q, k=10, mode="hybrid")`` with its defaults (fetch_k=100 per
retriever, RRF, abstain check), query-embedding cache off so every query is embedded. LangChain:
EnsembleRetriever(BM25Retriever (rank_bm25), FAISS vectorstore (flat L2 over the same normalised
vectors as our index, so no re-embedding), weights 0.5/0.5), HuggingFaceEmbeddings over the same
MiniLM folder. LlamaIndex: QueryFusionRetriever(BM25Retriever (llama_index.retrievers.bm25, bm25s),
VectorStoreIndex retriever (default SimpleVectorStore, nodes inserted with the index's precomputed
vectors), num_queries=1 so no query generation, MockLLM, reciprocal_rerank, use_async=False,
similarity_top_k=10), query embedding through a BaseEmbedding over SentenceTransformer on the same
MiniLM folder. The three calls alternate per query. Also: single-query embedding under torch 1 vs 2
threads.

    PYTHONPATH=. .venv/bin/python bench/bench_query.py [--queries 200] [--index DIR]
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


from bench.common import REPO, SCIFACT, interleaved, median, percentile, table  # noqa: E402
from indexers.build.files import CURRENT  # noqa: E402


def scifact_index(index: Path | None) -> Path:
    """``index``, else the newest built SciFact index in the eval cache (what `docmill eval` keeps
    current; a build for an older config differs in chunking/fusion details, not in what a query
    costs), else one built now through ``ensure_index`` (~20-40 min of embedding here)."""
    from docmill.eval.runner import DEFAULT_CACHE, ensure_index, load_beir
    from indexers.build.store import IndexStore

    if index is not None:
        return index
    cache = REPO / DEFAULT_CACHE
    built = [p for p in cache.glob("scifact-*") if IndexStore(p).current_name() is not None]
    if built:
        return max(built, key=lambda p: (p / CURRENT).stat().st_mtime)
    return ensure_index(load_beir(SCIFACT, "train"), cache)


def langchain_peer(index: Any, model_path: str) -> Any:
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    from langchain_classic.retrievers import EnsembleRetriever
    from langchain_community.retrievers import BM25Retriever
    from langchain_community.vectorstores import FAISS
    from langchain_huggingface import HuggingFaceEmbeddings

    texts = [chunk.index_text for chunk in index.chunks.all()]
    vectors = index.embeddings()
    embeddings = HuggingFaceEmbeddings(model=model_path, encode_kwargs={"normalize_embeddings": True})
    store = FAISS.from_embeddings(list(zip(texts, vectors.tolist(), strict=True)), embeddings)
    bm25 = BM25Retriever.from_texts(texts, k=10)
    return EnsembleRetriever(
        retrievers=[bm25, store.as_retriever(search_kwargs={"k": 10})], weights=[0.5, 0.5]
    )


def llamaindex_peer(index: Any, model_path: str) -> Any:
    """QueryFusionRetriever over BM25Retriever + VectorStoreIndex retriever on the index's chunks.

    Nodes carry the index's own (normalised) vectors, so nothing is re-embedded; only queries go
    through the embedding model. num_queries=1 means the LLM is never called (MockLLM stands in so
    the retriever does not try to resolve a default OpenAI LLM)."""
    from llama_index.core import VectorStoreIndex
    from llama_index.core.base.embeddings.base import BaseEmbedding
    from llama_index.core.llms import MockLLM
    from llama_index.core.retrievers import QueryFusionRetriever
    from llama_index.core.schema import TextNode
    from llama_index.retrievers.bm25 import BM25Retriever
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(model_path, device="cpu")

    class MiniLMEmbedding(BaseEmbedding):
        def _embed(self, texts: list[str]) -> list[list[float]]:
            vectors = model.encode(texts, normalize_embeddings=True, show_progress_bar=False)
            return vectors.tolist()

        def _get_query_embedding(self, query: str) -> list[float]:
            return self._embed([query])[0]

        def _get_text_embedding(self, text: str) -> list[float]:
            return self._embed([text])[0]

        def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return self._embed(texts)

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._get_query_embedding(query)

    vectors = index.embeddings()
    nodes = [
        TextNode(text=chunk.index_text, id_=str(i), embedding=vector.tolist())
        for i, (chunk, vector) in enumerate(zip(index.chunks.all(), vectors, strict=True))
    ]
    embed_model = MiniLMEmbedding(model_name="all-MiniLM-L6-v2", embed_batch_size=32)
    vector_index = VectorStoreIndex(nodes, embed_model=embed_model)
    bm25 = BM25Retriever.from_defaults(nodes=nodes, similarity_top_k=10)
    return QueryFusionRetriever(
        [bm25, vector_index.as_retriever(similarity_top_k=10)],
        llm=MockLLM(),
        mode="reciprocal_rerank",
        similarity_top_k=10,
        num_queries=1,
        use_async=False,
    )


def thread_study(queries: list[str], model_path: str) -> str:
    """Single-query embedding: plain ST.encode at torch 1 and 2 threads vs docmill's query paths."""
    import torch
    from sentence_transformers import SentenceTransformer

    from indexers.dense.embedder import Embedder

    st = SentenceTransformer(model_path, device="cpu")
    onnx1 = Embedder(query_cache_size=0)
    onnx2 = Embedder(query_cache_size=0, query_threads=2)
    torch1 = Embedder(query_cache_size=0)
    torch1._query_path = "torch"  # the fallback used without the onnx package
    for e in (onnx1, onnx2):
        e.encode_query("warm up")

    def st_at(threads: int) -> Any:
        def run(q: str) -> Any:
            torch.set_num_threads(threads)
            return st.encode([q], normalize_embeddings=True, show_progress_bar=False)

        return run

    candidates = {
        "ST.encode, torch 2 threads (peer)": st_at(2),
        "ST.encode, torch 1 thread": st_at(1),
        "docmill torch path, 1 thread": torch1.encode_query,
        "docmill ONNX path, 1 thread (default)": onnx1.encode_query,
        "docmill ONNX path, 2 threads": onnx2.encode_query,
    }
    for fn in candidates.values():
        fn(queries[0])
    samples = interleaved(candidates, queries)
    peer = median(samples["ST.encode, torch 2 threads (peer)"])
    rows = [(name, median(ms), percentile(ms, 95), peer / median(ms)) for name, ms in samples.items()]
    return table(["single-query embedding", "p50 ms", "p95 ms", "speed-up vs peer p50"], rows)


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=200, help="SciFact train queries timed (of 809)")
    parser.add_argument("--index", type=Path, default=None)
    args = parser.parse_args(argv)

    import docmill
    from docmill.eval.runner import load_beir
    from indexers.dense.embedder import Embedder, resolve_model, search_faiss

    model_path = resolve_model("all-MiniLM-L6-v2")
    queries = list(load_beir(SCIFACT, "train").queries.values())[: args.queries]
    path = scifact_index(args.index)
    embedder = Embedder(query_cache_size=0)
    index = docmill.open_index(path, embedder=embedder)
    peer = langchain_peer(index, model_path)
    llama = llamaindex_peer(index, model_path)
    index.search(queries[0], k=10)  # model load + ONNX export/session off the clock
    peer.invoke(queries[0])
    llama.retrieve(queries[0])

    samples = interleaved(
        {
            "docmill": lambda q: index.search(q, k=10, mode="hybrid"),
            "langchain": peer.invoke,
            "llamaindex": llama.retrieve,
        },
        queries,
    )
    probe = embedder.encode_query(queries[0])
    parts = interleaved(
        {
            "embed": embedder.encode_query,
            "bm25": lambda q: index._bm25(q, 100, None),
            "faiss": lambda q: search_faiss(index._faiss, probe, 100),
        },
        queries,
    )
    cached = Embedder()  # the default: an LRU cache of recent queries
    cached_index = docmill.open_index(path, embedder=cached)
    for q in queries:
        cached_index.search(q, k=10)
    repeat = interleaved({"docmill, repeated query": lambda q: cached_index.search(q, k=10)}, queries)

    lc50, lc95 = median(samples["langchain"]), percentile(samples["langchain"], 95)
    li50, li95 = median(samples["llamaindex"]), percentile(samples["llamaindex"], 95)
    dm50, rp50 = median(samples["docmill"]), median(repeat["docmill, repeated query"])
    rows = [
        (
            "docmill hybrid (fetch_k=100, RRF, abstain check)",
            dm50,
            percentile(samples["docmill"], 95),
            lc50 / dm50,
            li50 / dm50,
        ),
        (
            "docmill hybrid, repeated query (LRU hit)",
            rp50,
            percentile(repeat["docmill, repeated query"], 95),
            lc50 / rp50,
            li50 / rp50,
        ),
        ("LangChain EnsembleRetriever (BM25Retriever + FAISS, k=10) (peer)", lc50, lc95, 1.0, li50 / lc50),
        (
            "LlamaIndex QueryFusionRetriever (BM25Retriever + VectorStoreIndex, RRF, k=10) (peer)",
            li50,
            li95,
            lc50 / li50,
            1.0,
        ),
    ]
    out = [
        f"SciFact index {path.name}: {len(index)} chunks; {len(queries)} train queries, "
        f"docmill, LangChain and LlamaIndex alternated per query; "
        f"docmill query path: {embedder.query_path}.",
        "",
        table(
            ["hybrid query", "p50 ms", "p95 ms", "speed-up vs LangChain p50", "speed-up vs LlamaIndex p50"],
            rows,
        ),
        "",
        "docmill's parts (medians): "
        + ", ".join(f"{name} {median(ms):.2f} ms" for name, ms in parts.items()),
        "",
        thread_study(queries[:100], model_path),
    ]
    report = "\n".join(out)
    print(report)
    return report


if __name__ == "__main__":
    main()
