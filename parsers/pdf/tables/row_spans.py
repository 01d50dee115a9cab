"""Row labels centred vertically beside the group of rows each names, in a body with no rule
between its rows: "North" set between its "2022" and "2023" rows (a line of its own), "South" on
the middle one of its three rows (on that row's line). As a label spanning rows in a ruled grid,
each belongs to the first row of its group.

``centred_groups`` tells such a layout from rows that simply hold their own label or from
section label rows, on the rows' extents alone, for the ruled pipeline (``ruled_rows``: rows of
a band between rules) and the unruled one (``unruled_cells``). Pure functions over (top, bottom)
extents, top-down.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

Extent = tuple[float, float]  # top, bottom

W = TypeVar("W", bound="_Box")

SPAN_PITCH = 1.5  # x the rows' pitch: a label line between two rows nearer than this spans them


def _middle(a: Extent, b: Extent) -> float:
    return (a[0] + b[1]) / 2


def row_pitch(rows: Sequence[Extent]) -> float:
    """The median distance between the middles of consecutive rows (0 for fewer than two)."""
    pitches = sorted((b[0] + b[1] - a[0] - a[1]) / 2 for a, b in zip(rows, rows[1:], strict=False))
    return pitches[len(pitches) // 2] if pitches else 0.0


Label = tuple[int, bool, Extent, bool]  # value row, between, extent, starts in lower case


def centred_groups(rows: Sequence[Extent], found: Sequence[Label]) -> tuple[list[int], list[int]] | None:
    """The last row of each label's group and, per label of ``found``, the index of its group;
    or None when the labels are not centred beside groups. ``rows``: the value rows (a line holding
    only a label is none); ``found``, top-down: the value row each label is on, or (``between``)
    the value row right under its line of its own, its lines' extent, and whether it starts in
    lower case (it then continues the label just above, at most a row up: "Fruit and" /
    "vegetables", one label of two lines). They are centred beside groups when the first row has
    no label, each label's middle is the middle of the rows from the one after the previous group
    to some row at or below it (the nearest, within a third of its lines), those groups take
    every row, there are two groups at least and some group has two rows or more, and a label on
    a line of its own takes no row's place (the rows around it are nearer than ``SPAN_PITCH``
    pitches: a section label row stands in a place of its own)."""
    labels: list[tuple[int, bool, Extent]] = []
    which: list[int] = []
    for at, between, (top, bottom), lower in found:
        if lower and labels and at - labels[-1][0] <= 1:
            above = labels[-1]
            labels[-1] = (above[0], above[1], (min(above[2][0], top), max(above[2][1], bottom)))
        else:
            labels.append((at, between, (top, bottom)))
        which.append(len(labels) - 1)
    if len(rows) < 3 or len(labels) < 2 or any(at == 0 and not between for at, between, _ in labels):
        return None
    pitch = row_pitch(rows)
    ends: list[int] = []
    first = 0  # the group's first row
    for at, between, (top, bottom) in labels:
        if between and (
            not 0 < at < len(rows)
            or (rows[at][0] + rows[at][1] - rows[at - 1][0] - rows[at - 1][1]) / 2 > SPAN_PITCH * pitch
        ):
            return None
        if first > at - between:
            return None
        middle, tolerance = (top + bottom) / 2, (bottom - top) / 3
        fits = [(abs(_middle(rows[first], rows[e]) - middle), e) for e in range(at, len(rows))]
        end = min((f for f in fits if f[0] <= tolerance), default=(0.0, None))[1]
        if end is None:
            return None
        ends.append(end)
        first = end + 1
    if first != len(rows) or len(ends) == len(rows):
        return None
    return ends, which


class _Box(Protocol):  # a word box: unruled_cells.Word qualifies
    @property
    def top(self) -> float: ...
    @property
    def bottom(self) -> float: ...


def lift_centred(grid: list[list[list[W]]], start: int) -> list[list[list[W]]] | None:
    """An unruled table's grid (rows x columns x word boxes; the body from row ``start``) with
    its first column's labels moved to the first row of the group each is centred beside
    (``centred_groups``; a label on a line of its own between two rows of its group is then no
    row), or None when the labels are not set so."""
    body = grid[start:]
    if not body or len(body[0]) < 2:
        return None
    alone = [bool(row[0]) and not any(row[1:]) for row in body]
    data = [row for row, lone in zip(body, alone, strict=True) if not lone]
    labels: list[Label] = []
    at = 0
    for row, lone in zip(body, alone, strict=True):
        if row[0]:
            first_word = min(row[0], key=lambda b: (b.top, getattr(b, "x0", 0.0)))
            labels.append((at, lone, _extent([row[0]]), str(getattr(first_word, "text", ""))[:1].islower()))
        at += not lone
    if any(not any(row) for row in data):
        return None
    groups = centred_groups([_extent(row) for row in data], labels)
    if groups is None:
        return None
    ends, which = groups
    out = [[list(cell) for cell in row] for row in data]
    for row in out:
        row[0] = []
    firsts = [0, *(e + 1 for e in ends[:-1])]
    for k, row in zip(which, [r for r in body if r[0]], strict=True):
        out[firsts[k]][0].extend(row[0])
    return [*grid[:start], *out]


def _extent(row: Sequence[Sequence[_Box]]) -> Extent:
    boxes = [b for cell in row for b in cell]
    return min(b.top for b in boxes), max(b.bottom for b in boxes)
