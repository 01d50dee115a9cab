"""OCR of scanned pages with RapidOCR (bundled default ONNX models), orientation-aware.

RapidOCR's per-line classifier only flips single lines, so a page scanned upside down comes back
with its lines in reverse order, and a page on its side with vertical boxes. We fix the page
instead: detect boxes on a small render, decide the page orientation (vertical boxes -> 90 or 270;
which of the two, or 0 vs 180, by recognising a few line crops both ways and keeping the more
confident reading), rotate the full render upright, OCR it once without the line classifier, and
hand the line boxes to parsers.layout for column-aware reading order.

The engine is created once per process, on first use (model load is ~0.1 s, but onnxruntime
import is not free and the query side never needs it).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from parsers.layout import Segment

_ENGINE: Any = None
_ENGINE_LOCK = threading.Lock()
_PROBE_DPI = 100  # orientation probe: enough for 10 pt text to be legible to the recogniser
_PROBE_LINES = 6


def engine() -> Any:
    """The process-wide RapidOCR engine (default bundled models only: others would download)."""
    global _ENGINE
    with _ENGINE_LOCK:
        if _ENGINE is None:
            from rapidocr import RapidOCR

            _ENGINE = RapidOCR(params={"Global.log_level": "error"})
    return _ENGINE


def render_scale(width_pt: float, height_pt: float, dpi: float, max_pixels: int | None) -> float:
    """Pixels per PDF point for a render at ``dpi``, lowered so that the bitmap has at most
    ``max_pixels`` pixels (a 200 x 200 inch page at 200 dpi would be 1.6 G pixels, 6.4 GB RGBA)."""
    scale = dpi / 72.0
    area = max(width_pt, 1.0) * max(height_pt, 1.0)
    if max_pixels is not None and area * scale * scale > max_pixels:
        scale = (max_pixels / area) ** 0.5
    return scale


def ocr_page(
    pdf_data: bytes, page_index: int, dpi: int, max_pixels: int | None = None
) -> tuple[list[Segment], dict[str, Any]]:
    """Line segments (PDF points, top-down, with their scores) of page ``page_index`` (0-based)
    and page metadata {"ocr": True, "confidence": mean line score, "rotation": degrees turned};
    "render_dpi" is added when ``max_pixels`` forced a lower resolution than ``dpi``."""
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(pdf_data)
    try:
        pdf_page = document[page_index]
        width_pt, height_pt = pdf_page.get_size()
        probe = _render(pdf_page, render_scale(width_pt, height_pt, _PROBE_DPI, max_pixels))
        rotation = detect_rotation(probe)
        render = render_scale(width_pt, height_pt, dpi, max_pixels)
        image = _render(pdf_page, render)
    finally:
        document.close()
    image = np.ascontiguousarray(np.rot90(image, k=rotation // 90)) if rotation else image
    lines = read_lines(image)
    scale = 1.0 / render
    segments = [
        Segment(
            text,
            x0 * scale,
            top * scale,
            x1 * scale,
            bottom * scale,
            (bottom - top) * scale * 0.8,
            False,
            score,
        )
        for text, (x0, top, x1, bottom), score in lines
    ]
    scores = [score for _, _, score in lines]
    info: dict[str, Any] = {
        "ocr": True,
        "confidence": round(float(np.mean(scores)), 4) if scores else 0.0,
        "rotation": rotation,
    }
    if render < dpi / 72.0:
        info["render_dpi"] = round(render * 72.0, 1)
    return segments, info


def _render(pdf_page: Any, scale: float) -> np.ndarray:
    bitmap = pdf_page.render(scale=scale, grayscale=False)
    return np.asarray(bitmap.to_pil().convert("RGB"))


Box = tuple[float, float, float, float]


def read_lines(image: np.ndarray) -> list[tuple[str, Box, float]]:
    """(text, axis-aligned box in pixels, score) for each detected line of an upright image."""
    result = engine()(image, use_det=True, use_cls=False, use_rec=True)
    if result.boxes is None or result.txts is None:
        return []
    out = []
    for quad, text, score in zip(result.boxes, result.txts, result.scores, strict=True):
        quad = np.asarray(quad, dtype=float)
        box = (
            float(quad[:, 0].min()),
            float(quad[:, 1].min()),
            float(quad[:, 0].max()),
            float(quad[:, 1].max()),
        )
        if text.strip():
            out.append((text.strip(), box, float(score)))
    return out


def detect_rotation(image: np.ndarray) -> int:
    """Counter-clockwise quarter turns (in degrees: 0/90/180/270) that make the page upright."""
    result = engine()(image, use_det=True, use_cls=False, use_rec=False)
    if result.boxes is None or len(result.boxes) == 0:
        return 0
    boxes = [_bounds(q) for q in result.boxes]
    candidates = (90, 270) if is_vertical(boxes) else (0, 180)
    sample = sorted(boxes, key=lambda b: (b[2] - b[0]) * (b[3] - b[1]), reverse=True)[:_PROBE_LINES]
    crops = [image[int(b[1]) : int(b[3]) + 1, int(b[0]) : int(b[2]) + 1] for b in sample]
    scores = {angle: _mean_score(crops, angle) for angle in candidates}
    return max(candidates, key=lambda a: scores[a])


def _bounds(quad: Any) -> Box:
    q = np.asarray(quad, dtype=float)
    return (float(q[:, 0].min()), float(q[:, 1].min()), float(q[:, 0].max()), float(q[:, 1].max()))


def is_vertical(boxes: Sequence[Box]) -> bool:
    """Text runs vertically when most box area sits in boxes taller than wide."""
    tall = sum((b[2] - b[0]) * (b[3] - b[1]) for b in boxes if (b[3] - b[1]) > 1.5 * (b[2] - b[0]))
    total = sum((b[2] - b[0]) * (b[3] - b[1]) for b in boxes) or 1.0
    return tall > 0.5 * total


def _mean_score(crops: Sequence[np.ndarray], angle: int) -> float:
    scores = []
    for crop in crops:
        turned = np.ascontiguousarray(np.rot90(crop, k=angle // 90)) if angle else crop
        if min(turned.shape[:2]) < 4:
            continue
        result = engine()(turned, use_det=False, use_cls=False, use_rec=True)
        if result.txts:
            text = result.txts[0]
            # a confident but tiny reading of an upside-down line ("I") must not win
            scores.append(float(result.scores[0]) * min(1.0, len(text.strip()) / 4))
    return float(np.mean(scores)) if scores else 0.0
