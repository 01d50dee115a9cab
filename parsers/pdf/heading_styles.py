"""Headings told by type alone (no outline): the document's heading styles, from a statistic over
its own lines rather than a fixed rule per line.

A style is a line's rounded font size, weight and slant. The body style carries most characters.
A style is a heading style when it stands out from the body (larger, or bold or italic at body
size where the body is not: an FAA handbook sets its side headings in the body's italic) and,
over the whole document, at least half of the short runs of lines set in it read as headings
(at most three lines, a few words, not a sentence): a large type used for whole paragraphs (a
printed intro, a pull quote) is not a heading style, a 12 pt bold used for every section title
is, even when the body is 10.9 pt and 12 pt is only 10 % larger. A run of heading-style lines is
cut out of a paragraph group it was merged into (a bold line set tight above its text).

Guards: caption labels and running headers (the caller's ``skip``) are neither counted nor
headings; a line that shares its baseline with another heading-style line is a table header row,
not a heading; a bold "Note:" on its own line is a label.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence

from parsers.pdf import text_layout as layout
from parsers.pdf.text_layout import Segment

Style = tuple[float, bool, bool]  # (size rounded to half a point, bold, italic)

MAX_LINES = 3  # a heading is at most this many lines
MAX_WORDS = 20  # over all its lines
LARGER = 1.05  # a heading style is at least this much larger than the body, or bold at body size
MIN_HEADING_SHARE = 0.5  # of a style's runs that read as headings


def style_of(seg: Segment) -> Style:
    return (round(seg.size * 2) / 2, seg.bold, seg.italic)


def heading_text(text: str) -> bool:
    """Reads as a heading: a few words with letters, not a sentence, not a "Note:" label, not
    starting in lower case (a cross-reference or web address set in italic: "see Credits on page
    30.", "www.irs.gov")."""
    words = text.split()
    if not words or len(words) > MAX_WORDS or not any(sum(ch.isalpha() for ch in w) >= 2 for w in words):
        return False
    if next(ch for ch in text if ch.isalpha()).islower():
        return False
    text = text.rstrip()
    if text.endswith("-") or text.endswith((".", ",", ";")) and len(words) > 3:
        return False  # a word or a sentence running on
    return not (len(words) <= 2 and text.endswith(":"))


def style_runs(group: Sequence[Segment]) -> list[list[Segment]]:
    """``group`` cut wherever the style changes from one line to the next."""
    runs: list[list[Segment]] = []
    for seg in group:
        if runs and style_of(runs[-1][-1]) == style_of(seg):
            runs[-1].append(seg)
        else:
            runs.append([seg])
    return runs


class HeadingStyles:
    """The heading styles of one document and the lines that are table cells, not headings."""

    def __init__(
        self,
        groups: Iterable[Sequence[Segment]],
        pages: Sequence[Sequence[Segment]],
        skip: Callable[[str], bool],
    ) -> None:
        groups = list(groups)
        chars: Counter[Style] = Counter()
        for group in groups:
            for seg in group:
                chars[style_of(seg)] += len(seg.text)
        self.body: Style = chars.most_common(1)[0][0] if chars else (0.0, False, False)
        uses: dict[Style, list[int]] = defaultdict(lambda: [0, 0])  # [heading-like, other]
        for group in groups:
            for run in style_runs(group):
                text = " ".join(s.text for s in run)
                if skip(text) or any(skip(s.text) for s in run):
                    continue
                uses[style_of(run[0])][0 if self._looks_like_heading(run) else 1] += 1
        self.styles = {
            style
            for style, (heading, other) in uses.items()
            if heading and self._stands_out(style) and heading >= MIN_HEADING_SHARE * (heading + other)
        }
        self.row_cells = self._row_cells(pages)

    def _stands_out(self, style: Style) -> bool:
        size, bold, italic = style
        body_size, body_bold, body_italic = self.body
        if not body_size:
            return size > 0 and bold
        marked = (bold and not body_bold) or (italic and not body_italic)
        return size >= body_size * LARGER or (marked and size >= body_size * 0.95)

    @staticmethod
    def _looks_like_heading(run: Sequence[Segment]) -> bool:
        return len(run) <= MAX_LINES and heading_text(layout.join_lines([s.text for s in run]))

    def _row_cells(self, pages: Sequence[Sequence[Segment]]) -> set[Segment]:
        """Heading-style lines sharing a baseline with another heading-style line of the same size:
        the cells of a table's header row ("IF you ... | THEN the rules ...")."""
        cells: set[Segment] = set()
        for segs in pages:
            marked = sorted((s for s in segs if style_of(s) in self.styles), key=lambda s: s.top)
            for a, b in zip(marked, marked[1:], strict=False):
                if layout.on_one_line(a, b) and style_of(a) == style_of(b):
                    cells.update((a, b))
        return cells

    def is_heading(self, run: Sequence[Segment]) -> bool:
        """All lines in one heading style, reading as a heading, none of them a table cell."""
        if not run or not self._looks_like_heading(run):
            return False
        style = style_of(run[0])
        return style in self.styles and all(style_of(s) == style and s not in self.row_cells for s in run)

    def split(self, group: Sequence[Segment]) -> list[list[Segment]]:
        """``group`` with each heading run cut out as a group of its own (a heading merged into the
        paragraph under or above it); the other lines stay together in order."""
        out: list[list[Segment]] = []
        runs = style_runs(group)
        last_heading = False
        for i, run in enumerate(runs):
            heading = self._heading_run(runs, i)
            if heading or last_heading or not out:
                out.append(list(run))
            else:
                out[-1].extend(run)
            last_heading = heading
        return out

    def _heading_run(self, runs: Sequence[Sequence[Segment]], i: int) -> bool:
        """``runs[i]`` is a heading and the next run does not continue its sentence in lower case
        (a bold run-in head: "Document Representation Our goal is" / "to represent ...")."""
        after = runs[i + 1][0].text.lstrip()[:1] if i + 1 < len(runs) else ""
        return self.is_heading(runs[i]) and not after.islower()
