"""The first or last row of a grid drawn without a rule above or below it: a table ruled between
its columns and between its rows but with no top (or bottom) rule (LaTeX's ``|c|c|`` columns
with row rules between the rows only) runs its column rules on past the outermost horizontal
rule, by one row, around its header (or its last row). The lines strategy then finds no cell
there for the columns that have no rule on both sides (the stub column, the last one): their
text is lost, or lands in the row below, and a table with one column rule loses the whole row.

``overhang_lines`` implies a horizontal line where the column rules crossing a table's outermost
horizontal rule all run past it to one height, at most ``MAX_PITCHES`` row pitches (the gaps
between the table's horizontal rules) and ``MIN_OVERHANG`` points at least, with text between:
across the width of that outermost rule, with its sides closed down (or up) to it where no rule
is drawn there. ``rules.missing_frame_lines`` closes frames implied by rule ends in rows the
horizontal rules bound; this closes the row past them.

Pure functions over pdfplumber edge and char dicts, upright pages.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from statistics import median
from typing import Any

from parsers.pdf.tables.rules import Char, _covered, _drawn, _line, join_segments

_H = ("top", "x0", "x1")
_V = ("x0", "top", "bottom")
MIN_RULES = 3  # horizontal rules a table's column rules cross (a ruled body, not a box)
MIN_OVERHANG = 3.0  # points: less is a rule drawn a little long, not a row
MAX_PITCHES = 1.5  # the overhang is one row: at most this many row pitches


def overhang_lines(
    edges: Sequence[Char], chars: Sequence[Char], tolerance: float = 3.0
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(vertical, horizontal) lines closing the rows that column rules run on past a table's
    outermost horizontal rule."""
    horizontal = join_segments([e for e in edges if e.get("orientation") == "h"], *_H, tolerance)
    vertical = join_segments([e for e in edges if e.get("orientation") == "v"], *_V, tolerance)
    out_v: list[dict[str, Any]] = []
    out_h: list[dict[str, Any]] = []
    for outer, end, rules in _open_ends(horizontal, vertical, tolerance):
        ends = [float(v[end]) for v in rules]
        y = min(ends) if end == "top" else max(ends)
        if max(ends) - min(ends) > tolerance:
            continue  # the column rules stop at different heights: no row of the table
        x0, x1, at = float(outer["x0"]), float(outer["x1"]), float(outer["top"])
        if _drawn(horizontal, *_H, y, x0, x1, tolerance):
            continue
        lo, hi = (y, at) if end == "top" else (at, y)
        if not any(
            str(c.get("text", "")).strip() and x0 < float(c["x0"]) < x1 and lo - 1 < float(c["top"]) < hi
            for c in chars
        ):
            continue
        out_h.append(_line(x0, x1, y, y))
        for x in (x0, x1):
            if _covered(vertical, *_V, x, lo, hi, tolerance) < 0.5:
                out_v.append(_line(x, x, lo, hi))
    return out_v, out_h


def _open_ends(
    horizontal: Sequence[Mapping[str, float]], vertical: Sequence[Mapping[str, float]], tol: float
) -> list[tuple[Mapping[str, float], str, list[Mapping[str, float]]]]:
    """(outermost horizontal rule, "top" or "bottom", the column rules crossing it) for each end
    of a ruled body where every column rule crossing that rule runs on past it by one row."""
    by_y = sorted(horizontal, key=lambda h: float(h["top"]))
    ys = [float(h["top"]) for h in by_y]
    crossed = {id(v): _crossed(v, by_y, ys, tol) for v in vertical}
    crossing: dict[int, list[Mapping[str, float]]] = {}  # horizontal rule -> column rules across it
    for v in vertical:
        for h in crossed[id(v)]:
            crossing.setdefault(id(h), []).append(v)
    out: list[tuple[Mapping[str, float], str, list[Mapping[str, float]]]] = []
    seen: set[tuple[int, str]] = set()
    for v in vertical:
        mine = crossed[id(v)]
        if len(mine) < MIN_RULES:
            continue
        pitch = median(float(b["top"]) - float(a["top"]) for a, b in zip(mine, mine[1:], strict=False))
        for end, outer in (("top", mine[0]), ("bottom", mine[-1])):
            past = abs(float(v[end]) - float(outer["top"]))
            if not MIN_OVERHANG <= past <= MAX_PITCHES * pitch or (id(outer), end) in seen:
                continue
            seen.add((id(outer), end))
            rules = crossing[id(outer)]
            if all(
                abs(float(w[end]) - float(outer["top"])) >= MIN_OVERHANG
                and (float(w[end]) < float(outer["top"])) == (end == "top")
                for w in rules
            ):
                out.append((outer, end, rules))
    return out


def _crossed(
    v: Mapping[str, float], by_y: Sequence[Mapping[str, float]], ys: Sequence[float], tol: float
) -> list[Mapping[str, float]]:
    """Horizontal rules (``by_y``, sorted by their heights ``ys``) running across the vertical
    rule ``v`` within its span, top to bottom (not ending on it: a rule ending at ``v`` is no rule
    of the same table body)."""
    x = float(v["x0"])
    lo, hi = bisect_left(ys, float(v["top"]) - tol), bisect_right(ys, float(v["bottom"]) + tol)
    return [h for h in by_y[lo:hi] if float(h["x0"]) < x - tol and float(h["x1"]) > x + tol]
