"""parsers.pdf.objects.page_objects against pdfplumber's own Page.parse_objects (the reference):
every object dict equal, key order included, on real PDFs."""

from __future__ import annotations

from pathlib import Path

import pdfplumber
import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from parsers.pdf.objects import page_objects, prime

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = [*sorted((ROOT / "samples" / "pdf").glob("*.pdf")), *sorted(Path(__file__).parent.glob("*.pdf"))]


def _mixed_pdf(path: Path) -> Path:
    """Colours, a rotated string, CJK fonts (one vertical), rules, curves and a shifted MediaBox."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont

    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    pdfmetrics.registerFont(UnicodeCIDFont("HeiseiMin-W3", isVertical=True))  # a vertical writing mode
    c = canvas.Canvas(str(path), pagesize=A4)
    for page in range(2):
        c.setFillColorRGB(0.8, 0.1, 0.1)
        c.setFont("Helvetica-Bold", 16)
        c.drawString(72, 780, f"Heading {page}")
        c.setFillColorCMYK(0, 0, 0, 1)
        c.setFont("Times-Roman", 10)
        c.drawString(72, 760, "plain text, then CJK:")
        c.setFont("STSong-Light", 10)
        c.drawString(200, 760, "灯具维护说明")
        c.setFont("HeiseiMin-W3", 12)
        c.drawString(500, 700, "縦書きテスト")
        c.saveState()
        c.translate(40, 400)
        c.rotate(90)
        c.setFont("Courier", 9)
        c.drawString(0, 0, "rotated margin note")
        c.restoreState()
        c.rect(72, 500, 200, 100)
        c.bezier(72, 300, 100, 350, 150, 250, 200, 300)
        c.line(72, 200, 300, 200)
        if page == 1:
            c.setPageSize((600, 800))
        c.showPage()
    c.save()
    # a MediaBox whose origin is not (0, 0) on page 2 (same length: the xref offsets stay valid)
    data = path.read_bytes().replace(b"/MediaBox [ 0 0 600 800 ]", b"/MediaBox [ 9 9 609 809 ]")
    path.write_bytes(data)
    return path


def _assert_same(path: Path) -> int:
    with pdfplumber.open(path) as pdf:
        for page in pdf.pages:
            ours = page_objects(page)
            reference = page.parse_objects()
            assert list(ours) == list(reference), f"{path.name} p{page.page_number}: kinds"
            for kind, objs in reference.items():
                assert ours[kind] == objs, f"{path.name} p{page.page_number}: {kind}"
                assert [list(o) for o in ours[kind]] == [list(o) for o in objs]
            page.close()
        return len(pdf.pages)


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_equal_to_pdfplumber_on_samples(path: Path) -> None:
    assert _assert_same(path) >= 1


def test_equal_to_pdfplumber_on_mixed_objects(tmp_path: Path) -> None:
    path = _mixed_pdf(tmp_path / "mixed.pdf")
    with pdfplumber.open(path) as pdf:
        assert pdf.pages[1].mediabox[:2] == (9, -9)  # the shifted origin is exercised
    assert _assert_same(path) == 2


def test_prime_fills_the_cache_page_close_empties_it(tmp_path: Path) -> None:
    with pdfplumber.open(_mixed_pdf(tmp_path / "mixed.pdf")) as pdf:
        page = pdf.pages[0]
        prime(page)
        chars = page.chars
        assert chars and chars is page.objects["char"]
        assert "".join(c["text"] for c in chars).startswith("Heading 0")
        page.close()
        assert not hasattr(page, "_objects") and not hasattr(page, "_layout")
