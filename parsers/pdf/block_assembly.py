"""Pages -> the document's blocks: running headers and footers dropped, headings levelled (from
the outline, else font size and weight), tables placed by their box in reading order, titled by
the caption or heading before them, and a table continued on the next page merged into one."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from parsers.model import Block, Table
from parsers.pdf import headings
from parsers.pdf import text_layout as layout
from parsers.pdf.labels import TABLE_LABEL
from parsers.pdf.page_reader import PageContent
from parsers.pdf.tables.page_table import PageTable, continues, merge_continuation, titled
from parsers.pdf.text_layout import Segment

Box = tuple[float, float, float, float]  # x0, top, x1, bottom


def assemble(
    pages: list[PageContent], outline: list[headings.OutlineEntry], furniture: set[str]
) -> list[Block]:
    """Blocks for all pages: ``furniture`` (layout.find_furniture) dropped, headings levelled,
    continued tables merged."""
    for p in pages:
        p.segments = layout.drop_furniture(p.segments, p.height, furniture)
    items = [_page_items(p) for p in pages]
    text_pages = [(p, page_items) for p, page_items in zip(pages, items, strict=True) if p.ocr is None]
    levels = headings.HeadingLevels(
        outline,
        [(p.number, p.segments) for p, _ in text_pages],
        [g for _, page_items in text_pages for g in page_items if isinstance(g, list)],
    )
    blocks: list[Block] = []
    path: list[tuple[int, str]] = []
    previous_table: PageTable | None = None
    for page, page_items in zip(pages, items, strict=True):
        start_path = tuple(t for _, t in path)
        heads: list[tuple[Box, tuple[str, ...]]] = []  # this page's headings: box, heading path
        # a table first found on this page: block index -> (headings read before it, its box)
        placing: dict[int, tuple[int, Sequence[float]]] = {}
        for item in _join_run_in_heads(page_items, levels) if page.ocr is None else page_items:
            if isinstance(item, PageTable):
                count = len(blocks)
                previous_table = _add_table(blocks, item, previous_table, path, page.number)
                if len(blocks) > count:  # not merged into the table before it
                    placing[count] = (len(heads), item.bbox)
                continue
            previous_table = None if item else previous_table
            for group in levels.split(item) if page.ocr is None else [item]:
                made = _prose_blocks(group, page, levels, path)
                if made and made[0].kind == "heading":
                    heads.append((_box(group), made[0].heading_path))
                blocks.extend(made)
        _place_tables(blocks, placing, heads, start_path, page.segments)
    return blocks


def _box(group: list[Segment]) -> Box:
    return (
        min(s.x0 for s in group),
        min(s.top for s in group),
        max(s.x1 for s in group),
        max(s.bottom for s in group),
    )


def _place_tables(
    blocks: list[Block],
    placing: dict[int, tuple[int, Sequence[float]]],
    heads: list[tuple[Box, tuple[str, ...]]],
    start_path: tuple[str, ...],
    segments: list[Segment],
) -> None:
    """Give each table first found on this page (``placing``: its block index -> the page's
    headings read before it, its box; a table continued beside or below it on the page may have
    been merged into it since) the heading path of where it sits: the latest heading, in reading order, of
    the one read right before it and those that stand above it and overlap it across or lie in a
    text column to its left (three columns: a table across the top of the right two, which reading
    order puts before the left column's text, sits under the left column's last heading); none:
    the path the page started under. A table without a caption is titled with its innermost
    heading."""
    for i, (before, box) in placing.items():
        block = blocks[i]
        assert block.table is not None
        at = before - 1
        for j, (head, _) in enumerate(heads):
            if j > at and (_above(head, box) or _column_left_of(head, box, segments)):
                at = j
        path = heads[at][1] if at >= 0 else start_path
        table = titled(block.table, path[-1] if path else None)
        blocks[i] = _table_block(table, path, block.page, block.metadata)


def _above(head: Box, table: Sequence[float]) -> bool:
    """``head`` ends above the table's top and shares some of its width."""
    return head[3] <= table[1] + 2 and min(head[2], table[2]) - max(head[0], table[0]) > 0


def _column_left_of(head: Box, table: Sequence[float], segments: list[Segment]) -> bool:
    """``head`` starts a text column that lies wholly left of the table: the lines that start where
    the heading starts (three at least) all end before the table's left edge."""
    column = [s for s in segments if abs(s.x0 - head[0]) < 3]
    return head[2] < table[0] and len(column) >= 3 and all(s.x1 < table[0] for s in column)


def _join_run_in_heads(items: list[Any], levels: headings.HeadingLevels) -> list[Any]:
    """A heading-style line at the size of the text after it, whose sentence runs on in lower case
    in the next paragraph group, is a run-in head ("Training and Implementation We implement" /
    "our model in ..."): one group."""
    out: list[Any] = []
    for item in items:
        previous = out[-1] if out else None
        if (
            isinstance(item, list)
            and isinstance(previous, list)
            and item[0].text.lstrip()[:1].islower()
            and abs(item[0].size - previous[-1].size) < 0.5
            and levels.is_heading(previous)
        ):
            out[-1] = previous + item
        else:
            out.append(item)
    return out


def _page_items(page: PageContent) -> list[Any]:
    """Tables and paragraph groups of one page in reading order (a table is placed by its box)."""
    markers = [
        Segment(f"\x00{i}", t.bbox[0], t.bbox[1], t.bbox[2], t.bbox[3], 0.0)
        for i, t in enumerate(page.tables)
    ]
    ordered = layout.reading_order(page.segments + markers)
    items: list[Any] = []
    run: list[Segment] = []
    for seg in ordered:
        if seg.text.startswith("\x00"):
            items.extend(layout.paragraphs(run))
            run = []
            items.append(page.tables[int(seg.text[1:])])
        else:
            run.append(seg)
    items.extend(layout.paragraphs(run))
    return items


def _prose_blocks(
    group: list[Segment], page: PageContent, levels: headings.HeadingLevels, path: list[tuple[int, str]]
) -> list[Block]:
    text = layout.join_lines([s.text for s in group])
    if not text:
        return []
    meta: dict[str, Any] = {}
    if page.ocr:
        scores = [s.confidence for s in group if s.confidence is not None]
        meta = {"ocr": True, "confidence": round(sum(scores) / max(len(scores), 1), 4)}
    level = levels.level(group, page.ocr is not None, page.number)
    if level is not None:
        levels.close(path, level, text)
        path.append((level, text))
        heading_path = tuple(t for _, t in path)
        return [Block("heading", text, heading_path, page=page.number, metadata={"level": level, **meta})]
    return [Block("paragraph", text, tuple(t for _, t in path), page=page.number, metadata=meta)]


def _add_table(
    blocks: list[Block],
    found: PageTable,
    previous: PageTable | None,
    path: list[tuple[int, str]],
    page_number: int,
) -> PageTable:
    """Append a table block, or extend the previous one when this table continues it."""
    if previous is not None and blocks and blocks[-1].kind == "table" and continues(previous, found):
        last = blocks.pop()
        assert last.table is not None
        merged = merge_continuation(last.table, found.table)
        pages = [*last.metadata.get("pages", [last.page]), page_number]
        # [page, index of its first body row] per page, so each chunk of rows cites its own pages
        starts = [*last.metadata.get("page_starts", [[last.page, 0]]), [page_number, len(last.table.body)]]
        metadata = {"pages": pages, "page_starts": starts}
        blocks.append(_table_block(merged, last.heading_path, last.page, metadata))
        return found
    # the heading path where reading order put it; where the table sits decides once the page's
    # headings are known, and titles it when no caption does (_place_tables)
    table = titled(found.table, _caption(blocks, page_number))
    blocks.append(_table_block(table, tuple(t for _, t in path), page_number, {"bbox": list(found.bbox)}))
    return found


def _caption(blocks: list[Block], page_number: int) -> str | None:
    """The short line right before a table on its page ("Table 2: Service schedule"), if any (a
    heading right before it titles it through its heading path, _place_tables)."""
    if not blocks or blocks[-1].page != page_number or blocks[-1].kind != "paragraph":
        return None
    text = blocks[-1].text
    return text if TABLE_LABEL.match(text) else None


def _table_block(
    table: Table, heading_path: tuple[str, ...], page: int | None, meta: Mapping[str, Any]
) -> Block:
    return Block("table", table.markdown(), heading_path, page=page, table=table, metadata=dict(meta))
