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
from pdfminer.layout import LTChar, LTContainer, LTPage
from pdfminer.pdfcolor import PDFColorSpace
from pdfminer.pdfdevice import PDFTextSeq
from pdfminer.pdffont import PDFFont, PDFUnicodeNotDefined
from pdfminer.pdfinterp import PDFGraphicState, PDFPageInterpreter
from pdfminer.utils import Matrix, Point, apply_matrix_rect
from pdfplumber.page import PDFPageAggregatorWithMarkedContent
from pdfplumber.utils import resolve_all, resolve_and_decode
from pdfplumber.utils.exceptions import PdfminerException

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
    """``page.parse_objects()``, with plain characters converted inline (the hot loop of a parse)."""
    objects: dict[str, list[dict[str, Any]]] = {}
    chars: list[dict[str, Any]] = []
    fallback = page.process_object
    page_number, height, doctop = page.page_number, page.height, page.initial_doctop
    mb_x0, mb_top = page.mediabox[:2]
    fast = page.pdf.unicode_norm is None  # else pdfplumber normalises each char's text
    colorspaces: dict[int, tuple[PDFColorSpace, str]] = {}
    with_containers = page.pdf.laparams is not None
    tree = page.layout if with_containers or not fast else _char_layout(page)
    for obj in _leaves(tree._objs, with_containers):
        if type(obj) is CharRecord:
            if not chars:
                objects["char"] = chars
            chars.append(obj)
            continue
        d = obj.__dict__
        if fast and type(obj) is LTChar and d.keys() == _CHAR_KEYS:
            fontname, matrix, mcid, tag, ncs = d["fontname"], d["matrix"], d["mcid"], d["tag"], d["ncs"]
            # the matrix is computed by pdfminer (numbers); these may come from the file as objects
            if (
                type(fontname) is str
                and type(matrix) is tuple
                and (mcid is None or type(mcid) is int)
                and (tag is None or type(tag) is str)
            ):
                cs = colorspaces.get(id(ncs))
                if cs is None or cs[0] is not ncs:
                    cs = colorspaces[id(ncs)] = (ncs, resolve_and_decode(ncs.name))
                gs = d["graphicstate"]
                scolor, ncolor = gs.scolor, gs.ncolor
                x0, y0, x1, y1 = d["x0"], d["y0"], d["x1"], d["y1"]
                top = (height - y1) + mb_top
                if mb_x0 != 0:
                    x0, x1 = x0 + mb_x0, x1 + mb_x0
                if not chars:
                    objects["char"] = chars  # pdfplumber's key order: first appearance
                chars.append(
                    {
                        "matrix": matrix,
                        "fontname": fontname,
                        "adv": d["adv"],
                        "upright": d["upright"],
                        "x0": x0,
                        "y0": y0,
                        "x1": x1,
                        "y1": y1,
                        "width": d["width"],
                        "height": d["height"],
                        "size": d["size"],
                        "mcid": mcid,
                        "tag": tag,
                        "object_type": "char",
                        "page_number": page_number,
                        "ncs": cs[1],
                        "text": d["_text"],
                        "stroking_color": scolor if isinstance(scolor, tuple) else (scolor,),
                        "non_stroking_color": ncolor if isinstance(ncolor, tuple) else (ncolor,),
                        "top": top,
                        "bottom": (height - y0) + mb_top,
                        "doctop": doctop + top,
                    }
                )
                continue
        attr = fallback(obj)
        kind = attr["object_type"]
        if kind == "anno":
            continue
        if kind == "char" and not chars:
            objects["char"] = chars
        (chars if kind == "char" else objects.setdefault(kind, [])).append(attr)
    return objects


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


# --- characters straight from the content stream --------------------------------------------------


class CharRecord(dict):  # type: ignore[type-arg]
    """A char dict that pdfplumber's marked-content hook can tag like an LTChar (``obj.mcid = ...``)."""

    __slots__ = ()

    def __setattr__(self, key: str, value: Any) -> None:
        self[key] = resolve_all(value)  # process_object resolves mcid/tag the same way


def _char_layout(page: pdfplumber.page.Page) -> LTPage:
    """``page.layout`` without layout analysis, with each plain character already a CharRecord
    (not an LTChar to be converted later). Not cached on the page: only ``page_objects`` reads it."""
    device = _CharDevice(page)
    interpreter = PDFPageInterpreter(page.pdf.rsrcmgr, device)
    try:
        interpreter.process_page(page.page_obj)
    except Exception as exc:  # noqa: BLE001 - as pdfplumber's Page.layout wraps them
        raise PdfminerException(exc) from exc
    return device.get_result()


class _CharDevice(PDFPageAggregatorWithMarkedContent):
    """pdfplumber's device, with ``render_char`` = pdfminer's ``render_char`` + ``LTChar.__init__`` +
    pdfplumber's ``tag_cur_item`` + ``process_object``, same arithmetic in the same order."""

    def __init__(self, page: pdfplumber.page.Page) -> None:
        super().__init__(page.pdf.rsrcmgr, pageno=page.page_number, laparams=None)
        self.page_number, self.page_height, self.doctop = page.page_number, page.height, page.initial_doctop
        self.mb_x0, self.mb_top = page.mediabox[:2]
        self.colorspaces: dict[int, tuple[PDFColorSpace, str]] = {}
        # per font: (font, descent, {cid: (text, width)}); fonts do not change during a page
        self.glyphs: dict[int, tuple[PDFFont, float, dict[int, tuple[str, float]]]] = {}

    def render_string_horizontal(  # type: ignore[override]
        self,
        seq: PDFTextSeq,
        matrix: Matrix,
        pos: Point,
        font: PDFFont,
        fontsize: float,
        scaling: float,
        charspace: float,
        wordspace: float,
        rise: float,
        dxscale: float,
        ncs: PDFColorSpace,
        graphicstate: PDFGraphicState,
    ) -> Point:
        """pdfminer's loop over the glyphs of a string, with ``render_char`` inlined for a
        horizontal font (the hot loop of a text page); the same arithmetic in the same order."""
        mcid, tag = self.cur_mcid, self.cur_tag
        if type(font.fontname) is not str or not (mcid is None or type(mcid) is int):
            return super().render_string_horizontal(  # type: ignore[no-any-return]
                seq,
                matrix,
                pos,
                font,
                fontsize,
                scaling,
                charspace,
                wordspace,
                rise,
                dxscale,
                ncs,
                graphicstate,
            )
        known = self.glyphs.get(id(font))
        if known is None or known[0] is not font:
            known = self.glyphs[id(font)] = (font, font.get_descent(), {})
        glyphs = known[2]
        descent = known[1] * fontsize
        cs = self.colorspaces.get(id(ncs))
        if cs is None or cs[0] is not ncs:
            cs = self.colorspaces[id(ncs)] = (ncs, resolve_and_decode(ncs.name))
        scolor: Any = graphicstate.scolor
        ncolor: Any = graphicstate.ncolor
        scolor = scolor if isinstance(scolor, tuple) else (scolor,)
        ncolor = ncolor if isinstance(ncolor, tuple) else (ncolor,)
        fontname, page_number, page_height, doctop = (
            font.fontname,
            self.page_number,
            self.page_height,
            self.doctop,
        )
        mb_x0, mb_top = self.mb_x0, self.mb_top
        out: list[Any] = self.cur_item._objs  # CharRecords stand in for LTChars (see module doc)
        (a, b, c, d, e, f) = matrix
        upright = a * d * scaling > 0 and b * c <= 0
        bottom_y, top_y = descent + rise, descent + rise + fontsize
        (x, y) = pos
        needcharspace = False
        for obj in seq:
            if isinstance(obj, (int, float)):
                x -= obj * dxscale
                needcharspace = True
                continue
            if not isinstance(obj, bytes):
                super().render_string_horizontal(  # pdfminer logs the bad operand
                    [obj],
                    matrix,
                    (x, y),
                    font,
                    fontsize,
                    scaling,
                    charspace,
                    wordspace,
                    rise,
                    dxscale,
                    ncs,
                    graphicstate,
                )
                continue
            for cid in font.decode(obj):
                if needcharspace:
                    x += charspace
                glyph = glyphs.get(cid)
                if glyph is None:
                    try:
                        text = font.to_unichr(cid)
                        assert isinstance(text, str), str(type(text))
                    except PDFUnicodeNotDefined:
                        text = self.handle_undefined_char(font, cid)
                    glyph = glyphs[cid] = (text, font.char_width(cid))
                text, textwidth = glyph
                adv = textwidth * fontsize * scaling
                # translate_matrix(matrix, (x, y)), then apply_matrix_rect(that, bbox), inlined
                ce, cf = x * a + y * c + e, x * b + y * d + f
                left1, bottom1 = a * 0 + c * bottom_y + ce, b * 0 + d * bottom_y + cf
                right1, bottom2 = a * adv + c * bottom_y + ce, b * adv + d * bottom_y + cf
                right2, top1 = a * adv + c * top_y + ce, b * adv + d * top_y + cf
                left2, top2 = a * 0 + c * top_y + ce, b * 0 + d * top_y + cf
                x0, y0 = min(left1, left2, right1, right2), min(bottom1, bottom2, top1, top2)
                x1, y1 = max(left1, left2, right1, right2), max(bottom1, bottom2, top1, top2)
                height = y1 - y0
                top = (page_height - y1) + mb_top
                out.append(
                    CharRecord(
                        matrix=(a, b, c, d, ce, cf),
                        fontname=fontname,
                        adv=adv,
                        upright=upright,
                        x0=x0 + mb_x0 if mb_x0 != 0 else x0,
                        y0=y0,
                        x1=x1 + mb_x0 if mb_x0 != 0 else x1,
                        y1=y1,
                        width=x1 - x0,
                        height=height,
                        size=height,
                        mcid=mcid,
                        tag=tag,
                        object_type="char",
                        page_number=page_number,
                        ncs=cs[1],
                        text=text,
                        stroking_color=scolor,
                        non_stroking_color=ncolor,
                        top=top,
                        bottom=(page_height - y0) + mb_top,
                        doctop=doctop + top,
                    )
                )
                x += adv
                if cid == 32 and wordspace:
                    x += wordspace
                needcharspace = True
        return (x, y)

    def render_char(  # type: ignore[override]
        self,
        matrix: Matrix,
        font: PDFFont,
        fontsize: float,
        scaling: float,
        rise: float,
        cid: int,
        ncs: PDFColorSpace,
        graphicstate: PDFGraphicState,
    ) -> float:
        fontname, mcid, tag = font.fontname, self.cur_mcid, self.cur_tag
        if type(fontname) is not str or not (mcid is None or type(mcid) is int):
            return float(super().render_char(matrix, font, fontsize, scaling, rise, cid, ncs, graphicstate))
        try:
            text = font.to_unichr(cid)
            assert isinstance(text, str), str(type(text))
        except PDFUnicodeNotDefined:
            text = self.handle_undefined_char(font, cid)
        textwidth = font.char_width(cid)
        textdisp = font.char_disp(cid)
        adv = textwidth * fontsize * scaling
        vertical = font.is_vertical()
        if vertical:
            assert isinstance(textdisp, tuple)
            (vx, vy) = textdisp
            vx = fontsize * 0.5 if vx is None else vx * fontsize * 0.001
            vy = (1000 - vy) * fontsize * 0.001
            bbox = (-vx, vy + rise + adv, -vx + fontsize, vy + rise)
        else:
            descent = font.get_descent() * fontsize
            bbox = (0, descent + rise, adv, descent + rise + fontsize)
        (a, b, c, d, _e, _f) = matrix
        upright = a * d * scaling > 0 and b * c <= 0
        (x0, y0, x1, y1) = apply_matrix_rect(matrix, bbox)
        if x1 < x0:
            (x0, x1) = (x1, x0)
        if y1 < y0:
            (y0, y1) = (y1, y0)
        width, height = x1 - x0, y1 - y0
        cs = self.colorspaces.get(id(ncs))
        if cs is None or cs[0] is not ncs:
            cs = self.colorspaces[id(ncs)] = (ncs, resolve_and_decode(ncs.name))
        scolor, ncolor = graphicstate.scolor, graphicstate.ncolor
        top = (self.page_height - y1) + self.mb_top
        record = CharRecord(
            matrix=matrix,
            fontname=fontname,
            adv=adv,
            upright=upright,
            x0=x0 + self.mb_x0 if self.mb_x0 != 0 else x0,
            y0=y0,
            x1=x1 + self.mb_x0 if self.mb_x0 != 0 else x1,
            y1=y1,
            width=width,
            height=height,
            size=width if vertical else height,
            mcid=mcid,
            tag=tag,
            object_type="char",
            page_number=self.page_number,
            ncs=cs[1],
            text=text,
            stroking_color=scolor if isinstance(scolor, tuple) else (scolor,),
            non_stroking_color=ncolor if isinstance(ncolor, tuple) else (ncolor,),
            top=top,
            bottom=(self.page_height - y0) + self.mb_top,
            doctop=self.doctop + top,
        )
        # LTContainer.add, minus a call
        self.cur_item._objs.append(record)  # type: ignore[arg-type]
        return adv
