"""PDF heading levels: from the document's outline (bookmarks) when it has one, else from type.

The outline is the document's own table of contents, so when most of its entries are found as
lines on their pages, it decides alone: a line that matches an entry on that entry's page is a
heading at the entry's level, and no other line is (heading paths then follow the outline).
Without a usable outline, the headings are the lines set in the document's heading styles
(heading_styles.py: a statistic over the document's type, not a rule per line); their levels come
from numbering first ("3.2.1 Title" is level 3, "Chapter 2" level 1), then from the style's size
rank: unnumbered styles larger than every numbered one rank above the numbered levels (a document
title), others take the level of numbered headings of their style, or sit one below the deepest.
Figure/table labels and running headers are never headings."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any, NamedTuple

from parsers.pdf import text_layout as layout
from parsers.pdf.heading_styles import MAX_LINES, HeadingStyles, Style, style_of
from parsers.pdf.labels import FIGURE_OR_TABLE_LABEL
from parsers.pdf.text_layout import Segment

_NUMBERED = re.compile(r"^(\d{1,2}(?:\.\d{1,3}){0,5})\.?\s+\S")
# chapters share the sections' numbers (chapter 2 holds 2.1); parts and appendices do not
_CHAPTER = re.compile(r"^(?:chapter|kapitel|chapitre|capítulo)\s+(\d{1,2})\b\.?", re.I)
MIN_FOUND = 0.5  # share of outline entries found on their pages for the outline to decide alone


class OutlineEntry(NamedTuple):
    level: int  # 1-based
    title: str
    page: int | None  # 1-based page the entry points to; None when it has no destination


def read_outline(data: bytes) -> list[OutlineEntry]:
    """The PDF's outline (bookmarks) in order, via pypdfium2; [] when it has none or it is unreadable."""
    import pypdfium2 as pdfium

    try:
        doc = pdfium.PdfDocument(data)
    except pdfium.PdfiumError:
        return []
    try:
        out = []
        for item in doc.get_toc(max_depth=16):
            title = " ".join((item.get_title() or "").split())
            if title:
                index = _page_index(doc, item)
                out.append(OutlineEntry(item.level + 1, title, None if index is None else index + 1))
        return out
    except pdfium.PdfiumError:
        return []
    finally:
        doc.close()


def _page_index(doc: Any, item: Any) -> int | None:
    """0-based page a bookmark points to: its /Dest, or the destination of its GoTo action."""
    import pypdfium2.raw as pdfium_c

    dest = item.get_dest()
    if dest is not None:
        index = dest.get_index()
        return int(index) if index is not None else None
    action = pdfium_c.FPDFBookmark_GetAction(item)
    if not action or pdfium_c.FPDFAction_GetType(action) != pdfium_c.PDFACTION_GOTO:
        return None
    raw_dest = pdfium_c.FPDFAction_GetDest(doc, action)
    index = pdfium_c.FPDFDest_GetDestPageIndex(doc, raw_dest) if raw_dest else -1
    return int(index) if index >= 0 else None


def key(text: str) -> str:
    """Text compared without case, spaces or punctuation (a bookmark "1.2 Scope" vs "1.2  Scope")."""
    return "".join(ch for ch in text.lower() if ch.isalnum())


def section_number(text: str) -> tuple[str, ...] | None:
    """("3", "2", "1") for "3.2.1 Title", ("2",) for "Chapter 2. Title"; None when unnumbered."""
    chapter = _CHAPTER.match(text)
    if chapter:
        return (chapter.group(1).upper(),)
    numbered = _NUMBERED.match(text)
    if numbered and any(ch.isalpha() for ch in text[numbered.end() - 1 :]):
        return tuple(numbered.group(1).split("."))
    return None


def is_label(text: str) -> bool:
    """A figure or table label ("Figure 3:", "Fig. 2", "Table 3-1 ..."): a caption, not a heading."""
    return FIGURE_OR_TABLE_LABEL.match(text) is not None


def pop_to_parent(path: list[tuple[int, str]], level: int, text: str) -> None:
    """Drop from ``path`` what the new heading closes: same or deeper levels, and numbered sections
    whose number does not contain this one's (2.1.6 after 1.3.1 closes Chapter 1 too, even when
    the chapter 2 heading is not in the file)."""
    number = section_number(text)
    while path:
        last_level, last_text = path[-1]
        last_number = section_number(last_text)
        unrelated = (
            number is not None and last_number is not None and number[: len(last_number)] != last_number
        )
        if last_level >= level or unrelated:
            path.pop()
        else:
            break


class HeadingLevels:
    """Heading level of a paragraph group (a line or a few), or None when it is not a heading.

    ``groups``: the document's paragraph groups (text layer only), which the heading styles are
    counted over (heading_styles.py); without them every line counts as a group of its own."""

    def __init__(
        self,
        outline: Sequence[OutlineEntry],
        pages: Sequence[tuple[int, Sequence[Segment]]],
        groups: Sequence[Sequence[Segment]] | None = None,
    ) -> None:
        segments = [s for _, segs in pages for s in segs]
        self.body = layout.body_size(segments)
        self.by_page: dict[int | None, dict[str, int]] = defaultdict(dict)
        for entry in outline:
            self.by_page[entry.page].setdefault(key(entry.title), entry.level)
        self.from_outline = bool(outline) and _found_share(outline, pages) >= MIN_FOUND
        self.ancestors = _outline_ancestors(outline)
        self.running = _repeated_lines(pages)
        groups = [[s] for s in segments] if groups is None else groups
        self.styles = HeadingStyles(groups, [segs for _, segs in pages], self._skip)
        self._rank_styles([run for g in groups for run in self.split(g) if self._candidate(run)])

    def _skip(self, text: str) -> bool:
        return is_label(text) or text in self.running

    def _candidate(self, run: Sequence[Segment]) -> bool:
        return self.styles.is_heading(run) and not any(self._skip(s.text) for s in run)

    def is_heading(self, group: Sequence[Segment]) -> bool:
        """``group`` is a heading by type (the outline, when it decides, is not asked)."""
        return not self.from_outline and bool(group) and self._candidate(group)

    def split(self, group: Sequence[Segment]) -> list[list[Segment]]:
        """A paragraph group with the heading lines merged into it cut out (heading_styles.py);
        unchanged when the outline decides."""
        return [list(group)] if self.from_outline else self.styles.split(group)

    def _rank_styles(self, candidates: list[list[Segment]]) -> None:
        """Levels by type: numbered headings by their number; the heading styles by size rank,
        bold, then italic, above regular at one size (largest = 1); unnumbered styles larger than
        every numbered one rank above the numbered levels (a title and subtitle), others below
        the deepest."""
        numbered: dict[Style, Counter[int]] = defaultdict(Counter)
        for run in candidates:
            number = section_number(" ".join(s.text for s in run))
            if number:
                numbered[style_of(run[0])][len(number)] += 1
        styles = sorted({style_of(r[0]) for r in candidates}, key=lambda st: (-st[0], not st[1], not st[2]))
        if not numbered:
            self.rank = {style: i + 1 for i, style in enumerate(styles[:5])}
            self.offset, self.below = 0, len(self.rank) + 1
            return
        top = max(style[0] for style in numbered)
        above = [st for st in styles if st[0] > top][:2]  # a title (and subtitle) over the sections
        self.offset = len(above)
        deepest = max(depth for c in numbered.values() for depth in c)
        self.rank = {style: i + 1 for i, style in enumerate(above)}
        self.rank.update({style: c.most_common(1)[0][0] + self.offset for style, c in numbered.items()})
        self.below = deepest + self.offset + 1

    def close(self, path: list[tuple[int, str]], level: int, text: str) -> None:
        """Drop from ``path`` what the heading ``text`` at ``level`` closes. With the outline in
        charge, that is everything that is not its ancestor in the outline (an entry whose title
        is not printed, such as a bookmark named after a merged file, still closes its siblings)."""
        if not self.from_outline:
            pop_to_parent(path, level, text)
            return
        ancestors = self.ancestors.get(key(text), set())
        while path and (path[-1][0] >= level or key(path[-1][1]) not in ancestors):
            path.pop()

    def level(self, segs: list[Segment], ocr: bool, page: int) -> int | None:
        text = " ".join(s.text for s in segs)
        if len(segs) <= MAX_LINES:
            k = key(text)
            # a bookmark may point to the foot of the page before its heading
            found = next(
                (self.by_page[p][k] for p in (page, page - 1, None) if k in self.by_page.get(p, {})), None
            )
            if found:
                return found
        if self.from_outline or ocr or not self._candidate(segs):
            return None
        number = section_number(text)
        if number and self.offset + len(number) <= 9:
            return self.offset + len(number)
        return self.rank.get(style_of(segs[0]), self.below)


def _outline_ancestors(outline: Sequence[OutlineEntry]) -> dict[str, set[str]]:
    """For each entry's title key (first occurrence), the keys of the entries above it."""
    out: dict[str, set[str]] = {}
    stack: list[OutlineEntry] = []
    for entry in outline:
        while stack and stack[-1].level >= entry.level:
            stack.pop()
        out.setdefault(key(entry.title), {key(e.title) for e in stack})
        stack.append(entry)
    return out


def _found_share(outline: Sequence[OutlineEntry], pages: Sequence[tuple[int, Sequence[Segment]]]) -> float:
    """Share of outline entries whose title is on their page as a line or up to three lines."""
    keys: dict[int, set[str]] = {}
    for number, segs in pages:
        texts = [key(s.text) for s in segs]
        keys[number] = {"".join(texts[i : i + n]) for n in range(1, MAX_LINES + 1) for i in range(len(texts))}
    found = 0
    for entry in outline:
        pages_of = (entry.page, entry.page + 1) if entry.page is not None else tuple(keys)
        pool = [keys.get(n, set()) for n in pages_of]
        found += any(key(entry.title) in p for p in pool)
    return found / len(outline)


def _repeated_lines(pages: Sequence[tuple[int, Sequence[Segment]]]) -> set[str]:
    """Lines repeated (digits masked) on at least 3 pages and a third of them: running headers
    outside the margins furniture removal looks at."""
    if len(pages) < 3:
        return set()
    seen: Counter[str] = Counter()
    for _, segs in pages:
        seen.update({layout.furniture_key(s.text) for s in segs})
    repeated = {k for k, n in seen.items() if n >= max(3, len(pages) / 3)}
    return {s.text for _, segs in pages for s in segs if layout.furniture_key(s.text) in repeated}
