"""Fake bold (each glyph, or each word, drawn twice a fraction of a point apart) reads once, and
text that really repeats a letter keeps it (parsers/pdf/objects.py: dedupe_chars)."""

from __future__ import annotations

from pathlib import Path

from parsers.options import ParseOptions
from parsers.pdf import parser as pdf
from parsers.source import SourceFile


def _fake_bold_pdf(path: Path) -> None:
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfbase.pdfmetrics import stringWidth
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=letter)
    c.setFont("Helvetica", 16)
    for dx in (0.0, 0.4):  # the heading, word by word, twice
        x = 72.0
        for word in ["ENFORCED", "FOR", "ALL", "ACCESS"]:
            c.drawString(x + dx, 700, word)
            x += stringWidth(word + " ", "Helvetica", 16)
    c.setFont("Helvetica", 11)
    x = 72.0
    for ch in "Signed on as ALICE":  # glyph by glyph, each glyph twice
        c.drawString(x, 660, ch)
        c.drawString(x + 0.3, 660.2, ch)
        x += stringWidth(ch, "Helvetica", 11)
    c.drawString(72, 630, "Balloons fill the hall... all 111 of them, all eerie.")
    c.showPage()
    c.save()


def test_fake_bold_text_is_read_once_and_real_repeats_stay(tmp_path: Path) -> None:
    path = tmp_path / "fake-bold.pdf"
    _fake_bold_pdf(path)
    (doc,) = pdf.parse(SourceFile.read(path, path.name), ParseOptions(ocr=False))
    text = "\n".join(b.text for b in doc.blocks)
    assert "ENFORCED FOR ALL ACCESS" in text and "ENFORCED ENFORCED" not in text
    assert "Signed on as ALICE" in text and "SSii" not in text
    assert "Balloons fill the hall... all 111 of them, all eerie." in text
