"""Page layout from positioned words: lines, reading order, paragraphs, headings, furniture.

Pure geometry shared by the text layer (pdfplumber words) and OCR (RapidOCR boxes): every function
takes and returns plain records, so the rules are unit-tested without PDFs. Coordinates are
top-down (``top`` < ``bottom``), in any unit, as long as one page uses one unit.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Segment:
    """A run of words on one line; a line split at a wide gap (a column gutter) gives two segments."""

    text: str
    x0: float
    top: float
    x1: float
    bottom: float
    size: float = 0.0
    bold: bool = False
    confidence: float | None = None  # OCR line score; None for the text layer
    italic: bool = False

    @property
    def height(self) -> float:
        return self.bottom - self.top

    @property
    def centre_y(self) -> float:
        return (self.top + self.bottom) / 2


def vertical_overlap(a: Segment, b: Segment) -> float:
    """How far ``a`` and ``b`` overlap vertically (negative: the gap between them)."""
    return min(a.bottom, b.bottom) - max(a.top, b.top)


def on_one_line(a: Segment, b: Segment, share: float = 0.5) -> bool:
    """``a`` and ``b`` overlap vertically by over ``share`` of the smaller height."""
    return vertical_overlap(a, b) > share * min(a.height, b.height)


def words_to_segments(
    words: Iterable[Segment], gap_ratio: float = 1.2, narrow_ratio: float = 0.6, min_lines: int = 5
) -> list[Segment]:
    """Group words into lines (by vertical overlap), then split lines at column gutters, so two
    columns never fuse into one line: at any gap wider than ``gap_ratio`` x the line height, and
    at a narrower gap (over ``narrow_ratio`` x the height) where at least ``min_lines`` lines have
    such a gap at the same x (a tight gutter between columns of small type, as in a three-column
    notice); a single wide space in justified text has no such company and does not split."""
    lines: list[list[Segment]] = []
    for word in sorted(words, key=lambda w: (w.top, w.x0)):
        for line in reversed(lines[-4:]):
            ref = line[0]
            if on_one_line(ref, word):
                line.append(word)
                break
        else:
            lines.append([word])
    for line in lines:
        line.sort(key=lambda w: w.x0)
    gutters = _tight_gutters(lines, narrow_ratio, min_lines)
    segments: list[Segment] = []
    for line in lines:
        height = max(w.height for w in line)
        run = [line[0]]
        for word in line[1:]:
            gap = word.x0 - run[-1].x1
            in_gutter = gap > narrow_ratio * height and any(run[-1].x1 <= x <= word.x0 for x in gutters)
            if gap > gap_ratio * height or in_gutter:
                segments.append(merge_words(run))
                run = []
            run.append(word)
        segments.append(merge_words(run))
    return segments


def _tight_gutters(lines: Sequence[Sequence[Segment]], ratio: float, min_lines: int) -> list[float]:
    """x positions (whole points) that lie inside a gap wider than ``ratio`` x the line height,
    after at least six line heights of text, in at least ``min_lines`` lines, and are crossed by
    fewer words than that."""
    gaps: Counter[int] = Counter()
    for line in lines:
        height = max(w.height for w in line)
        for a, b in zip(line, line[1:], strict=False):
            # a column ends at the gap: text to its left, not a list marker or a number before it
            if b.x0 - a.x1 > ratio * height and a.x1 - line[0].x0 > 6 * height:
                gaps.update(range(int(a.x1) + 1, int(b.x0)))
    candidates = sorted(x for x, n in gaps.items() if n >= min_lines)
    if not candidates:
        return []
    crossed: Counter[int] = Counter()  # words crossing each candidate: int(x0) < x < int(x1)
    for line in lines:
        for w in line:
            lo, hi = bisect.bisect_right(candidates, int(w.x0)), bisect.bisect_left(candidates, int(w.x1))
            crossed.update(candidates[lo:hi])
    return [x for x in candidates if crossed[x] < gaps[x]]


def merge_words(words: Sequence[Segment]) -> Segment:
    """One segment from words of one line, in the given order; size/bold/italic by character
    majority."""
    sizes: Counter[float] = Counter()
    bold = italic = 0
    for w in words:
        sizes[round(w.size, 1)] += len(w.text)
        bold += len(w.text) if w.bold else 0
        italic += len(w.text) if w.italic else 0
    total = sum(len(w.text) for w in words) or 1
    return Segment(
        text=" ".join(w.text for w in words),
        x0=min(w.x0 for w in words),
        top=min(w.top for w in words),
        x1=max(w.x1 for w in words),
        bottom=max(w.bottom for w in words),
        size=sizes.most_common(1)[0][0] if sizes else 0.0,
        bold=bold * 2 > total,
        italic=italic * 2 > total,
    )


def _gutters(segments: Sequence[Segment], min_gap: float) -> list[tuple[float, float]]:
    """Vertical strips at least ``min_gap`` wide, inside the middle of the text, that almost no
    segment crosses (at most 1 in 10: a title or a single-column intro above the columns may)."""
    if not segments:
        return []
    lo, hi = min(s.x0 for s in segments), max(s.x1 for s in segments)
    allowed = len(segments) // 10
    out: list[tuple[float, float]] = []
    start: float | None = None
    x = lo + 0.15 * (hi - lo)
    while x <= hi - 0.15 * (hi - lo):
        open_here = sum(1 for s in segments if s.x0 < x < s.x1) <= allowed
        if open_here and start is None:
            start = x
        elif not open_here and start is not None:
            if x - start >= min_gap:
                out.append((start, x))
            start = None
        x += 1.0
    return out


def reading_order(segments: Sequence[Segment]) -> list[Segment]:
    """Segments in reading order: columns left to right, each top to bottom.

    A segment that crosses a gutter (a title over two columns) ends one band of columns and starts
    the next, so a page reads title, left column, right column, footnote across the width.
    A gutter counts only if at least two lines stand on each side, so a ragged right edge or a
    lone page number does not split a single-column page.
    """
    segs = sorted(segments, key=lambda s: (s.top, s.x0))
    if len(segs) < 4:
        return _rows_order(segs)
    line_h = sorted(s.height for s in segs)[len(segs) // 2]
    width = max(s.x1 for s in segs) - min(s.x0 for s in segs)
    narrow = [s for s in segs if s.x1 - s.x0 < 0.55 * width]
    for left, right in sorted(_gutters(narrow, 0.5 * line_h), key=lambda g: g[0] - g[1]):
        mid = (left + right) / 2
        spanning = [s for s in segs if s.x0 < mid < s.x1]
        if len(spanning) * 3 > len(segs):
            continue
        left_n = sum(1 for s in segs if s.x1 <= mid)
        if left_n < 2 or len(segs) - len(spanning) - left_n < 2:
            continue
        return _bands_order(segs, mid)
    return _rows_order(segs)


def _bands_order(segs: list[Segment], mid: float) -> list[Segment]:
    out: list[Segment] = []
    band: list[Segment] = []
    for s in segs:
        if s.x0 < mid < s.x1:
            out.extend(_split_band(band, mid))
            band = []
            out.append(s)
        else:
            band.append(s)
    out.extend(_split_band(band, mid))
    return out


def _split_band(band: list[Segment], mid: float) -> list[Segment]:
    left = [s for s in band if s.x1 <= mid]
    right = [s for s in band if s.x0 >= mid]
    return reading_order(left) + reading_order(right) if left and right else _rows_order(band)


def _rows_order(segs: Sequence[Segment]) -> list[Segment]:
    """Top to bottom; segments on the same line left to right."""
    rows: list[list[Segment]] = []
    for s in sorted(segs, key=lambda s: s.top):
        if rows and s.centre_y < rows[-1][0].bottom and s.centre_y > rows[-1][0].top:
            rows[-1].append(s)
        else:
            rows.append([s])
    return [s for row in rows for s in sorted(row, key=lambda s: s.x0)]


# A line at least this many times the body text's size is in larger type (a heading's).
LARGER_TYPE = 1.15


def body_size(segments: Iterable[Segment]) -> float:
    """The font size carrying most characters: the body text size headings are compared with."""
    sizes: Counter[float] = Counter()
    for s in segments:
        sizes[round(s.size, 1)] += len(s.text)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def is_heading(seg: Segment, body: float) -> bool:
    """Larger than the body text, or bold at body size and short; never a sentence-long line."""
    words = seg.text.split()
    if not words or len(words) > 14 or not any(ch.isalpha() for ch in seg.text):
        return False
    if seg.text.rstrip().endswith((".", ",", ";")) and len(words) > 3:
        return False
    if body and seg.size >= body * LARGER_TYPE:
        return True
    return seg.bold and len(words) <= 10 and (not body or seg.size >= body * 0.95)


_HYPHEN_END = re.compile(r"[A-Za-z]-$")


def join_lines(lines: Sequence[str]) -> str:
    """Join wrapped lines into one paragraph; a hyphen between lowercase letters at a line end is
    a soft hyphenation break ("informa-" + "tion" -> "information"); other hyphens are kept."""
    out = ""
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if _HYPHEN_END.search(out) and line[:1].islower():
            out = out[:-1] + line
        elif out and joins_unspaced(out, line):
            out += line
        else:
            out = f"{out} {line}" if out else line
    return out


def joins_unspaced(before: str, after: str) -> bool:
    """Whether a line ending ``before`` and the next, ``after``, wrapped from it, join with no space
    between them: CJK on both sides (Han and kana text has no spaces between words, so a wrap
    inside "正常运行时间" is no word boundary)."""
    return bool(before) and bool(after) and _is_cjk(before[-1]) and _is_cjk(after[0])


def join_wrapped(lines: Sequence[str], sep: str = "\n") -> str:
    """A cell's lines as one text, ``sep`` between them except where ``joins_unspaced``."""
    out = ""
    for line in lines:
        out = out + line if joins_unspaced(out, line) else f"{out}{sep}{line}" if out else line
    return out


def _is_cjk(ch: str) -> bool:
    return "\u2e80" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" or "\uff00" <= ch <= "\uffef"


def paragraphs(segments: Sequence[Segment]) -> list[list[Segment]]:
    """Split ordered segments into paragraphs at vertical gaps, jumps back up (a new column),
    changes of font size, or a big change of indentation."""
    groups: list[list[Segment]] = []
    for seg in segments:
        if groups and _continues(groups[-1], seg):
            groups[-1].append(seg)
        else:
            groups.append([seg])
    return groups


def _continues(group: list[Segment], seg: Segment) -> bool:
    prev = group[-1]
    height = max(prev.height, 1e-6)
    gap = seg.top - prev.bottom
    if gap < -0.3 * height or gap > 0.8 * height:
        return False
    if abs(seg.size - prev.size) > max(0.6, 0.15 * prev.size) or seg.bold != prev.bold and len(group) == 1:
        return False
    # a new column or a heavily indented line starts a new paragraph
    return abs(seg.x0 - prev.x0) < 4 * height or seg.x0 > prev.x0 and seg.x1 <= prev.x1 + height


_DIGITS = re.compile(r"\d+")
_PAGE_NUMBER = re.compile(
    r"^(?:page\s*)?[-–—]?\s*(?:\d{1,4}|[ivxlcdm]{1,6})\s*(?:(?:/|of)\s*\d{1,4})?\s*[-–—]?$", re.IGNORECASE
)


def furniture_key(text: str) -> str:
    """Running headers/footers differ only in their page number: compare them with digits masked."""
    return _DIGITS.sub("#", " ".join(text.lower().split()))


def is_page_number(text: str) -> bool:
    return bool(_PAGE_NUMBER.match(text.strip()))


# A line in the margin of this many pages of one side of the spreads at least (and of half of them)
# is a running header or footer of that side.
MIN_FACING_PAGES = 3


def find_furniture(pages: Sequence[Sequence[Segment]], page_heights: Sequence[float]) -> set[str]:
    """Keys of lines repeated in the top or bottom 12 % of at least half of the pages (min. 2),
    or of at least half of the left-hand or of the right-hand pages (min. MIN_FACING_PAGES) and
    never in larger type than the document's body text (body_size, LARGER_TYPE: as a heading): a
    book or thesis prints its title over one side of each spread and the chapter's over the
    other, so its running title is on half of the pages less the chapter openings, while a
    chapter's running head is also its heading, set larger on the page that opens it, and stays.

    Only the margins are searched, so a repeated phrase in the body is never dropped.
    """
    if len(pages) < 2:
        return set()
    sides: tuple[Counter[str], Counter[str]] = (Counter(), Counter())
    body = body_size(s for segs in pages for s in segs)
    large: set[str] = set()
    for number, (segs, height) in enumerate(zip(pages, page_heights, strict=True)):
        margin = [s for s in segs if _in_margin(s, height)]
        sides[number % 2].update({furniture_key(s.text) for s in margin})
        large |= {furniture_key(s.text) for s in margin if s.size >= LARGER_TYPE * body}
    need = max(2, (len(pages) + 1) // 2)
    found = {k for k, n in (sides[0] + sides[1]).items() if n >= need}
    for side, count in zip(sides, (len(pages[0::2]), len(pages[1::2])), strict=True):
        side_need = max(MIN_FACING_PAGES, (count + 1) // 2)
        found |= {k for k, n in side.items() if n >= side_need and k not in large}
    return found


LETTER_WORD = re.compile(r"[^\W\d_]{2,}")  # two letters or more in a row, any script ("NR", "报告")


def reads_as_words(text: str) -> bool:
    """At least two words of letters: a title, not a number, a code or a brand word alone."""
    return len(LETTER_WORD.findall(text)) >= 2


def running_title(first_page: Sequence[Segment], height: float, furniture: set[str]) -> str | None:
    """The running header that names the document, if any: of the ``furniture`` lines (from
    ``find_furniture``) in the first page's top margin, the one in the largest type that reads as
    words (at least two words of letters, no page number). It is dropped from every page as
    furniture, so without it a report that prints its title only there would have none."""
    candidates = [
        s
        for s in first_page
        if s.bottom <= 0.12 * height
        and furniture_key(s.text) in furniture
        and not is_page_number(s.text)
        and reads_as_words(s.text)
        and not _DIGITS.search(s.text)
    ]
    if not candidates:
        return None
    return max(candidates, key=lambda s: (s.size, -s.top)).text


# A first page's title is set in type at least this many times its body's (median) size.
TITLE_SIZE_RATIO = 1.8
TITLE_MAX_LINES = 6


def first_page_title(first_page: Sequence[Segment], furniture: set[str]) -> str | None:
    """The title a first page sets in large type, if any: the lines in the largest type that is at
    least TITLE_SIZE_RATIO times the page's median size and reads as words (two words of letters
    in all, so a brand word alone, "Redpaper", is passed over for the title under it), joined in
    reading order while they follow each other. For a PDF whose metadata names nothing (a job id)
    and that has no outline: its chunks are prefixed with the title, not "Abstract"."""
    lines = [s for s in first_page if furniture_key(s.text) not in furniture and s.size > 0]
    if not lines:
        return None
    body = sorted(s.size for s in lines)[len(lines) // 2]
    for size in sorted({round(s.size, 1) for s in lines if s.size >= TITLE_SIZE_RATIO * body}, reverse=True):
        run = _title_run(sorted((s for s in lines if abs(s.size - size) <= 0.5), key=lambda s: (s.top, s.x0)))
        text = " ".join(s.text.strip() for s in run)
        if reads_as_words(text):
            return text
    return None


def _title_run(same_size: Sequence[Segment]) -> list[Segment]:
    """The first lines of ``same_size`` that follow each other (each within 1.5 line heights of the
    one before), at most TITLE_MAX_LINES."""
    run = list(same_size[:1])
    for seg in same_size[1:TITLE_MAX_LINES]:
        if seg.top - run[-1].bottom > 1.5 * max(run[-1].height, 1.0):
            break
        run.append(seg)
    return run


def _in_margin(seg: Segment, height: float) -> bool:
    return seg.bottom <= 0.12 * height or seg.top >= 0.88 * height


def drop_furniture(segs: Sequence[Segment], height: float, furniture: set[str]) -> list[Segment]:
    """Segments without running headers/footers and bare page numbers in the page margins."""
    return [
        s
        for s in segs
        if not (_in_margin(s, height) and (furniture_key(s.text) in furniture or is_page_number(s.text)))
    ]


def with_text(seg: Segment, text: str) -> Segment:
    return replace(seg, text=text)
