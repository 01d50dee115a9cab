"""Row boundaries where a table's column rules stop: a table ruled between its columns but not
between its rows, whose section label rows ("Current assets", "Fixed assets") span its whole
width, interrupts its column rules at each such row and draws no horizontal rule there. The
lines strategy then finds no cell in its body (the column rules meet no horizontal rule) and
reads the whole body as one cell.

``interrupted_lines`` implies a horizontal line where two inner column rules or more stop at one
height, between the table's side rules running past it, when no column rule between the sides
crosses that height and no horizontal rule is drawn there, and only inside a table: horizontal
rules drawn from side to side above and below, the same columns ruled again on the other side of
a gap under ``MAX_GAP`` (the section row) with text in it (``rules.missing_frame_lines`` closes
open frames; this closes rows inside a frame). Pure functions over pdfplumber edge and char
dicts, upright pages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from parsers.pdf.tables.rules import Char, _drawn, _line, cluster, join_segments

_H = ("top", "x0", "x1")
_V = ("x0", "top", "bottom")
MIN_ENDS = 2  # inner column rules stopping at one height
MAX_GAP = 40.0  # points: the interruption (a section row) is shorter than this


def interrupted_lines(
    edges: Sequence[Char], chars: Sequence[Char], tolerance: float = 3.0
) -> list[dict[str, Any]]:
    """Horizontal lines at the heights where inner column rules stop inside a table's frame."""
    vertical = join_segments([e for e in edges if e.get("orientation") == "v"], *_V, tolerance)
    horizontal = join_segments([e for e in edges if e.get("orientation") == "h"], *_H, tolerance)
    if len(vertical) < MIN_ENDS + 2:
        return []
    out: list[dict[str, Any]] = []
    for end in ("top", "bottom"):
        for y in cluster([float(v[end]) for v in vertical], tolerance):
            ends = [
                v
                for v in vertical
                if abs(float(v[end]) - y) <= tolerance and not _met(v, y, horizontal, tolerance)
            ]
            if len(ends) < MIN_ENDS:
                continue
            lo, hi = min(float(v["x0"]) for v in ends), max(float(v["x0"]) for v in ends)
            crossing = [
                float(v["x0"]) for v in vertical if v["top"] < y - tolerance and v["bottom"] > y + tolerance
            ]
            left = [x for x in crossing if x < lo - tolerance]
            right = [x for x in crossing if x > hi + tolerance]
            if not left or not right or any(lo - tolerance <= x <= hi + tolerance for x in crossing):
                continue
            x0, x1 = max(left), min(right)
            if any(
                x0 < float(v["x0"]) < x1 and abs(float(v[end]) - y) > tolerance
                for v in _near(vertical, y, tolerance)
            ):
                continue  # a column rule between the sides that neither crosses nor stops here
            if _drawn(horizontal, *_H, y, x0, x1, tolerance) or not _framed(horizontal, x0, x1, y, tolerance):
                continue
            if _resumes(ends, vertical, end, y, tolerance, chars, x0, x1):
                out.append(_line(x0, x1, y, y))
    return out


def _met(rule: Mapping[str, float], y: float, horizontal: Sequence[Mapping[str, float]], tol: float) -> bool:
    """Whether a horizontal rule at ``y`` runs through the vertical ``rule``'s x (it ends on it)."""
    x = float(rule["x0"])
    return any(abs(float(h["top"]) - y) <= tol and h["x0"] - tol <= x <= h["x1"] + tol for h in horizontal)


def _near(vertical: Sequence[Mapping[str, float]], y: float, tol: float) -> list[Mapping[str, float]]:
    """Column rules that touch ``y`` (ending at it or running through it)."""
    return [v for v in vertical if v["top"] - tol <= y <= v["bottom"] + tol]


def _framed(horizontal: Sequence[Mapping[str, float]], x0: float, x1: float, y: float, tol: float) -> bool:
    """Horizontal rules running from side to side both above and below ``y``."""
    across = [float(h["top"]) for h in horizontal if h["x0"] <= x0 + tol and h["x1"] >= x1 - tol]
    return any(a < y - tol for a in across) and any(a > y + tol for a in across)


def _resumes(
    ends: Sequence[Mapping[str, float]],
    vertical: Sequence[Mapping[str, float]],
    end: str,
    y: float,
    tol: float,
    chars: Sequence[Char],
    x0: float,
    x1: float,
) -> bool:
    """Whether the stopped column rules go on past a gap shorter than ``MAX_GAP`` (each at the x of
    one of them) and that gap holds text between the sides: a section row interrupting them."""
    other = "bottom" if end == "top" else "top"
    sign = -1.0 if end == "top" else 1.0
    gap = 0.0
    for x in {round(float(v["x0"]), 1) for v in ends}:
        gaps = [
            sign * (float(v[other]) - y)
            for v in vertical
            if abs(float(v["x0"]) - x) <= tol and 0 < sign * (float(v[other]) - y) < MAX_GAP
        ]
        if not gaps:
            return False
        gap = max(gap, min(gaps))
    lo, hi = (y - gap, y) if end == "top" else (y, y + gap)
    return any(
        str(c.get("text", "")).strip() and x0 < float(c["x0"]) < x1 and lo < float(c["top"]) < hi
        for c in chars
    )
