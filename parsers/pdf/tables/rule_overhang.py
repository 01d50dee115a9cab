"""The first or last row of a grid drawn without a rule above or below it: a table ruled between
its columns and between its rows but with no top (or bottom) rule (LaTeX's ``|c|c|`` columns
with row rules between the rows only) runs its column rules on past the outermost horizontal
rule, by one row, around its header (or its last row). The lines strategy then finds no cell
there for the columns that have no rule on both sides (the stub column, the last one): their
text is lost, or lands in the row below, and a table with one column rule loses the whole row.

``overhang_lines`` implies a horizontal line where the column rules crossing a table's outermost
horizontal rule all run past it to one height, ``MIN_OVERHANG`` points at least and at most
``MAX_PITCHES`` row pitches (the gaps between the table's horizontal rules) or farther when text
fills the band to the rules' end (a tall last row), with text between and no word cut by a
column rule (a diagram's connector through a box's text is no column rule): across the width
of that outermost rule, with its sides closed down (or up) to it where no rule is drawn there.
``rules.missing_frame_lines`` closes frames implied by rule ends in rows the horizontal rules
bound; this closes the row past them.

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
MAX_PITCHES = 1.5  # the overhang is one row: at most this many row pitches ...
FILL_GAP = 2.0  # ... or more, when text fills it (no gap over this many font sizes)


def overhang_lines(
    edges: Sequence[Char], chars: Sequence[Char], tolerance: float = 3.0
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(vertical, horizontal) lines closing the rows that column rules run on past a table's
    outermost horizontal rule."""
    out_v, out_h, _stubs = overhangs(edges, chars, tolerance)
    return out_v, out_h


def overhangs(
    edges: Sequence[Char], chars: Sequence[Char], tolerance: float = 3.0
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[tuple[float, float, float]]]:
    """``overhang_lines``' (vertical, horizontal) lines, and where the column rules stop past the
    outermost rule with no text between, (height, x0, x1 of that rule): stubs drawn long past a
    closed grid. A
    frame line implied there (``rules.missing_frame_lines``: vertical rules sharing an end) would
    close an empty last (or first) row that no rule draws."""
    horizontal = join_segments([e for e in edges if e.get("orientation") == "h"], *_H, tolerance)
    vertical = join_segments([e for e in edges if e.get("orientation") == "v"], *_V, tolerance)
    out_v: list[dict[str, Any]] = []
    out_h: list[dict[str, Any]] = []
    stubs: list[tuple[float, float, float]] = []
    for outer, end, rules, pitch in _open_ends(horizontal, vertical, tolerance):
        ends = [float(v[end]) for v in rules]
        y = min(ends) if end == "top" else max(ends)
        if max(ends) - min(ends) > tolerance:
            continue  # the column rules stop at different heights: no row of the table
        x0, x1, at = float(outer["x0"]), float(outer["x1"]), float(outer["top"])
        lo, hi = (y, at) if end == "top" else (at, y)
        band = [
            c
            for c in chars
            if str(c.get("text", "")).strip() and x0 < float(c["x0"]) < x1 and lo - 1 < float(c["top"]) < hi
        ]
        if not band:
            stubs.append((y, x0, x1))  # stubs past a closed grid
            continue
        if _drawn(horizontal, *_H, y, x0, x1, tolerance):
            continue
        if hi - lo > MAX_PITCHES * pitch and not _filled(band, lo, hi):
            continue  # far more room than a row and not filled by one
        if any(_cuts_word(chars, lo, hi, float(v["x0"])) for v in rules):
            continue  # a line through words is no column rule (a diagram's connector)
        out_h.append(_line(x0, x1, y, y))
        for x in (x0, x1):
            if _covered(vertical, *_V, x, lo, hi, tolerance) < 0.5:
                out_v.append(_line(x, x, lo, hi))
    return out_v, out_h, stubs


def _cuts_word(chars: Sequence[Char], lo: float, hi: float, x: float) -> bool:
    """Whether ``x`` falls inside a word on a line between ``lo`` and ``hi``: between two
    characters of the line, left and right of ``x``, with no space or gap of a quarter font size
    between them."""
    line = sorted(
        (c for c in chars if lo - 1 < float(c["top"]) < hi and float(c["x0"]) - 10 < x < float(c["x1"]) + 10),
        key=lambda c: (round(float(c["top"])), float(c["x0"])),
    )
    for a, b in zip(line, line[1:], strict=False):
        if round(float(a["top"])) != round(float(b["top"])) or not str(a["text"]).strip():
            continue
        if not str(b["text"]).strip() or float(b["x0"]) - float(a["x1"]) > 0.25 * float(
            a.get("size") or 10.0
        ):
            continue
        if float(a["x0"]) < x < float(b["x1"]):
            return True
    return False


def _filled(band: Sequence[Char], lo: float, hi: float) -> bool:
    """Text runs through ``lo``..``hi`` from end to end: a tall last row (a long cell wrapped over
    many lines) whose column rules stop with its text: its first line within ``FILL_GAP`` font
    sizes of ``lo``, its last within as much of ``hi``, no gap between lines wider."""
    tops = sorted(float(c["top"]) for c in band)
    size = sorted(float(c.get("size") or 10.0) for c in band)[len(band) // 2]
    bottom = max(float(c["bottom"]) for c in band)
    gaps = [b - a for a, b in zip(tops, tops[1:], strict=False)]
    reach = FILL_GAP * size
    return tops[0] - lo <= reach and hi - bottom <= reach and all(g <= reach for g in gaps)


def _open_ends(
    horizontal: Sequence[Mapping[str, float]], vertical: Sequence[Mapping[str, float]], tol: float
) -> list[tuple[Mapping[str, float], str, list[Mapping[str, float]], float]]:
    """(outermost horizontal rule, "top" or "bottom", the column rules crossing it, the median
    pitch of the rules they cross) for each end of a ruled body where every column rule crossing
    that rule runs on past it."""
    by_y = sorted(horizontal, key=lambda h: float(h["top"]))
    ys = [float(h["top"]) for h in by_y]
    crossed = {id(v): _crossed(v, by_y, ys, tol) for v in vertical}
    crossing: dict[int, list[Mapping[str, float]]] = {}  # horizontal rule -> column rules across it
    for v in vertical:
        for h in crossed[id(v)]:
            crossing.setdefault(id(h), []).append(v)
    out: list[tuple[Mapping[str, float], str, list[Mapping[str, float]], float]] = []
    seen: set[tuple[int, str]] = set()
    for v in vertical:
        mine = crossed[id(v)]
        if len(mine) < MIN_RULES:
            continue
        pitch = median(float(b["top"]) - float(a["top"]) for a, b in zip(mine, mine[1:], strict=False))
        for end, outer in (("top", mine[0]), ("bottom", mine[-1])):
            past = abs(float(v[end]) - float(outer["top"]))
            if past < MIN_OVERHANG or (id(outer), end) in seen:
                continue
            seen.add((id(outer), end))
            rules = crossing[id(outer)]
            if all(
                abs(float(w[end]) - float(outer["top"])) >= MIN_OVERHANG
                and (float(w[end]) < float(outer["top"])) == (end == "top")
                for w in rules
            ):
                out.append((outer, end, rules, pitch))
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
