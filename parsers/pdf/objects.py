"""pdfplumber's page objects (``page.objects``), built faster for the common case: plain characters.

pdfplumber turns every pdfminer layout object into a dict with ``Page.process_object``, which runs
a regex on the class name and ``resolve_all`` on each of ~14 attributes: on a text page that is
about two thirds of the whole parse time, more than pdfminer's interpretation of the content
stream. A character's attributes are almost always plain floats, strings and a tuple of floats,
for which ``resolve_all`` returns an equal value, so ``page_objects`` builds those dicts directly
and leaves every other object (and any character with an unexpected attribute) to pdfplumber.
The result is equal, key for key, to ``page.parse_objects()`` (tests/parsers/test_pdf_objects.py
checks this on every sample and generated PDF).

``prime(page)`` stores the result where pdfplumber caches its own (``page._objects``), so
``page.chars``, ``extract_words``, ``find_tables`` and ``page.close()`` work unchanged.
"""

from __future__ import annotations

from typing import Any

import pdfplumber
from pdfminer.layout import LTChar, LTContainer

from parsers.pdf.char_device import char_layout
from parsers.pdf.char_dicts import CharRecord, CharStyle, ColorspaceNames, PageFrame, as_tuple, plain_marks

# LTChar attributes pdfplumber copies (its ALL_ATTRS), plus the ones it reads separately
_CHAR_KEYS = frozenset(
    ("_text", "matrix", "fontname", "ncs", "graphicstate", "adv", "upright", "x0", "y0", "x1", "y1")
    + ("width", "height", "bbox", "size", "mcid", "tag")
)


def prime(page: pdfplumber.page.Page) -> None:
    """Fill pdfplumber's object cache of ``page`` (no-op if it is already filled), its characters
    without fake-bold doubles (``dedupe_chars``)."""
    if not hasattr(page, "_objects"):
        objects = page_objects(page)
        if "char" in objects:
            objects["char"] = dedupe_chars(objects["char"])
        page._objects = objects


# Two glyphs with the same text, font and size this close (points) are one character drawn twice:
# "fake bold" prints each glyph (or word) again a fraction of a point away, and a text layer read
# as is says "SSiiggnneedd". pdfplumber's default tolerance.
DEDUPE_TOLERANCE = 1.0


class _Positions(list):  # type: ignore[type-arg]
    """A list whose ``index`` is a dict lookup: pdfplumber's dedupe_chars restores the original
    order with ``sorted(..., key=chars.index)``, quadratic in a page's characters otherwise."""

    def __init__(self, items: list[dict[str, Any]]) -> None:
        super().__init__(items)
        self._at = {id(item): i for i, item in enumerate(items)}

    def index(self, item: Any, *_: Any) -> int:  # type: ignore[override]
        return self._at[id(item)]


def _any_double(chars: list[dict[str, Any]]) -> bool:
    """A cheap look for a doubled glyph (two with the same text in one 1-point cell): fake bold
    doubles every glyph of a word or line, so a page that has some shows one here, and the full
    dedupe (about half the time of building the page's characters) runs only then."""
    return len({(c["text"], int(c["x0"]), int(c["doctop"])) for c in chars}) < len(chars)


def dedupe_chars(chars: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``chars`` without duplicates (same text, font, size and direction, within DEDUPE_TOLERANCE
    of a kept one), in their order (pdfplumber.utils.dedupe_chars; the first drawn is kept)."""
    if len(chars) < 2 or not _any_double(chars):
        return chars
    unique = pdfplumber.utils.dedupe_chars(_Positions(chars), tolerance=DEDUPE_TOLERANCE)
    return chars if len(unique) == len(chars) else list(unique)


def page_objects(page: pdfplumber.page.Page) -> dict[str, list[dict[str, Any]]]:
    """``page.parse_objects()``, its plain characters built directly (the hot loop of a parse)."""
    objects: dict[str, list[dict[str, Any]]] = {}
    chars: list[dict[str, Any]] = []
    fast = page.pdf.unicode_norm is None  # else pdfplumber normalises each char's text
    with_containers = page.pdf.laparams is not None
    tree = page.layout if with_containers or not fast else char_layout(page)
    frame, colorspace_name = PageFrame.of(page), ColorspaceNames()
    for obj in _leaves(tree._objs, with_containers):
        if type(obj) is CharRecord:
            attr: dict[str, Any] = obj
        else:
            plain = _plain_char(obj, frame, colorspace_name) if fast else None
            attr = page.process_object(obj) if plain is None else plain
        kind = attr["object_type"]
        if kind == "char":
            if not chars:
                objects["char"] = chars  # pdfplumber's key order: first appearance
            chars.append(attr)
        elif kind != "anno":
            objects.setdefault(kind, []).append(attr)
    return objects


def _plain_char(obj: Any, frame: PageFrame, colorspace_name: ColorspaceNames) -> dict[str, Any] | None:
    """pdfplumber's dict of an LTChar whose attributes are all plain values (None for any other
    object: ``process_object`` converts those)."""
    if type(obj) is not LTChar:
        return None
    d = obj.__dict__
    if d.keys() != _CHAR_KEYS:
        return None
    fontname, matrix, mcid, tag = d["fontname"], d["matrix"], d["mcid"], d["tag"]
    # the matrix is computed by pdfminer (numbers); these may come from the file as objects
    if not (plain_marks(fontname, mcid) and type(matrix) is tuple and (tag is None or type(tag) is str)):
        return None
    gs = d["graphicstate"]
    style = CharStyle(
        fontname, d["upright"], mcid, tag, colorspace_name(d["ncs"]), as_tuple(gs.scolor), as_tuple(gs.ncolor)
    )
    box = (d["x0"], d["y0"], d["x1"], d["y1"])
    return frame.char(style, matrix, d["_text"], d["adv"], box, d["size"])


def _leaves(items: list[Any], with_containers: bool) -> Any:
    """pdfplumber's ``iter_layout_objects`` order: depth first, containers before their children
    (and only with layout analysis on)."""
    for obj in items:
        if isinstance(obj, LTContainer):
            if with_containers:
                yield obj
            yield from _leaves(obj._objs, with_containers)
        else:
            yield obj
