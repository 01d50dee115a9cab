"""Characters -> text for table cells and the lines around a table: which box holds a
character (by its centre), overprinted copies dropped, glyphs joined into words and lines in
reading order (right-to-left runs through parsers.pdf.rtl). Pure functions over pdfplumber char
dicts."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from parsers.pdf import rtl as bidi_text
from parsers.pdf.tables.rules import BBox, Char
from parsers.pdf.text_layout import join_wrapped

# x font size: a gap this wide between a figure and its unit sign is a space; a thin space (1/6
# em, "25,00 €", "5,50 %" in French typesetting) is narrower than ``cell_text``'s word gap, and a
# kerned pair ("$12", "3%") has next to none
SIGN_SPACE = 0.1
_AFTER_FIGURES = "%‰"


def centre_in(obj: Char, box: BBox) -> bool:
    cx = (float(obj["x0"]) + float(obj["x1"])) / 2
    cy = (float(obj["top"]) + float(obj["bottom"])) / 2
    return box[0] <= cx <= box[2] and box[1] <= cy <= box[3]


def centre_in_any(obj: Char, boxes: Sequence[BBox]) -> bool:
    return any(centre_in(obj, b) for b in boxes)


def dedupe_chars(chars: Sequence[Char], tolerance: float = 1.0) -> list[Char]:
    """``chars`` without copies of a glyph drawn again within ``tolerance`` of itself (fake bold
    by overprinting, shadows), which would otherwise read "RReeggiioonn"."""
    out: list[Char] = []
    seen: dict[str, list[Char]] = {}
    for ch in sorted(chars, key=lambda c: (float(c["top"]), float(c["x0"]))):
        same = seen.setdefault(str(ch["text"]), [])
        x0, top = float(ch["x0"]), float(ch["top"])
        if any(
            abs(float(o["x0"]) - x0) <= tolerance and abs(float(o["top"]) - top) <= tolerance for o in same
        ):
            continue
        same.append(ch)
        out.append(ch)
    return out


def cell_text(chars: Sequence[Char], space_ratio: float = 0.2) -> str:
    """Cell characters as text: lines top to bottom joined by "\\n" (by nothing between wrapped CJK
    lines), a space wherever the gap between neighbours exceeds ``space_ratio`` x the font size
    (PDFs often omit space glyphs), or ``SIGN_SPACE`` x it between a figure and its unit sign."""
    lines: list[list[Char]] = []
    for ch in sorted(chars, key=lambda c: (float(c["top"]), float(c["x0"]))):
        mid = (float(ch["top"]) + float(ch["bottom"])) / 2
        line = next((ln for ln in lines if float(ln[0]["top"]) <= mid <= float(ln[0]["bottom"])), None)
        if line is None:
            lines.append([ch])
        else:
            line.append(ch)
    texts = []
    for line in lines:
        line.sort(key=lambda c: float(c["x0"]))
        parts: list[str] = []
        prev: Char | None = None
        for ch in line:
            sign = prev is not None and _figure_and_sign(str(prev["text"]), str(ch["text"]))
            gap_limit = (SIGN_SPACE if sign else space_ratio) * float(ch.get("size") or 10.0)
            if prev is not None and float(ch["x0"]) - float(prev["x1"]) > gap_limit:
                parts.append(" ")
            parts.append(str(ch["text"]))
            prev = ch
        text = bidi_text.logical_line(" ".join("".join(parts).split()))  # drawn order -> reading order
        if text:
            texts.append(text)
    return join_wrapped(texts)


def _figure_and_sign(before: str, after: str) -> bool:
    """A digit then a currency or percent sign ("25,00" "€"), or a currency sign then a digit
    ("€" "25"): a figure and its unit, whose spacing the text layer keeps however thin."""
    return (before[-1:].isdigit() and (_currency(after) or after[:1] in _AFTER_FIGURES)) or (
        _currency(before) and after[:1].isdigit()
    )


def _currency(text: str) -> bool:
    return len(text) == 1 and unicodedata.category(text) == "Sc"


@dataclass(frozen=True)
class TextLine:
    """One line of text (a piece of it, where a wide gap cuts a page's columns apart)."""

    text: str
    bbox: BBox
    size: float


SIZE_STEP = 0.5  # points: type sizes further apart than this are two sizes
BASELINE_STEP = 0.2  # font sizes: baselines further apart than this are two lines


def _other_line(piece: Sequence[Char], nxt: Char) -> bool:
    """Whether ``nxt`` is set in another size or on another baseline than the piece's last char."""
    last = piece[-1]
    size = float(last.get("size") or 10.0)
    return (
        abs(float(nxt.get("size") or 10.0) - size) > SIZE_STEP
        or abs(float(nxt["bottom"]) - float(last["bottom"])) > BASELINE_STEP * size
    )


def text_lines(chars: Sequence[Char]) -> list[TextLine]:
    """Characters as lines of text, top to bottom, a line cut where a gap wider than two font
    sizes separates columns of a page, or one wider than one font size separates type of another
    size or baseline (``_other_line``: a caption beside the next column's prose, whose line sits
    a few points off the caption's)."""
    rows: list[list[Char]] = []
    for ch in sorted(chars, key=lambda c: (float(c["top"]), float(c["x0"]))):
        mid = (float(ch["top"]) + float(ch["bottom"])) / 2
        row = next((r for r in reversed(rows) if float(r[0]["top"]) <= mid <= float(r[0]["bottom"])), None)
        if row is None:
            rows.append([ch])
        else:
            row.append(ch)
    out = []
    for row in rows:
        row.sort(key=lambda c: float(c["x0"]))
        piece: list[Char] = []
        ends: list[Char | None] = [*row, None]
        for nxt in ends:
            size = float(piece[-1].get("size") or 10.0) if piece else 10.0
            gap = float(nxt["x0"]) - float(piece[-1]["x1"]) if nxt is not None and piece else 0.0
            if nxt is not None and (
                not piece or gap <= 2 * size and not (gap > size and _other_line(piece, nxt))
            ):
                piece.append(nxt)
                continue
            text = cell_text(piece)
            if text:
                box = (
                    min(float(c["x0"]) for c in piece),
                    min(float(c["top"]) for c in piece),
                    max(float(c["x1"]) for c in piece),
                    max(float(c["bottom"]) for c in piece),
                )
                sizes = sorted(float(c.get("size") or 10.0) for c in piece)
                out.append(TextLine(text.replace("\n", " "), box, sizes[len(sizes) // 2]))
            piece = [nxt] if nxt is not None else []
    return out
