"""Export a sentence-transformers encoder to ONNX (and int8) once, cached on disk, for the
Embedder's ONNX Runtime paths. Needs the ``onnx`` package only to export or quantize; a cached
export is reused without it.

The export traces the encoder with eager attention (the SDPA trace's NaN-guarded mask hides the
attention pattern from ONNX Runtime's fusions), then ONNX Runtime's BERT optimizer fuses it into
Attention, SkipLayerNormalization, BiasGelu and EmbedLayerNormalization operators. int8 quantizes
that fused graph's weights (bench/bench_embed.py has the numbers). Every step is offline and
deterministic for given torch / onnxruntime versions, which are part of the cache key."""

from __future__ import annotations

import hashlib
import json
import os
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ONNX_FORMAT = 2  # bump to invalidate cached exports
ONNX_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def encoder_of(model: Any) -> Any:
    """The Hugging Face encoder inside a SentenceTransformer whose pipeline is Transformer ->
    mean Pooling (-> Normalize); anything else has no fast path (ValueError)."""
    modules = list(model)
    names = [type(m).__name__ for m in modules]
    if names[:2] != ["Transformer", "Pooling"] or any(n != "Normalize" for n in names[2:]):
        raise ValueError(f"no fast path for a {' -> '.join(names)} model")
    config = modules[1].get_config_dict()
    if config.get("pooling_mode", "mean") != "mean" and not config.get("pooling_mode_mean_tokens"):
        raise ValueError(f"no fast path for pooling {config}")
    return modules[0].auto_model


def cache_dir() -> Path:
    """Where exported ONNX models are kept: $DOCMILL_CACHE_DIR or ~/.cache/docmill."""
    return Path(os.environ.get("DOCMILL_CACHE_DIR") or Path.home() / ".cache" / "docmill")


def onnx_model(model: Any, model_path: str, int8: bool = False) -> Path:
    """The model exported to ONNX (and int8-quantized when ``int8``), cached under ``cache_dir()``
    keyed by the model folder, its files' sizes and mtimes, and the torch and onnxruntime versions.
    Needs the ``onnx`` package only to export; a cached export is reused without it."""
    import onnxruntime
    import torch

    folder = Path(model_path)
    stamp = [
        (p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(folder.glob("*")) if p.is_file()
    ]
    versions = [torch.__version__, onnxruntime.__version__, ONNX_FORMAT]
    digest = hashlib.sha256(json.dumps([str(folder), stamp, *versions]).encode())
    target = cache_dir() / "onnx" / digest.hexdigest()[:16]
    fp32, quantized = target / "model.onnx", target / "model-int8.onnx"
    if not fp32.is_file():
        target.mkdir(parents=True, exist_ok=True)
        _atomic_write(fp32, lambda tmp: _export_fused(encoder_of(model), tmp))
    if int8 and not quantized.is_file():
        _atomic_write(quantized, lambda tmp: _quantize(fp32, tmp))
    return quantized if int8 else fp32


def _export_fused(encoder: Any, path: Path) -> None:
    """Trace with eager attention, then fuse with ONNX Runtime's BERT optimizer (graph rewrites
    only, no hardware-specific kernels baked in: opt_level 0)."""
    from onnxruntime.transformers.optimizer import optimize_model

    raw = path.with_name(f"{path.name}.raw")
    try:
        with _eager_attention(encoder):
            _export_onnx(encoder, raw)
        config = encoder.config
        fused = optimize_model(
            str(raw),
            model_type="bert",
            num_heads=config.num_attention_heads,
            hidden_size=config.hidden_size,
            opt_level=0,
            use_gpu=False,
        )
        fused.save_model_to_file(str(path))
    finally:
        raw.unlink(missing_ok=True)


def _quantize(fp32: Path, path: Path) -> None:
    """Dynamic int8 weights of the fused graph's MatMul and Attention operators (the embedding
    tables stay float: a gather costs nothing and quantizing it only loses accuracy). Per-channel:
    per-tensor moved MiniLM vectors to cosine 0.90 of the reference. reduce_range (7-bit weights):
    on AVX2 without VNNI full-range s8 weights ran at 0.70x the speed (MLAS must avoid the u8s8
    pmaddubsw overflow); s8 vs u8 weights: same cosine (0.989), s8 1.07x faster."""
    from onnx import TensorProto
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(
        str(fp32),
        str(path),
        weight_type=QuantType.QInt8,
        per_channel=True,
        reduce_range=True,
        op_types_to_quantize=["MatMul", "Attention"],
        # The fused operators (com.microsoft domain) have no shape inference in onnx.
        extra_options={"DefaultTensorType": TensorProto.FLOAT},
    )


@contextmanager
def _eager_attention(encoder: Any) -> Iterator[None]:
    """Switch a Hugging Face model to eager attention for one export and put the caller's back
    (the same model serves the torch path)."""
    before = getattr(encoder.config, "_attn_implementation", None)
    setter = getattr(encoder, "set_attn_implementation", None)
    if setter is None or before in (None, "eager"):
        yield
        return
    setter("eager")
    try:
        yield
    finally:
        setter(before)


def _atomic_write(path: Path, write: Callable[[Path], Any]) -> None:
    """Write through a temporary name and os.replace, so concurrent processes never read half a file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _export_onnx(encoder: Any, path: Path) -> None:
    import torch

    class LastHiddenState(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    example = torch.ones((2, 8), dtype=torch.int64)
    axes = {name: {0: "batch", 1: "tokens"} for name in (*ONNX_INPUTS, "last_hidden_state")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            LastHiddenState(encoder).eval(),
            (example, example, torch.zeros_like(example)),
            str(path),
            input_names=list(ONNX_INPUTS),
            output_names=["last_hidden_state"],
            dynamic_axes=axes,
            opset_version=17,
            dynamo=False,
        )
