"""Which FAISS index a build's vectors get, chosen by corpus size: exact (flat) search while it is
fast enough, an approximate index above that, recorded in the manifest and checked on load.

    flat  IndexFlatIP                exact; the default below FLAT_MAX_VECTORS (30k)
    hnsw  IndexHNSWFlat, inner prod  graph search; no remove_ids (rows are masked with a selector)
    ivf   IndexIVFFlat, inner prod   k-means cells; supports remove_ids
    ivfpq IndexIVFPQ, inner prod     k-means cells of 48-byte codes, candidates re-scored with the
                                     exact vectors (indexers/dense/ivfpq.py); for large shards

Vectors are L2-normalised, so inner product is cosine and HNSW/IVF rank exactly as flat would on
the rows they visit. ``probe`` is how much of an approximate index one query explores (HNSW
efSearch, IVF nprobe); the build stores a default tuned for recall@10 >= 0.95 against flat at 1M
vectors, and a query may ask for more (or less).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

KINDS = ("flat", "hnsw", "ivf", "ivfpq")
CHOICES = ("auto", *KINDS)
# Below this many vectors flat search is the default. One flat query on one core here costs ~0.07 ms
# per 1,000 vectors (1.4 ms at 20k, 10 ms at 100k, 120 ms at 1M), HNSW ~0.2-1 ms at any of these
# sizes with recall@10 1.00 up to 100k, and building the graph costs ~0.4-1 ms per vector, a small
# fraction of embedding it (10-90 ms here). At 30k flat is ~2 ms, a fifth of the hybrid query's 10 ms
# budget: above that the graph pays (bench/bench_scale.py --sweep, bench/RESULTS.md).
FLAT_MAX_VECTORS = 30_000
# What "auto" picks above FLAT_MAX_VECTORS: HNSW answers in ~1 ms at 1M where IVF scans thousands
# of vectors per cell probed, and needs no training; it cannot remove_ids, which docmill never
# needs (deleted rows are masked with a selector).
AUTO_ANN = "hnsw"
# HNSW: graph degree and build breadth; efSearch (the default probe) measured at 1M mixture
# vectors (bench/bench_scale.py): recall@10 vs flat 0.879 at 32, 0.953 at 64, 0.988 at 128
# (1.1 ms), 0.994 at 256 (1.9 ms). 128 keeps a margin over the 0.95 goal.
HNSW_M = 32
HNSW_EF_CONSTRUCTION = 80
HNSW_EF_SEARCH = 128
# IVF: ~4 sqrt(N) cells (a power of two), trained on at most IVF_TRAIN_PER_CELL vectors per cell.
IVF_TRAIN_PER_CELL = 64
IVF_NPROBE_SHARE = 1 / 64  # default nprobe: this share of the cells, at least IVF_MIN_NPROBE
IVF_MIN_NPROBE = 16
# IVF-PQ: IVF's cells, a wider default probe (scanning codes is cheap), and refine x k candidates
# re-scored with the exact vectors. Mixture vectors, 2048 cells, 48-byte codes (bench/bench_scale.py
# --ivfpq 200000,500000; docs/SCALING.md): recall@10 vs flat at nprobe 16 / 32 / 64 / 128 (refine
# 10) 0.91 / 0.97 / 0.98 / 0.99 at 200k, 0.91 / 0.96 / 0.97 / 0.97 at 500k; at nprobe 64 and refine
# 1 / 3 / 10 / 30: 0.57 / 0.87 / 0.98 / 0.994 at 200k, 0.53 / 0.81 / 0.97 / 0.994 at 500k (p50 0.66
# / 0.78 ms at refine 30). Past nprobe 64 the codes' candidate list limits recall, and it shrinks as
# N grows at refine 10, so the default re-scores 30 x k rows (450 KB of exact vectors per query).
IVFPQ_NPROBE_SHARE = 1 / 32
IVFPQ_MIN_NPROBE = 32
IVFPQ_REFINE = 30
MANIFEST_KEY = "vectors"
# A filter that keeps at most this share of the rows is searched exactly (over the allowed rows
# only): a graph walk would visit mostly rows it must skip, and the exact scan is a bitmap check
# per row plus one dot product per allowed row (~1-2 ms at 1M rows).
EXACT_FILTER_SHARE = 0.01


class VectorIndexMismatch(ValueError):
    """The vector index file is not what the manifest says was built: rebuild the index."""


@dataclass(frozen=True)
class VectorIndexSpec:
    """What to build (or what was built): a kind and its parameters. ``probe`` is the default
    per-query breadth (efSearch or nprobe; 0 for flat). ``requested`` is what the caller asked
    for ("auto" or a kind), kept so a re-ingest can tell whether the setting changed."""

    kind: str
    requested: str = "auto"
    m: int = 0
    ef_construction: int = 0
    nlist: int = 0
    probe: int = 0
    pq_m: int = 0
    refine: int = 0

    def __post_init__(self) -> None:
        check_choice(self.kind, KINDS)
        check_choice(self.requested, CHOICES)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "requested": self.requested}
        if self.kind == "hnsw":
            out.update(M=self.m, ef_construction=self.ef_construction, ef_search=self.probe)
        elif self.kind == "ivf":
            out.update(nlist=self.nlist, nprobe=self.probe)
        elif self.kind == "ivfpq":
            out.update(nlist=self.nlist, nprobe=self.probe, pq_m=self.pq_m, refine=self.refine)
        return out

    @classmethod
    def from_json(cls, values: Mapping[str, Any] | None) -> VectorIndexSpec:
        """The manifest entry; a build from before this entry existed was always flat."""
        if not values:
            return cls("flat", requested="flat")
        kind = str(values.get("kind"))
        check_choice(kind, KINDS)
        return cls(
            kind,
            requested=str(values.get("requested", kind)),
            m=int(values.get("M", 0)),
            ef_construction=int(values.get("ef_construction", 0)),
            nlist=int(values.get("nlist", 0)),
            probe=int(values.get("ef_search", values.get("nprobe", 0))),
            pq_m=int(values.get("pq_m", 0)),
            refine=int(values.get("refine", 0)),
        )


def check_choice(value: str, choices: tuple[str, ...] = CHOICES) -> str:
    if value not in choices:
        raise ValueError(f"unknown vector index {value!r}; expected one of: {', '.join(choices)}")
    return value


def choose(n_vectors: int, requested: str = "auto", dim: int = 384) -> VectorIndexSpec:
    """The index for ``n_vectors`` rows of ``dim`` dimensions: ``requested`` when it names a kind,
    else by size. IVF-PQ below ``ivfpq.MIN_VECTORS`` rows is flat (too few to train its codes)."""
    from indexers.dense import ivfpq

    check_choice(requested)
    kind = requested
    if requested == "auto":
        kind = "flat" if n_vectors < FLAT_MAX_VECTORS else AUTO_ANN
    if kind == "ivfpq" and n_vectors >= ivfpq.MIN_VECTORS:
        nlist = ivf_cells(n_vectors)
        nprobe = min(nlist, max(IVFPQ_MIN_NPROBE, round(nlist * IVFPQ_NPROBE_SHARE)))
        return VectorIndexSpec(
            "ivfpq",
            requested,
            nlist=nlist,
            probe=nprobe,
            pq_m=ivfpq.pq_subquantizers(dim),
            refine=IVFPQ_REFINE,
        )
    if kind == "hnsw":
        return VectorIndexSpec(
            "hnsw", requested, m=HNSW_M, ef_construction=HNSW_EF_CONSTRUCTION, probe=HNSW_EF_SEARCH
        )
    if kind == "ivf":
        nlist = ivf_cells(n_vectors)
        nprobe = min(nlist, max(IVF_MIN_NPROBE, round(nlist * IVF_NPROBE_SHARE)))
        return VectorIndexSpec("ivf", requested, nlist=nlist, probe=nprobe)
    return VectorIndexSpec("flat", requested)


def ivf_cells(n_vectors: int) -> int:
    """~4 sqrt(N) cells rounded to a power of two, and at most N / 39 (FAISS wants >= 39 training
    vectors per cell), at least 1."""
    if n_vectors < 39:
        return 1
    target = 4 * math.sqrt(n_vectors)
    cells = 2 ** round(math.log2(target))
    return max(1, min(cells, n_vectors // 39))


def build(vectors: np.ndarray, spec: VectorIndexSpec, seed: int = 1234) -> Any:
    """A FAISS index of ``spec``'s kind over ``vectors`` (float32, L2-normalised rows), ids = rows."""
    import faiss

    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    dim = vectors.shape[1]
    index: Any
    quantizer: Any
    if spec.kind == "hnsw":
        index = faiss.IndexHNSWFlat(dim, spec.m, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = spec.ef_construction
        index.hnsw.efSearch = spec.probe
    elif spec.kind == "ivf":
        quantizer = faiss.IndexFlatIP(dim)
        index = faiss.IndexIVFFlat(quantizer, dim, spec.nlist, faiss.METRIC_INNER_PRODUCT)
        index.cp.seed = seed
        sample = _training_sample(vectors, spec.nlist * IVF_TRAIN_PER_CELL, seed)
        index.train(sample)
        index.nprobe = spec.probe
        # The quantizer belongs to the index from here on (else Python may free it first).
        index.own_fields = True
        quantizer.this.disown()
    elif spec.kind == "ivfpq":
        from indexers.dense import ivfpq

        size = max(spec.nlist * IVF_TRAIN_PER_CELL, 2**ivfpq.PQ_BITS * ivfpq.PQ_TRAIN_PER_CENTROID)
        sample = _training_sample(vectors, size, seed)
        return ivfpq.build_ivfpq(vectors, spec.nlist, spec.pq_m, spec.probe, sample, seed)
    else:
        index = faiss.IndexFlatIP(dim)
    if len(vectors):
        index.add(vectors)
    return index


def _training_sample(vectors: np.ndarray, size: int, seed: int) -> np.ndarray:
    if len(vectors) <= size:
        return vectors
    rows = np.sort(np.random.default_rng(seed).choice(len(vectors), size, replace=False))
    return vectors[rows]


def describe(index: Any) -> VectorIndexSpec:
    """What a loaded FAISS index is, as a spec (``requested`` unknown: set to its kind)."""
    import faiss

    from indexers.dense.ivfpq import RerankedIVFPQ

    refine = index.refine if isinstance(index, RerankedIVFPQ) else 0
    index = faiss.downcast_index(index.index if isinstance(index, RerankedIVFPQ) else index)
    if isinstance(index, faiss.IndexIVFPQ):
        return VectorIndexSpec(
            "ivfpq",
            "ivfpq",
            nlist=int(index.nlist),
            probe=int(index.nprobe),
            pq_m=int(index.pq.M),
            refine=refine,
        )
    if isinstance(index, faiss.IndexHNSWFlat):
        hnsw = index.hnsw
        m = int(hnsw.nb_neighbors(1))  # type: ignore[attr-defined]  # stub lacks it  # level 1 holds M links (level 0 holds 2M)
        return VectorIndexSpec(
            "hnsw", "hnsw", m=m, ef_construction=int(hnsw.efConstruction), probe=int(hnsw.efSearch)
        )
    if isinstance(index, faiss.IndexIVFFlat):
        return VectorIndexSpec("ivf", "ivf", nlist=int(index.nlist), probe=int(index.nprobe))
    if isinstance(index, faiss.IndexFlat):
        return VectorIndexSpec("flat", "flat")
    raise VectorIndexMismatch(f"unsupported FAISS index type {type(index).__name__}")


def check(index: Any, expected: VectorIndexSpec, where: str = "vectors.faiss") -> None:
    """Raise VectorIndexMismatch unless ``index`` is the kind (and build parameters) ``expected``
    records; then set its default probe from ``expected`` (the manifest is the setting)."""
    found = describe(index)
    mismatch = (
        found.kind != expected.kind
        or (found.kind == "hnsw" and found.m != expected.m)
        or (found.kind in ("ivf", "ivfpq") and found.nlist != expected.nlist)
        or (found.kind == "ivfpq" and found.pq_m != expected.pq_m)
    )
    if mismatch:
        raise VectorIndexMismatch(
            f"{where} is a {found.kind} index {found.to_json()}, but the manifest records "
            f"{expected.to_json()}: the files do not belong together; rebuild the index"
        )
    if expected.probe:
        set_probe(index, expected.probe)


def set_probe(index: Any, probe: int) -> None:
    import faiss

    index = faiss.downcast_index(index)
    if isinstance(index, faiss.IndexHNSWFlat):
        index.hnsw.efSearch = probe
    elif isinstance(index, (faiss.IndexIVFFlat, faiss.IndexIVFPQ)):
        index.nprobe = min(probe, index.nlist)


def search_parameters(index: Any, probe: int | None, k: int, selector: Any | None) -> Any:
    """FAISS per-call parameters for ``index``: its probe (``probe`` or the index's default, never
    below ``k`` for HNSW) and the row selector, without touching the shared index object."""
    import faiss

    concrete = faiss.downcast_index(index)
    if isinstance(concrete, faiss.IndexHNSWFlat):
        ef = max(probe if probe is not None else int(concrete.hnsw.efSearch), k)
        params: Any = faiss.SearchParametersHNSW()  # type: ignore[attr-defined]  # stub lacks it
        params.efSearch = ef
    elif isinstance(concrete, faiss.IndexIVF):
        params = faiss.SearchParametersIVF()
        params.nprobe = min(probe if probe is not None else int(concrete.nprobe), int(concrete.nlist))
    else:
        params = faiss.SearchParameters()
    if selector is not None:
        params.sel = selector
    return params


def exact_parameters(index: Any, selector: Any | None) -> tuple[Any, Any]:
    """(index, params) that search ``index``'s rows exhaustively, for a filter too narrow for the
    approximate search to find k allowed rows: HNSW's flat storage, or IVF with every cell."""
    import faiss

    concrete = faiss.downcast_index(index)
    if isinstance(concrete, faiss.IndexHNSWFlat):
        target, params = faiss.downcast_index(concrete.storage), faiss.SearchParameters()
    elif isinstance(concrete, faiss.IndexIVF):
        target, params = concrete, faiss.SearchParametersIVF()
        params.nprobe = int(concrete.nlist)
    else:
        target, params = concrete, faiss.SearchParameters()
    if selector is not None:
        params.sel = selector
    return target, params


def narrow_filter(allowed: int, total: int, k: int) -> bool:
    """Whether a filter keeping ``allowed`` of ``total`` rows is searched exactly."""
    return allowed <= max(k, int(total * EXACT_FILTER_SHARE))


def with_exact_vectors(index: Any, spec: VectorIndexSpec, load_vectors: Callable[[], np.ndarray]) -> Any:
    """``index`` ready to search: an IVF-PQ index paired with its exact vectors (``load_vectors()``,
    e.g. the segment's embeddings.npy memory-mapped) to re-score candidates; any other as it is."""
    if spec.kind != "ivfpq":
        return index
    from indexers.dense.ivfpq import RerankedIVFPQ

    return RerankedIVFPQ(index, load_vectors(), spec.refine or IVFPQ_REFINE)


def is_approximate(index: Any) -> bool:
    import faiss

    return not isinstance(faiss.downcast_index(index), faiss.IndexFlat)
