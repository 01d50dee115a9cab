"""OCR of scanned pages with the real RapidOCR models (slow), plus the pure orientation rule."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from indexers.ranking.metrics import char_error_rate as cer
from parsers.options import ParseOptions
from parsers.pdf import ocr
from parsers.pdf import parser as pdf
from parsers.source import SourceFile

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("make_pdfs", ROOT / "samples" / "make_pdfs.py")
assert _spec and _spec.loader
make_pdfs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_pdfs)


def test_vertical_boxes_mean_a_page_on_its_side() -> None:
    assert ocr.is_vertical([(0, 0, 20, 300), (30, 0, 50, 280), (60, 0, 80, 100)])
    assert not ocr.is_vertical([(0, 0, 300, 20), (0, 30, 280, 50), (0, 60, 20, 80)])


def test_probe_crop_is_the_straightened_middle_of_a_line_at_most_eight_heights_long() -> None:
    import numpy as np

    image = np.zeros((1200, 1200, 3), dtype=np.uint8)
    image[50:70, 100:1100] = 255  # a horizontal line, 20 px high
    crop = ocr.probe_crop(image, np.float32([[100, 50], [1100, 50], [1100, 70], [100, 70]]))
    assert crop.shape[:2] == (20, 160) and crop.min() == 255
    crop = ocr.probe_crop(image, np.float32([[0, 0], [20, 0], [20, 1000], [0, 1000]]))
    assert crop.shape[:2] == (160, 20)  # a page on its side: left tall for the turn to decide
    skewed = np.float32([[100, 100], [1100, 200], [1098, 220], [98, 120]])  # ~6 degrees
    height, width = ocr.probe_crop(image, skewed).shape[:2]
    assert height == 20 and abs(width - 160) <= 1
    short = np.float32([[10, 10], [60, 10], [60, 30], [10, 30]])
    assert ocr.probe_crop(image, short).shape[:2] == (20, 50)


def test_long_lines_are_narrowed_short_ones_kept() -> None:
    import numpy as np

    assert ocr.narrowed(np.zeros((30, 1000, 3), np.uint8)).shape == (30, 900, 3)
    assert ocr.narrowed(np.zeros((30, 250, 3), np.uint8)).shape == (30, 225, 3)
    # 200 px at 30 px high is 320 px at the recogniser's 48: narrowing would only add padding
    assert ocr.narrowed(np.zeros((30, 200, 3), np.uint8)).shape == (30, 200, 3)


def test_text_pages_are_not_ocrd_and_ocr_can_be_disabled(tmp_path: Path) -> None:
    path = tmp_path / "scan.pdf"
    make_pdfs.build_scanned(path)
    doc = pdf.parse(SourceFile.read(path), ParseOptions(ocr=False))[0]
    assert doc.blocks == () and "ocr_pages" not in doc.metadata


@pytest.mark.slow
@pytest.mark.parametrize("rotate", [0, 180, 90, 270])
def test_scanned_page_is_read_in_order(tmp_path: Path, rotate: int) -> None:
    path = tmp_path / f"scan-{rotate}.pdf"
    make_pdfs.build_scanned(path, rotate=rotate)
    doc = pdf.parse(SourceFile.read(path), ParseOptions(ocr=True, ocr_dpi=150))[0]
    assert doc.metadata["ocr_pages"] == [1]
    text = "\n".join(b.text for b in doc.blocks)
    assert cer("\n".join(make_pdfs.SCANNED_TEXT), text) < 0.03, text
    assert text.index("north ridge") < text.index("gaskets") < text.index("spring")
    block = doc.blocks[0]
    assert block.page == 1 and block.metadata["ocr"] is True
    assert 0.8 < block.metadata["confidence"] <= 1.0


@pytest.mark.slow
def test_boxes_found_on_a_smaller_copy_are_in_full_image_pixels() -> None:
    import numpy as np

    image = np.asarray(make_pdfs.scanned_image(0).convert("RGB"))
    full = [ocr._bounds(q) for q in ocr.detect(image, 1.0)]
    half = [ocr._bounds(q) for q in ocr.detect(image, 0.5)]
    assert len(full) > 3 and len(half) > 3
    pad = float(np.median([b[3] - b[1] for b in full])) / 2
    for x0, y0, x1, y1 in half:  # a line may be split differently, but it is in the same place
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        assert any(f[0] - pad < cx < f[2] + pad and f[1] - pad < cy < f[3] + pad for f in full)
    assert abs(max(b[2] for b in half) - max(b[2] for b in full)) < pad
    assert abs(max(b[3] for b in half) - max(b[3] for b in full)) < pad
