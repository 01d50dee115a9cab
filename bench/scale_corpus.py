"""Synthetic corpora for bench/bench_scale.py, fitted to real data and cached under
.docmill-cache/bench/scale/:

- chunk lengths: SciFact's BM25 token counts per document (our tokenizer), each document split
  into the pieces the prose chunker's 200-estimated-token cap makes of it (~CHUNK_TOKENS BM25
  tokens each), resampled;
- words: a Zipf-Mandelbrot law p(r) ~ (r + q) ** -a over up to VOCAB_MAX ranks, (a, q) fitted so a
  corpus of SciFact's size has SciFact's number of distinct terms and the share of tokens its 100
  and 1,000 most frequent terms take (a ~1.8, q ~256: the vocabulary keeps growing with the corpus
  as ~tokens ** (1 / a), Heaps' law with the exponent ~0.55 of real text).
  A rank's word is a pseudo-word ending in "x", which neither the stemmer nor the stopword list
  touch;
- vectors: a Gaussian mixture fitted to real all-MiniLM-L6-v2 vectors of SEED_PASSAGES passages
  (SciFact + CoSQA, embedded once with indexers.dense.embedder.Embedder): spherical k-means clusters, each
  sampled with its members' own covariance plus a little isotropic noise, then L2-normalised.
  Never uniform random vectors, which no ANN index is built for.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.common import BENCH_CACHE, SCIFACT, load_jsonl

CACHE = BENCH_CACHE / "scale"
RETRIEVAL = SCIFACT.parent
SEED_PASSAGES = {"scifact": 2400, "cosqa": 800}
SEED_FILE = "seed-minilm-3200.npy"
MIXTURE_CLUSTERS = 48
MIXTURE_NOISE = 0.005  # per dimension, before normalising: top-1/top-10 neighbour cosines as real
CHUNK_TOKENS = 122  # BM25 tokens in a full 200-estimated-token chunk of SciFact prose
VOCAB_MAX = 2**23
QUERY_TERMS = 6
CHUNKS_PER_FILE = 20


def seed_vectors() -> np.ndarray:
    """Real MiniLM vectors of the seed passages (cached; ~30 s to embed at ~100 passages/s)."""
    path = CACHE / SEED_FILE
    if path.is_file():
        return np.load(path)
    from indexers.dense.embedder import Embedder

    texts = []
    for name, count in SEED_PASSAGES.items():
        rows = load_jsonl(RETRIEVAL / name / "corpus.jsonl")
        pick = np.random.default_rng(3).choice(len(rows), count, replace=False)
        texts += [f"{rows[i].get('title', '')} {rows[i]['text']}".strip() for i in sorted(pick)]
    vectors = Embedder().encode(texts)
    CACHE.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors


@dataclass(frozen=True)
class TextModel:
    lengths: np.ndarray  # BM25 tokens per chunk, to resample
    zipf_a: float
    zipf_q: float
    scifact_tokens: int
    scifact_terms: int


def text_model() -> TextModel:
    path = CACHE / "text-model.json"
    if not path.is_file():
        CACHE.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(_fit_text()), encoding="utf-8")
    data = json.loads(path.read_text(encoding="utf-8"))
    return TextModel(
        np.asarray(data["lengths"], dtype=np.int32),
        data["zipf_a"],
        data["zipf_q"],
        data["scifact_tokens"],
        data["scifact_terms"],
    )


def _fit_text() -> dict:
    from collections import Counter

    from indexers.lexical.tokenize import Tokenizer

    tokenizer = Tokenizer()
    docs = [tokenizer(f"{r.get('title', '')} {r['text']}") for r in load_jsonl(SCIFACT / "corpus.jsonl")]
    lengths: list[int] = []
    for doc in docs:
        pieces = max(1, math.ceil(len(doc) / CHUNK_TOKENS))
        lengths += [len(p) for p in np.array_split(np.arange(len(doc)), pieces) if len(p)]
    counts = np.array(sorted(Counter(t for d in docs for t in d).values(), reverse=True), dtype=np.float64)
    total = float(counts.sum())
    target = np.log([len(counts), counts[:100].sum() / total, counts[:1000].sum() / total])
    best_a, best_q, best_gap = 0.0, 0.0, math.inf
    for a in np.arange(1.1, 2.5, 0.05):
        for q in (0, 8, 32, 64, 128, 256, 512, 1024, 2048):
            p = _probabilities(float(a), float(q))
            found = np.log([_expected_distinct(p, total), p[:100].sum(), p[:1000].sum()])
            gap = float(np.abs(found - target).sum())
            if gap < best_gap:
                best_a, best_q, best_gap = float(a), float(q), gap
    return {
        "lengths": lengths,
        "zipf_a": best_a,
        "zipf_q": best_q,
        "scifact_tokens": int(total),
        "scifact_terms": len(counts),
    }


def _probabilities(a: float, q: float) -> np.ndarray:
    weights = (np.arange(1, VOCAB_MAX + 1, dtype=np.float64) + q) ** -a
    return weights / weights.sum()


def _expected_distinct(probabilities: np.ndarray, tokens: float) -> float:
    return float((-np.expm1(-tokens * probabilities)).sum())


def word(rank: int) -> str:
    """Pseudo-word of a rank: base-26 letters (frequent ranks short, like real words) + "x"."""
    letters = []
    rank += 26  # at least two letters before the "x"
    while rank:
        rank, digit = divmod(rank, 26)
        letters.append(chr(97 + digit))
    return "".join(reversed(letters)) + "x"


@dataclass
class Corpus:
    """A generated corpus on disk: token ranks (one flat int32 array), chunk lengths, vectors,
    and held-out queries (token ranks and vectors from the same models)."""

    folder: Path

    @property
    def n(self) -> int:
        return int(np.load(self.folder / "lengths.npy", mmap_mode="r").shape[0])

    def lengths(self) -> np.ndarray:
        return np.load(self.folder / "lengths.npy")

    def tokens(self) -> np.ndarray:
        return np.load(self.folder / "tokens.npy", mmap_mode="r")

    def vectors(self) -> np.ndarray:
        return np.load(self.folder / "vectors.npy", mmap_mode="r")

    def query_vectors(self) -> np.ndarray:
        return np.load(self.folder / "query_vectors.npy")

    def query_tokens(self) -> np.ndarray:
        return np.load(self.folder / "query_tokens.npy")

    def vocabulary(self) -> dict[int, str]:
        """Word of every rank used (a dict: up to ~2M entries at 1M chunks)."""
        ranks = np.unique(np.concatenate([np.asarray(self.tokens()), self.query_tokens().ravel()]))
        return {int(r): word(int(r)) for r in ranks}

    def token_lists(self, vocabulary: dict[int, str]) -> list[list[str]]:
        """Each chunk's words; equal words are one str object, as a tokenizer's interned output."""
        lookup = np.array([vocabulary.get(r, "") for r in range(max(vocabulary) + 1)], dtype=object)
        flat = lookup[np.asarray(self.tokens())]
        bounds = np.concatenate([[0], np.cumsum(self.lengths(), dtype=np.int64)])
        return [flat[bounds[i] : bounds[i + 1]].tolist() for i in range(len(bounds) - 1)]

    def texts(self, vocabulary: dict[int, str]) -> list[str]:
        return [" ".join(words) for words in self.token_lists(vocabulary)]

    def query_words(self, vocabulary: dict[int, str]) -> list[list[str]]:
        return [[vocabulary[int(r)] for r in row] for row in self.query_tokens()]


def corpus(n: int, queries: int = 200, seed: int = 11) -> Corpus:
    """The ``n``-chunk corpus, generated once (~1 min per million chunks) and cached."""
    folder = CACHE / f"corpus-{n}"
    if (folder / "done").is_file():
        return Corpus(folder)
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    model = text_model()
    lengths = rng.choice(model.lengths, n).astype(np.int32)
    cdf = np.cumsum(_probabilities(model.zipf_a, model.zipf_q))
    tokens = np.empty(int(lengths.sum()), dtype=np.int32)
    step = 1 << 24
    for start in range(0, len(tokens), step):
        stop = min(start + step, len(tokens))
        tokens[start:stop] = np.minimum(np.searchsorted(cdf, rng.random(stop - start)), VOCAB_MAX - 1)
    np.save(folder / "tokens.npy", tokens)
    np.save(folder / "lengths.npy", lengths)
    # Queries: QUERY_TERMS words of a random chunk each (frequent words included, as in real queries).
    bounds = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)])
    rows = rng.choice(n, queries, replace=False)
    query_tokens = np.stack(
        [rng.choice(tokens[bounds[r] : bounds[r + 1]], QUERY_TERMS, replace=True) for r in rows]
    )
    np.save(folder / "query_tokens.npy", query_tokens)
    mixture = Mixture.fit(seed_vectors())
    vectors = np.lib.format.open_memmap(folder / "vectors.npy", "w+", np.float32, (n, mixture.dim))
    for start in range(0, n, 1 << 18):
        stop = min(start + (1 << 18), n)
        vectors[start:stop] = mixture.sample(stop - start, rng)
    vectors.flush()
    del vectors
    np.save(folder / "query_vectors.npy", mixture.sample(queries, rng))
    (folder / "done").write_text("ok\n")
    return Corpus(folder)


@dataclass(frozen=True)
class Mixture:
    """Gaussian mixture over the seed vectors' spherical k-means clusters; each component has its
    members' empirical covariance (sampled as mean + z @ centred members / sqrt(n - 1))."""

    members: tuple[np.ndarray, ...]
    weights: np.ndarray

    @property
    def dim(self) -> int:
        return int(self.members[0].shape[1])

    @classmethod
    def fit(cls, seed: np.ndarray, clusters: int = MIXTURE_CLUSTERS) -> Mixture:
        import faiss

        kmeans = faiss.Kmeans(seed.shape[1], clusters, niter=20, seed=0, spherical=True)
        kmeans.train(np.ascontiguousarray(seed, dtype=np.float32))
        _, assign = kmeans.index.search(np.ascontiguousarray(seed, dtype=np.float32), 1)
        groups = tuple(seed[assign[:, 0] == c] for c in range(clusters) if (assign[:, 0] == c).sum() > 1)
        sizes = np.array([len(g) for g in groups], dtype=np.float64)
        return cls(groups, sizes / sizes.sum())

    def sample(self, n: int, rng: np.random.Generator, noise: float = MIXTURE_NOISE) -> np.ndarray:
        which = rng.choice(len(self.members), n, p=self.weights)
        out = np.empty((n, self.dim), dtype=np.float32)
        for c, members in enumerate(self.members):
            rows = np.flatnonzero(which == c)
            if not len(rows):
                continue
            mean = members.mean(axis=0)
            spread = (members - mean) / math.sqrt(len(members) - 1)
            z = rng.standard_normal((len(rows), len(members)), dtype=np.float32)
            out[rows] = (
                mean + z @ spread + noise * rng.standard_normal((len(rows), self.dim), dtype=np.float32)
            )
        out /= np.linalg.norm(out, axis=1, keepdims=True)
        return out
