"""Ruling lines a bordered table lacks or draws oddly, worked out before pdfplumber's lines
strategy looks for cells (parsers/tables.py ``find_tables``): frame lines implied by an open
frame (rules between rows, no outer border), rules drawn as dashes, collinear segments joined
into one rule. Pure functions over pdfplumber edge dicts.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

BBox = tuple[float, float, float, float]  # x0, top, x1, bottom
Char = Mapping[str, Any]  # pdfplumber char or edge: text, x0, x1, top, bottom, size, matrix


def union(a: BBox, b: BBox) -> BBox:
    """The smallest box holding both."""
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def cluster(values: Iterable[float], tolerance: float) -> list[float]:
    """Sorted values merged when closer than ``tolerance`` (each cluster -> its mean)."""
    out: list[list[float]] = []
    for v in sorted(values):
        if out and v - out[-1][-1] <= tolerance:
            out[-1].append(v)
        else:
            out.append([v])
    return [sum(c) / len(c) for c in out]


Transform = Callable[[float, float], tuple[float, float]]


def char_angle(ch: Char) -> int:
    """Text direction of a char in degrees (0, 90, 180, 270), from its matrix."""
    a, b = ch.get("matrix", (1, 0, 0, 1, 0, 0))[:2]
    return int(round(math.degrees(math.atan2(b, a)) / 90.0)) % 4 * 90


def upright_transform(angle: int) -> Transform:
    """A map of top-down page coordinates that turns text drawn at ``angle`` upright."""
    if angle == 90:  # reads bottom to top
        return lambda x, y: (-y, x)
    if angle == 270:  # reads top to bottom
        return lambda x, y: (y, -x)
    if angle == 180:
        return lambda x, y: (-x, -y)
    return lambda x, y: (x, y)


def transform_box(box: BBox, fn: Transform) -> BBox:
    (ax, ay), (bx, by) = fn(box[0], box[1]), fn(box[2], box[3])
    return (min(ax, bx), min(ay, by), max(ax, bx), max(ay, by))


def transform_char(ch: Char, fn: Transform) -> dict[str, Any]:
    x0, top, x1, bottom = transform_box((ch["x0"], ch["top"], ch["x1"], ch["bottom"]), fn)
    return {**ch, "x0": x0, "top": top, "x1": x1, "bottom": bottom}


def dominant_angle(chars: Sequence[Char]) -> int:
    counts = Counter(char_angle(c) for c in chars if str(c.get("text", "")).strip())
    return counts.most_common(1)[0][0] if counts else 0


def missing_frame_lines(
    edges: Sequence[Char], tolerance: float = 3.0, min_edges: int = 3, max_gap: float = 50.0
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Vertical and horizontal lines that close an open frame.

    Tables drawn without outer borders (rules between rows only, no left/right line) give the
    lines strategy no cells for their first and last columns. Where at least ``min_edges``
    horizontal rules start (or end) at the same x, each within ``max_gap`` of the next or with an
    inner vertical rule of the table spanning the gap (a tall row), and no vertical rule is drawn
    there, a vertical line joining them is implied; likewise for vertical rules sharing a top or
    bottom (such a line reaches on to the next vertical rule beyond its ends, so the last
    sub-column of a column group is closed too). Collinear segments that touch are one rule
    first: a rule drawn column by column (stream tables often do this) has no column ends to imply.
    """
    drawn_h = [e for e in edges if e.get("orientation") == "h"]
    horizontal = join_segments(drawn_h, *_H, tolerance)
    vertical = join_segments([e for e in edges if e.get("orientation") == "v"], *_V, tolerance)

    def closing_verticals(rules: Sequence[Mapping[str, float]]) -> list[dict[str, Any]]:
        """The vertical lines implied where horizontal ``rules`` start or end together."""
        return [
            _line(at, at, lo, hi)
            for end in ("x0", "x1")
            for at, lo, hi, _ in _frame_runs(rules, _H, end, vertical, _V, tolerance, min_edges, max_gap)
        ]

    found_v = closing_verticals(horizontal)
    found_h = [
        _line(*_extend(vertical, _V, at, lo, hi, 1.5 * (hi - lo) / (n - 1), tolerance), at, at)
        for end in ("top", "bottom")
        for at, lo, hi, n in _frame_runs(vertical, _V, end, horizontal, _H, tolerance, min_edges, max_gap)
    ]
    widened = [_as_wide_as_rules(h, horizontal, vertical, tolerance) for h in found_h]
    if widened != found_h:  # the closing line as wide as the table's rules: its open sides close too
        found_h = widened
        extra = [{**h, "orientation": "h"} for h in found_h]
        found_v = closing_verticals(join_segments([*drawn_h, *extra], *_H, tolerance))
    return found_v, found_h


def _as_wide_as_rules(
    line: dict[str, Any],
    horizontal: Sequence[Mapping[str, float]],
    vertical: Sequence[Mapping[str, float]],
    tol: float,
) -> dict[str, Any]:
    """``line`` (a horizontal line implied where column rules end) stretched to the extent of the
    drawn horizontal rules over it that those column rules reach, when two or more of them,
    reaching past both its ends, share that extent: a table ruled at its top and under its
    header, column rules down its body, no rule under its last row nor at its sides (the outer
    columns open) is as wide as its rules."""
    x0, x1, y = float(line["x0"]), float(line["x1"]), float(line["top"])
    ending = [v for v in vertical if abs(v["bottom"] - y) <= tol and x0 - tol <= v["x0"] <= x1 + tol]
    if not ending:
        return line
    top = min(v["top"] for v in ending)
    over = [
        r for r in horizontal if top - tol <= r["top"] < y - tol and r["x0"] < x0 - tol and r["x1"] > x1 + tol
    ]
    if len(over) < 2:
        return line
    lo, hi = min(r["x0"] for r in over), max(r["x1"] for r in over)
    if any(abs(r["x0"] - lo) > tol or abs(r["x1"] - hi) > tol for r in over):
        return line
    return _line(lo, hi, y, y)


def _frame_runs(
    rules: Sequence[Mapping[str, float]],
    keys: tuple[str, str, str],
    end: str,
    crossing: Sequence[Mapping[str, float]],
    crossing_keys: tuple[str, str, str],
    tolerance: float,
    min_edges: int,
    max_gap: float,
) -> list[tuple[float, float, float, int]]:
    """Runs of rule ends (``_implied``) along which no frame line is drawn. A run joined by
    closeness can reach over two tables (an open-frame table a few points from a framed one), and
    the framed one's border then covers most of it; so inside such a drawn run, the parts whose
    consecutive rules are all bridged by inner rules (one ruled grid) are judged on their own.
    (Two open-frame tables of one width within ``max_gap`` still get one line over both; the
    grid is cut again at the second table's caption, or at the empty band between them when
    their sides are open, ``ruled.split_at_captions``.)"""
    runs = _implied(rules, keys, end, crossing, crossing_keys, tolerance, min_edges, max_gap)
    out = [r for r in runs if not _drawn(crossing, *crossing_keys, *r[:3], tolerance)]
    drawn = [r for r in runs if r not in out]
    if not drawn:
        return out
    for sub in _implied(rules, keys, end, crossing, crossing_keys, tolerance, min_edges, 0.0):
        inside = any(
            r[0] == sub[0] and r[1] - tolerance <= sub[1] and sub[2] <= r[2] + tolerance for r in drawn
        )
        if inside and not _drawn(crossing, *crossing_keys, *sub[:3], tolerance):
            out.append(sub)
    return out


_H = ("top", "x0", "x1")  # a horizontal rule: position, start, stop
_V = ("x0", "top", "bottom")


def frame_lines_upright(
    edges: Sequence[Char], angle: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``missing_frame_lines`` worked out with the page turned so its text reads upright, then
    turned back: a table printed sideways gets the same implied lines as the upright table."""
    if not angle:
        return missing_frame_lines(edges)
    fn, back = upright_transform(angle), upright_transform((360 - angle) % 360)
    swap = {"h": "v", "v": "h"} if angle in (90, 270) else {"h": "h", "v": "v"}
    turned = []
    for e in edges:
        x0, top, x1, bottom = transform_box(
            (float(e["x0"]), float(e["top"]), float(e["x1"]), float(e["bottom"])), fn
        )
        turned.append(
            {"x0": x0, "top": top, "x1": x1, "bottom": bottom, "orientation": swap.get(e["orientation"])}
        )
    verticals: list[dict[str, Any]] = []
    horizontals: list[dict[str, Any]] = []
    implied_v, implied_h = missing_frame_lines(turned)
    for line in (*implied_v, *implied_h):
        x0, top, x1, bottom = transform_box((line["x0"], line["top"], line["x1"], line["bottom"]), back)
        (verticals if x0 == x1 else horizontals).append(_line(x0, x1, top, bottom))
    return verticals, horizontals


def join_segments(
    edges: Sequence[Char], at_key: str, lo_key: str, hi_key: str, tolerance: float, gap: float | None = None
) -> list[dict[str, Any]]:
    """Collinear segments (same ``at_key`` within ``tolerance``) that touch, overlap or are at most
    ``gap`` apart (default ``tolerance``), joined; ``"n"`` counts the segments of each."""
    gap = tolerance if gap is None else gap
    order = sorted(range(len(edges)), key=lambda i: float(edges[i][at_key]))
    ats = [float(edges[i][at_key]) for i in order]  # sorted, for the edges near each cluster
    out: list[dict[str, Any]] = []
    for at in cluster(ats, tolerance):
        reach = tolerance + 1e-6  # bisect a little wide, then the exact test
        near = [
            i
            for i in order[bisect_left(ats, at - reach) : bisect_right(ats, at + reach)]
            if abs(float(edges[i][at_key]) - at) <= tolerance
        ]
        run: dict[str, Any] | None = None
        for e in (edges[i] for i in sorted(near, key=lambda i: (float(edges[i][lo_key]), i))):
            if run is not None and float(e[lo_key]) <= run[hi_key] + gap:
                run[hi_key] = max(run[hi_key], float(e[hi_key]))
                run["n"] += 1
                continue
            run = {at_key: at, lo_key: float(e[lo_key]), hi_key: float(e[hi_key]), "n": 1}
            out.append(run)
    return out


def dashed_rules(
    edges: Sequence[Char], max_dash: float = 12.0, max_gap: float = 8.0, min_dashes: int = 4
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Vertical and horizontal lines standing for rules drawn dash by dash as separate segments
    (at least ``min_dashes`` collinear pieces no longer than ``max_dash``, at most ``max_gap``
    apart), which the lines strategy would otherwise see as loose bits, not ruling lines."""
    found: dict[str, list[dict[str, Any]]] = {"v": [], "h": []}
    for orientation, keys in (("v", _V), ("h", _H)):
        at, lo, hi = keys
        short = [
            e
            for e in edges
            if e.get("orientation") == orientation and float(e[hi]) - float(e[lo]) <= max_dash
        ]
        for run in join_segments(short, *keys, 1.0, gap=max_gap):
            if run["n"] < min_dashes:
                continue
            if orientation == "v":
                line = _line(run[at], run[at], run[lo], run[hi])
            else:
                line = _line(run[lo], run[hi], run[at], run[at])
            found[orientation].append({**line, "orientation": orientation})
    return found["v"], found["h"]


def _line(x0: float, x1: float, top: float, bottom: float) -> dict[str, Any]:
    return {
        "object_type": "line",
        "x0": x0,
        "x1": x1,
        "top": top,
        "bottom": bottom,
        "width": x1 - x0,
        "height": bottom - top,
    }


def _implied(
    rules: Sequence[Mapping[str, float]],
    keys: tuple[str, str, str],
    end: str,
    crossing: Sequence[Mapping[str, float]],
    crossing_keys: tuple[str, str, str],
    tolerance: float,
    min_edges: int,
    max_gap: float,
) -> list[tuple[float, float, float, int]]:
    """(position, start, stop, rules) of lines through the ``end`` points of runs of rules that
    share them."""
    along = keys[0]
    out = []
    for position in cluster([float(r[end]) for r in rules], tolerance):
        ends = sorted(
            (r for r in rules if abs(float(r[end]) - position) <= tolerance), key=lambda r: r[along]
        )
        run = ends[:1]
        for rule in [*ends[1:], None]:
            if rule is not None and _joined(run[-1], rule, keys, crossing, crossing_keys, tolerance, max_gap):
                run.append(rule)
                continue
            if len(run) >= min_edges and run[-1][along] - run[0][along] > tolerance:
                out.append((position, float(run[0][along]), float(run[-1][along]), len(run)))
            run = [rule] if rule is not None else []
    return out


def _extend(
    rules: Sequence[Mapping[str, float]],
    keys: tuple[str, str, str],
    position: float,
    lo: float,
    hi: float,
    reach: float,
    tol: float,
) -> tuple[float, float]:
    """``lo``..``hi`` stretched to the nearest rule within ``reach`` beyond each end that crosses
    ``position``: the last sub-column of a column group is closed by the group's border."""
    along, start, stop = keys
    crossing = [float(r[along]) for r in rules if r[start] <= position + tol and r[stop] >= position - tol]
    before = [a for a in crossing if lo - reach <= a < lo - tol]
    after = [a for a in crossing if hi + tol < a <= hi + reach]
    return (max(before) if before else lo), (min(after) if after else hi)


def _joined(
    a: Mapping[str, float],
    b: Mapping[str, float],
    keys: tuple[str, str, str],
    crossing: Sequence[Mapping[str, float]],
    crossing_keys: tuple[str, str, str],
    tolerance: float,
    max_gap: float,
) -> bool:
    """Whether consecutive rules ``a`` and ``b`` belong to one table: close, or bridged by a rule
    across them (an inner column line running from one to the other)."""
    at, lo, hi = keys
    if b[at] - a[at] <= max_gap:
        return True
    c_at, c_lo, c_hi = crossing_keys
    left, right = max(a[lo], b[lo]), min(a[hi], b[hi])
    return any(
        left + tolerance < c[c_at] < right - tolerance
        and c[c_lo] <= a[at] + tolerance
        and c[c_hi] >= b[at] - tolerance
        for c in crossing
    )


def _drawn(
    edges: Sequence[Char], at_key: str, lo_key: str, hi_key: str, at: float, lo: float, hi: float, tol: float
) -> bool:
    """Whether an existing edge at ``at`` already covers most of ``lo``..``hi``."""
    return _covered(edges, at_key, lo_key, hi_key, at, lo, hi, tol) >= 0.5


def _covered(
    edges: Sequence[Char], at_key: str, lo_key: str, hi_key: str, at: float, lo: float, hi: float, tol: float
) -> float:
    """The share of ``lo``..``hi`` that edges at ``at`` cover."""
    covered = sum(
        max(0.0, min(hi, float(e[hi_key])) - max(lo, float(e[lo_key])))
        for e in edges
        if abs(float(e[at_key]) - at) <= tol
    )
    return covered / (hi - lo) if hi > lo else 1.0


MIN_SHADE = 3.0  # points: a filled rectangle thinner than this is a rule, not shading


def fill_seams(rects: Sequence[Char], edges: Sequence[Char], tolerance: float = 1.0) -> set[int]:
    """Indices of the ``edges`` lying where two filled, unstroked rectangles of the same colour meet
    (a shaded header drawn as one band per row): no line is visible there, so it is no ruling line
    and the cells on either side stay one cell. Fills that touch nothing keep their edges: shading
    laid out with white gaps between cells draws its rules that way."""
    # shading, not rules drawn as thin filled rectangles (those overlap and touch everywhere)
    fills = [
        r
        for r in rects
        if r.get("fill")
        and not r.get("stroke")
        and min(float(r["x1"]) - float(r["x0"]), float(r["bottom"]) - float(r["top"])) >= MIN_SHADE
    ]
    if len(fills) < 2:
        return set()
    return _seam_edges(fills, edges, tolerance) | _edges_inside_fills(fills, edges, tolerance)


def _drawn_border(f: Char, side: str, edges: Sequence[Char], tolerance: float) -> bool:
    """Whether a line of another colour than ``f``'s runs along its ``side`` ("x0", "x1", "top",
    "bottom"): the fill's border is drawn there, not merely where another fill of its colour
    begins."""
    colour = str(f.get("non_stroking_color"))
    vertical = side in ("x0", "x1")
    at, lo, hi = _V if vertical else _H
    span = (float(f["top"]), float(f["bottom"])) if vertical else (float(f["x0"]), float(f["x1"]))
    for e in edges:
        if (e.get("orientation") == "v") != vertical or abs(float(e[at]) - float(f[side])) > tolerance:
            continue
        other = e.get("stroke") and not e.get("fill") or str(e.get("non_stroking_color")) != colour
        if other and float(e[lo]) <= span[0] + tolerance and float(e[hi]) >= span[1] - tolerance:
            return True
    return False


def _seam_edges(fills: list[Char], edges: Sequence[Char], tolerance: float) -> set[int]:
    """``fill_seams``' first kind: edges where two same-coloured fills meet."""
    seams: list[tuple[str, float, float, float, str]] = []  # orientation, position, start, stop, colour
    fills.sort(key=lambda r: float(r["top"]))
    for k, a in enumerate(fills):
        for b in fills[k + 1 :]:
            if float(b["top"]) > float(a["bottom"]) + tolerance:
                break  # sorted by top: no later fill touches ``a``
            colour = str(a.get("non_stroking_color"))
            if colour != str(b.get("non_stroking_color")):
                continue
            x_lo, x_hi = max(float(a["x0"]), float(b["x0"])), min(float(a["x1"]), float(b["x1"]))
            y_lo, y_hi = max(float(a["top"]), float(b["top"])), min(float(a["bottom"]), float(b["bottom"]))
            if abs(float(a["bottom"]) - float(b["top"])) <= tolerance and x_hi - x_lo > tolerance:
                seams.append(("h", float(b["top"]), x_lo, x_hi, colour))
            elif y_hi - y_lo > tolerance:
                for left, right in ((a, b), (b, a)):
                    if abs(float(left["x1"]) - float(right["x0"])) <= tolerance:
                        seams.append(("v", float(right["x0"]), y_lo, y_hi, colour))
    seams = [s for s in seams if not _on_shading_border(s, fills, tolerance)]
    if not seams:
        return set()
    out: set[int] = set()
    for i, e in enumerate(edges):
        if e.get("object_type") != "rect_edge" or not e.get("fill") or e.get("stroke"):
            continue
        at, lo, hi = _H if e.get("orientation") == "h" else _V
        for orientation, position, start, stop, colour in seams:
            if (  # an edge of the shading itself (a rule drawn over the seam keeps its edges)
                orientation == e.get("orientation")
                and str(e.get("non_stroking_color")) == colour
                and abs(float(e[at]) - position) <= tolerance
                and float(e[lo]) >= start - tolerance
                and float(e[hi]) <= stop + tolerance
            ):
                out.add(i)
                break
    return out


def _on_shading_border(
    seam: tuple[str, float, float, float, str], fills: Sequence[Char], tolerance: float
) -> bool:
    """Whether a horizontal seam (a fill over another of its colour, a shaded label cell under a
    shaded header cell) lies on a line where the shading of the cells beside it ends: a fill of
    that colour touching the seam's end shares its edge there with nothing of that colour across
    it (a header band over white cells). That line is a row's visible border, drawn by the
    shading alone, and the seam is part of it: the label under the header is a row of its own,
    not a second line of the header's cell. A header of two shaded rows, or a shaded label
    spanning two rows beside white cells, has no such neighbour and stays one band."""
    orientation, position, start, stop, colour = seam
    if orientation != "h":
        return False
    same = [f for f in fills if str(f.get("non_stroking_color")) == colour]
    for f in same:
        x0, x1 = float(f["x0"]), float(f["x1"])
        if abs(x0 - stop) > tolerance and abs(x1 - start) > tolerance:
            continue  # not beside the seam
        for side, across in (("bottom", "top"), ("top", "bottom")):
            if abs(float(f[side]) - position) > tolerance:
                continue
            if not any(
                g is not f
                and abs(float(g[across]) - position) <= tolerance
                and min(x1, float(g["x1"])) - max(x0, float(g["x0"])) > tolerance
                for g in same
            ):
                return True
    return False


def _edges_inside_fills(fills: list[Char], edges: Sequence[Char], tolerance: float) -> set[int]:
    """Indices of the fill edges lying inside another fill of the same colour, away from its
    border, when that fill's border on the same side is drawn: a cell's text box filled again
    over the cell's own shading (a red header band with an inset box per label, ruled between
    its cells) draws no visible line, and its edges made sliver columns. Where the shaded cells
    meet without a drawn border (one band over the header), the inset boxes' edges are the only
    trace of the columns: then none is dropped (some rows cut at them and others not would
    misalign the columns)."""
    out: set[int] = set()
    undrawn = False
    by_colour: dict[str, list[Char]] = {}
    for f in fills:
        by_colour.setdefault(str(f.get("non_stroking_color")), []).append(f)
    for i, e in enumerate(edges):
        if e.get("object_type") != "rect_edge" or not e.get("fill") or e.get("stroke"):
            continue
        colour = str(e.get("non_stroking_color"))
        if colour not in by_colour:
            continue
        at, lo, hi = _H if e.get("orientation") == "h" else _V
        near, far = ("top", "bottom") if at == "top" else ("x0", "x1")
        start, stop = ("x0", "x1") if at == "top" else ("top", "bottom")
        for f in by_colour[colour]:
            if (
                float(f[near]) + tolerance < float(e[at]) < float(f[far]) - tolerance
                and float(f[start]) - tolerance <= float(e[lo])
                and float(e[hi]) <= float(f[stop]) + tolerance
            ):
                side = near if float(e[at]) - float(f[near]) < float(f[far]) - float(e[at]) else far
                if _drawn_border(f, side, edges, tolerance):
                    out.add(i)
                else:
                    undrawn = True
                break
    return set() if undrawn else out
