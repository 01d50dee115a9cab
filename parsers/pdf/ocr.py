"""OCR of scanned pages with RapidOCR (bundled default ONNX models), orientation-aware.

RapidOCR's per-line classifier only flips single lines, so a page scanned upside down comes back
with its lines in reverse order, and a page on its side with vertical boxes. We fix the page
instead, and keep the work to one detection pass for an upright page:

1. render the page once at ``dpi`` (recognition crops come from this image);
2. detect line boxes on a copy scaled down to ``_DET_DPI`` (detection is the costly network per
   pixel, and 100 dpi is plenty to find lines; recognition resizes every crop to 48 px high anyway);
3. decide the page orientation from those boxes (vertical boxes -> 90 or 270; which of the two, or
   0 vs 180, by recognising the straightened middles of a few lines both ways and keeping the more
   confident reading); a turned page is rotated upright and detected again (cheap at ``_DET_DPI``);
4. recognise every line crop at 90 % of its width, one crop per inference (no padding to the
   widest line of a batch), on a few threads with one onnxruntime thread each (a dense page's
   full-width crops cost ~10 CPU-s that way, 12-18 CPU-s with onnxruntime's own two threads,
   which spin while idle);
5. hand the line boxes to parsers.pdf.text_layout for column-aware reading order.

The engine is created once per process, on first use (model load is ~0.1 s, but onnxruntime
import is not free and the query side never needs it).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from parsers.pdf.text_layout import Segment

_ENGINE: Any = None
_ENGINE_LOCK = threading.Lock()
_DET_DPI = 100  # detection resolution: 10 pt text is ~14 px high, well within the detector's range
_PROBE_LINES = 6
_PROBE_ASPECT = 8  # orientation probe reads at most 8 x line height of each line (a few words)
_REC_HEIGHT, _REC_MIN_WIDTH = 48, 320  # the recogniser's input: lines are scaled to 48 px high and
# padded to at least 320 px wide
_REC_WIDTH = 0.9  # lines are read at 90 % of their width: 10-15 % less work on a dense page, and the
# same text (at 80 % a dense line starts losing its final full stop)
_TEXT_SCORE = 0.5  # RapidOCR's default Global.text_score: lines read less confidently are dropped
_REC_WORKERS = max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 2))

Quad = np.ndarray  # 4 x 2 float32 corners (top-left, top-right, bottom-right, bottom-left), pixels
Box = tuple[float, float, float, float]


def engine() -> Any:
    """The process-wide RapidOCR engine (default bundled models only: others would download).

    One onnxruntime thread per session: parallelism comes from ``_REC_WORKERS`` crops at a time."""
    global _ENGINE
    with _ENGINE_LOCK:
        if _ENGINE is None:
            from rapidocr import RapidOCR

            _ENGINE = RapidOCR(
                params={
                    "Global.log_level": "error",
                    "EngineConfig.onnxruntime.intra_op_num_threads": 1,
                    "EngineConfig.onnxruntime.inter_op_num_threads": 1,
                }
            )
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
        render = render_scale(width_pt, height_pt, dpi, max_pixels)
        image = _render(pdf_page, render)
    finally:
        document.close()
    lines, rotation = read_page(image, min(1.0, _DET_DPI / (render * 72.0)))
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
    """RGB pixels (a copy: the bitmap's buffer belongs to pdfium), without a round trip through PIL
    (which cost more than pdfium's own render on a scanned page)."""
    pixels = pdf_page.render(scale=scale, grayscale=False, rev_byteorder=True).to_numpy()
    return np.array(pixels[..., :3])


def read_page(image: np.ndarray, det_scale: float) -> tuple[list[tuple[str, Box, float]], int]:
    """(text, axis-aligned box in pixels of the upright image, score) for each line, and the
    counter-clockwise degrees the page was turned; lines are detected at ``det_scale`` x size."""
    quads = detect(image, det_scale)
    rotation = orientation(image, quads)
    if rotation:
        image = np.ascontiguousarray(np.rot90(image, k=rotation // 90))
        quads = detect(image, det_scale)
    return read_lines(image, quads), rotation


def detect(image: np.ndarray, det_scale: float) -> list[Quad]:
    """Line quadrilaterals in ``image`` pixels, found on a copy scaled by ``det_scale``."""
    import cv2

    small = image
    if det_scale < 1.0:
        size = (max(1, round(image.shape[1] * det_scale)), max(1, round(image.shape[0] * det_scale)))
        small = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    result = engine()(small, use_det=True, use_cls=False, use_rec=False)
    if result.boxes is None or len(result.boxes) == 0:
        return []
    sx, sy = image.shape[1] / small.shape[1], image.shape[0] / small.shape[0]
    scale = np.array([sx, sy], dtype=np.float32)
    return [np.asarray(q, dtype=np.float32) * scale for q in result.boxes]


def read_lines(image: np.ndarray, quads: Sequence[Quad]) -> list[tuple[str, Box, float]]:
    """(text, axis-aligned box, score) for each quad of an upright image whose reading is not
    empty and scores at least ``_TEXT_SCORE``, in the detector's order."""
    from rapidocr.utils.process_img import get_rotate_crop_image

    crops = [narrowed(get_rotate_crop_image(image, q.copy())) for q in quads]
    readings = recognise(crops)
    out = []
    for quad, (text, score) in zip(quads, readings, strict=True):
        if text.strip() and score >= _TEXT_SCORE:
            out.append((text.strip(), _bounds(quad), score))
    return out


def narrowed(crop: np.ndarray) -> np.ndarray:
    """``crop`` squeezed to ``_REC_WIDTH`` of its width, unless it would end up narrower than the
    recogniser's minimum input (which is padded, so narrowing it saves nothing)."""
    import cv2

    height, width = crop.shape[:2]
    if height == 0 or _REC_HEIGHT * width * _REC_WIDTH / height < _REC_MIN_WIDTH:
        return crop
    return cv2.resize(crop, (round(width * _REC_WIDTH), height), interpolation=cv2.INTER_AREA)


def recognise(crops: Sequence[np.ndarray]) -> list[tuple[str, float]]:
    """(text, score) per crop; one crop per inference, ``_REC_WORKERS`` at a time."""
    if not crops:
        return []
    recogniser = engine()._load_rec_model()  # RapidOCR 3.x; the public call would batch and pad
    from rapidocr.ch_ppocr_rec import TextRecInput

    def one(crop: np.ndarray) -> tuple[str, float]:
        if min(crop.shape[:2]) < 2:
            return "", 0.0
        result = recogniser(TextRecInput(img=[crop]))
        return str(result.txts[0]), float(result.scores[0])

    if _REC_WORKERS == 1 or len(crops) == 1:
        return [one(c) for c in crops]
    with ThreadPoolExecutor(_REC_WORKERS) as pool:
        return list(pool.map(one, crops))


def orientation(image: np.ndarray, quads: Sequence[Quad]) -> int:
    """Counter-clockwise quarter turns (in degrees: 0/90/180/270) that make the page upright."""
    if not quads:
        return 0
    candidates = (90, 270) if is_vertical([_bounds(q) for q in quads]) else (0, 180)
    sample = sorted(quads, key=lambda q: _side_lengths(q)[0] * _side_lengths(q)[1], reverse=True)
    crops = [probe_crop(image, q) for q in sample[:_PROBE_LINES]]
    scores = {angle: _mean_score(crops, angle) for angle in candidates}
    return max(candidates, key=lambda a: scores[a])


def probe_crop(image: np.ndarray, quad: Quad) -> np.ndarray:
    """The middle of a line, straightened but not turned (a line on a page lying on its side stays
    tall), at most ``_PROBE_ASPECT`` line heights long: a few words tell upright from upside-down
    text, a whole line costs its full width, and a skewed line's axis-aligned box would take in
    its neighbours."""
    import cv2

    tl, tr, br, bl = np.asarray(quad, dtype=np.float32)
    along, across = _side_lengths(quad)
    if along >= across:  # the line runs between the left and right edges
        keep = min(1.0, _PROBE_ASPECT * across / max(along, 1.0))
        a, b = (1 - keep) / 2, (1 + keep) / 2
        corners = [tl + a * (tr - tl), tl + b * (tr - tl), bl + b * (br - bl), bl + a * (br - bl)]
    else:  # between the top and bottom edges
        keep = min(1.0, _PROBE_ASPECT * along / max(across, 1.0))
        a, b = (1 - keep) / 2, (1 + keep) / 2
        corners = [tl + a * (bl - tl), tr + a * (br - tr), tr + b * (br - tr), tl + b * (bl - tl)]
    source = np.array(corners, dtype=np.float32)
    width, height = _side_lengths(source)
    w, h = max(1, round(width)), max(1, round(height))
    target = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)
    matrix = cv2.getPerspectiveTransform(source, target)
    return cv2.warpPerspective(image, matrix, (w, h), borderMode=cv2.BORDER_REPLICATE, flags=cv2.INTER_CUBIC)


def _side_lengths(quad: Quad) -> tuple[float, float]:
    """(top/bottom edge length, left/right edge length) of a top-left-first clockwise quad."""
    tl, tr, br, bl = np.asarray(quad, dtype=np.float32)
    along = max(np.linalg.norm(tr - tl), np.linalg.norm(br - bl))
    across = max(np.linalg.norm(bl - tl), np.linalg.norm(br - tr))
    return float(along), float(across)


def _bounds(quad: Any) -> Box:
    q = np.asarray(quad, dtype=float)
    return (float(q[:, 0].min()), float(q[:, 1].min()), float(q[:, 0].max()), float(q[:, 1].max()))


def is_vertical(boxes: Sequence[Box]) -> bool:
    """Text runs vertically when most box area sits in boxes taller than wide."""
    tall = sum((b[2] - b[0]) * (b[3] - b[1]) for b in boxes if (b[3] - b[1]) > 1.5 * (b[2] - b[0]))
    total = sum((b[2] - b[0]) * (b[3] - b[1]) for b in boxes) or 1.0
    return tall > 0.5 * total


def _mean_score(crops: Sequence[np.ndarray], angle: int) -> float:
    turned = [np.ascontiguousarray(np.rot90(c, k=angle // 90)) if angle else c for c in crops]
    readings = recognise([c for c in turned if min(c.shape[:2]) >= 4])
    # a confident but tiny reading of an upside-down line ("I") must not win
    scores = [score * min(1.0, len(text.strip()) / 4) for text, score in readings]
    return float(np.mean(scores)) if scores else 0.0
