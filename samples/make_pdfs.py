"""Generate docmill's own PDF samples (our text, reportlab + PIL), deterministic output.

    PYTHONPATH=. .venv/bin/python samples/make_pdfs.py            # writes samples/pdf/*.pdf

Tests import the builders from this file to write variants (encrypted, rotated scans) to tmp_path.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Sequence
from pathlib import Path

from reportlab.lib.pagesizes import letter
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas

OUT = Path(__file__).resolve().parent / "pdf"
WIDTH, HEIGHT = letter
HEADER = "Lumen Field Manual - Revision 3"
# (first row, first col, rowspan, colspan)
Merge = tuple[int, int, int, int]

KIT_ROWS = [
    ["Item", "Qty", "Notes"],
    ["Lamp head", "1", "Sealed unit\nIP67 rated"],
    ["Battery pack", "2", "Charge fully before use"],
    ["Spare fuse", "4", ""],
    ["Mounting kit (bracket and screws)", "", ""],
]
KIT_MERGES: list[Merge] = [(4, 0, 1, 3), (2, 2, 2, 1)]

SERVICE_HEADER = ["Interval", "Task", "Tool"]
SERVICE_ROWS = [
    [f"Week {n}", f"Inspect seal ring {n}", "Torque key" if n % 2 else "Brush"] for n in range(1, 15)
]

SCANNED_TEXT = [
    "Lumen survey report",
    "The north ridge lamps were checked on Tuesday morning.",
    "Seven units passed the seal test and two need new gaskets.",
    "Battery voltage stayed above twelve volts in every unit.",
    "Next inspection is planned for the first week of spring.",
]

CHINESE_ROWS = [["部件", "数量", "说明"], ["灯头", "1", "密封单元"], ["电池组", "2", "使用前充满电"]]


def draw_table(
    c: canvas.Canvas,
    x: float,
    top: float,
    widths: Sequence[float],
    rows: Sequence[Sequence[str]],
    merges: Sequence[Merge] = (),
    font: str = "Helvetica",
    row_h: float = 30,
) -> float:
    """Draw a ruled table whose top edge is ``top`` (PDF y); returns the bottom y."""
    covered = {(r, k) for r0, c0, rs, cs in merges for r in range(r0, r0 + rs) for k in range(c0, c0 + cs)}
    spans = {(r0, c0): (rs, cs) for r0, c0, rs, cs in merges}
    xs = [x]
    for w in widths:
        xs.append(xs[-1] + w)
    for r, row in enumerate(rows):
        for k, text in enumerate(row):
            if (r, k) in covered and (r, k) not in spans:
                continue
            rs, cs = spans.get((r, k), (1, 1))
            x0, y1 = xs[k], top - r * row_h
            c.rect(x0, y1 - rs * row_h, xs[k + cs] - x0, rs * row_h)
            c.setFont(font + ("-Bold" if r == 0 and font == "Helvetica" else ""), 10)
            for i, line in enumerate(text.split("\n")):
                c.drawString(x0 + 4, y1 - 12 - 11 * i, line)
    return top - len(rows) * row_h


def _furniture(c: canvas.Canvas, page: int, pages: int) -> None:
    c.setFont("Helvetica", 9)
    c.drawString(72, HEIGHT - 40, HEADER)
    c.drawRightString(WIDTH - 72, 36, f"Page {page} of {pages}")


def _lines(c: canvas.Canvas, y: float, lines: Sequence[str], x: float = 72, size: float = 11) -> float:
    c.setFont("Helvetica", size)
    for line in lines:
        c.drawString(x, y, line)
        y -= size * 1.35
    return y - size * 0.8


def _heading(c: canvas.Canvas, y: float, text: str, size: float) -> float:
    c.setFont("Helvetica-Bold", size)
    c.drawString(72, y, text)
    return y - size * 1.6


def build_manual(path: Path, encrypt: str | None = None) -> None:
    """Three pages: headings, a hyphenated paragraph, a table with merged cells, a table split
    over pages 2-3 (header repeated), a two-column section, running header and page numbers."""
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1, encrypt=encrypt)
    c.setTitle("Lumen Field Manual")
    _furniture(c, 1, 3)
    y = _heading(c, HEIGHT - 90, "Lumen Field Manual", 20)
    y = _heading(c, y, "1 Getting started", 14)
    y = _lines(
        c,
        y,
        [
            "The Lumen lamp needs a short calibra-",
            "tion after transport. Keep the lamp head level and wait for the",
            "green status light before you mount it.",
        ],
    )
    y = _heading(c, y, "1.1 Unpacking", 12)
    y = _lines(c, y, ["Check the kit against the list below before you sign the delivery note."])
    y = _lines(c, y, ["Table 1: Kit contents"], size=10)
    y = draw_table(c, 72, y + 4, [200, 60, 180], KIT_ROWS, KIT_MERGES)
    _lines(c, y - 24, ["Report missing parts within seven days of delivery."])
    c.showPage()

    _furniture(c, 2, 3)
    y = _heading(c, HEIGHT - 90, "2 Maintenance", 14)
    y = _lines(c, y, ["Follow the service schedule. Each week has one task and one tool."])
    y = _lines(c, y, ["Table 2: Service schedule"], size=10)
    first = SERVICE_ROWS[:9]
    draw_table(c, 72, y + 4, [120, 200, 120], [SERVICE_HEADER, *first])
    c.showPage()

    _furniture(c, 3, 3)
    y = draw_table(c, 72, HEIGHT - 72, [120, 200, 120], [SERVICE_HEADER, *SERVICE_ROWS[9:]])
    y = _heading(c, y - 30, "3 Field notes", 14)
    left = ["Left column first line about", "ridge lamps and their wiring.", "Left column ends here."]
    right = ["Right column starts with the", "valley lamps and the cables.", "Right column ends here."]
    _lines(c, y, left, x=72)
    _lines(c, y, right, x=330)
    c.showPage()
    c.save()


def scanned_image(rotate: int = 0, dpi: int = 150):  # noqa: ANN201 - PIL image
    """A letter page of SCANNED_TEXT rendered as pixels (no text layer), rotated by ``rotate``."""
    from PIL import Image, ImageDraw, ImageFont

    scale = dpi / 72
    img = Image.new("L", (int(WIDTH * scale), int(HEIGHT * scale)), 255)
    draw = ImageDraw.Draw(img)
    font_path = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    title = ImageFont.truetype(font_path, int(20 * scale))
    body = ImageFont.truetype(font_path, int(12 * scale))
    y = 72 * scale
    draw.text((72 * scale, y), SCANNED_TEXT[0], font=title, fill=0)
    y += 40 * scale
    for line in SCANNED_TEXT[1:]:
        draw.text((72 * scale, y), line, font=body, fill=0)
        y += 20 * scale
    return img.rotate(rotate, expand=True) if rotate else img


def build_scanned(path: Path, rotate: int = 0) -> None:
    """An image-only page: what a scanner produces."""
    img = scanned_image(rotate).convert("1")
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    size = (HEIGHT, WIDTH) if rotate in (90, 270) else (WIDTH, HEIGHT)
    c = canvas.Canvas(str(path), pagesize=size, invariant=1)
    c.drawImage(ImageReader(io.BytesIO(buf.getvalue())), 0, 0, width=size[0], height=size[1])
    c.showPage()
    c.save()


def build_chinese(path: Path) -> None:
    """A Chinese page with a table, using reportlab's built-in CID font (no font file needed)."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont

    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    c.setFont("STSong-Light", 18)
    c.drawString(72, HEIGHT - 90, "灯具维护说明")
    c.setFont("STSong-Light", 11)
    c.drawString(72, HEIGHT - 120, "运输后请先校准灯头，等待绿色指示灯亮起后再安装。")
    draw_table(c, 72, HEIGHT - 150, [120, 60, 200], CHINESE_ROWS, font="STSong-Light")
    c.showPage()
    c.save()


def main(out: Path = OUT) -> None:
    out.mkdir(parents=True, exist_ok=True)
    build_manual(out / "lumen-manual.pdf")
    build_scanned(out / "scanned.pdf")
    build_chinese(out / "chinese-table.pdf")
    for p in sorted(out.glob("*.pdf")):
        print(f"{p.name}: {p.stat().st_size} bytes")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
