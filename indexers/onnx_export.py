"""Export a sentence-transformers encoder to ONNX (and int8) once, cached on disk, for the
Embedder's ONNX Runtime paths. Needs the ``onnx`` package only to export or quantize; a cached
export is reused without it."""

from __future__ import annotations

import hashlib
import json
import os
import threading
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

ONNX_FORMAT = 1  # bump to invalidate cached exports
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
    keyed by the model folder, its files' sizes and mtimes, and the torch version. Needs the
    ``onnx`` package only to export; a cached export is reused without it."""
    import torch

    folder = Path(model_path)
    stamp = [
        (p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(folder.glob("*")) if p.is_file()
    ]
    digest = hashlib.sha256(json.dumps([str(folder), stamp, torch.__version__, ONNX_FORMAT]).encode())
    target = cache_dir() / "onnx" / digest.hexdigest()[:16]
    fp32, quantized = target / "model.onnx", target / "model-int8.onnx"
    if not fp32.is_file():
        target.mkdir(parents=True, exist_ok=True)
        _atomic_write(fp32, lambda tmp: _export_onnx(encoder_of(model), tmp))
    if int8 and not quantized.is_file():
        from onnxruntime.quantization import QuantType, quantize_dynamic

        # Per-channel weights: per-tensor int8 moved MiniLM vectors to cosine 0.90 of the reference.
        _atomic_write(
            quantized,
            lambda tmp: quantize_dynamic(str(fp32), str(tmp), weight_type=QuantType.QInt8, per_channel=True),
        )
    return quantized if int8 else fp32


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
