"""Characters straight from the content stream: a pdfminer device whose glyphs are pdfplumber's
char dicts (``CharRecord``) from the start, not LTChars converted later (see parsers.pdf.objects).

``char_layout(page)`` is ``page.layout`` without layout analysis, made by ``_CharDevice``:
pdfminer's ``render_string`` + ``render_char`` + ``LTChar.__init__`` + pdfplumber's
``tag_cur_item`` + ``process_object``, the same arithmetic in the same order, with the horizontal
string loop (the hot loop of a text page) written out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pdfplumber
from pdfminer.layout import LTPage
from pdfminer.pdfcolor import PDFColorSpace
from pdfminer.pdfdevice import PDFTextSeq
from pdfminer.pdffont import PDFFont, PDFUnicodeNotDefined
from pdfminer.pdfinterp import PDFGraphicState, PDFPageInterpreter, PDFTextState
from pdfminer.utils import Matrix, Point, apply_matrix_rect, mult_matrix
from pdfplumber.page import PDFPageAggregatorWithMarkedContent
from pdfplumber.utils.exceptions import PdfminerException

from parsers.pdf.char_dicts import CharRecord, CharStyle, ColorspaceNames, PageFrame, as_tuple, plain_marks
from parsers.pdf.dingbats import dingbat_text, is_dingbats

Glyphs = dict[int, tuple[str, float]]  # a font's glyphs met so far: cid -> (text, width)


def char_layout(page: pdfplumber.page.Page) -> LTPage:
    """``page.layout`` without layout analysis, with each plain character already a CharRecord.
    Not cached on the page: only ``page_objects`` reads it."""
    device = _CharDevice(page)
    interpreter = PDFPageInterpreter(page.pdf.rsrcmgr, device)
    try:
        interpreter.process_page(page.page_obj)
    except Exception as exc:  # noqa: BLE001 - as pdfplumber's Page.layout wraps them
        raise PdfminerException(exc) from exc
    return device.get_result()


@dataclass(frozen=True, slots=True)
class TextRun:
    """One string operator's text state, as pdfminer's ``PDFTextDevice.render_string`` derives it."""

    matrix: Matrix
    font: PDFFont
    fontsize: float
    scaling: float
    charspace: float
    wordspace: float
    rise: float
    dxscale: float
    ncs: PDFColorSpace
    graphicstate: PDFGraphicState

    @classmethod
    def of(cls, textstate: PDFTextState, ctm: Matrix, ncs: PDFColorSpace, gs: PDFGraphicState) -> TextRun:
        """pdfminer's arithmetic, in its order."""
        font = textstate.font
        assert font is not None
        fontsize = textstate.fontsize
        scaling = textstate.scaling * 0.01
        charspace = textstate.charspace * scaling
        wordspace = 0 if font.is_multibyte() else textstate.wordspace * scaling
        dxscale = 0.001 * fontsize * scaling
        matrix = mult_matrix(textstate.matrix, ctm)
        return cls(matrix, font, fontsize, scaling, charspace, wordspace, textstate.rise, dxscale, ncs, gs)


class _CharDevice(PDFPageAggregatorWithMarkedContent):
    """pdfplumber's device, its characters made as CharRecords (see the module doc)."""

    def __init__(self, page: pdfplumber.page.Page) -> None:
        super().__init__(page.pdf.rsrcmgr, pageno=page.page_number, laparams=None)
        self.frame = PageFrame.of(page)
        self.colorspace_name = ColorspaceNames()
        # per font: (font, descent, {cid: (text, width)}); fonts do not change during a page
        self.glyphs: dict[int, tuple[PDFFont, float, Glyphs]] = {}

    def render_string(
        self, textstate: PDFTextState, seq: PDFTextSeq, ncs: PDFColorSpace, graphicstate: PDFGraphicState
    ) -> None:
        font = textstate.font
        plain = font is not None and not font.is_vertical() and plain_marks(font.fontname, self.cur_mcid)
        if self.ctm is None or not plain:
            super().render_string(textstate, seq, ncs, graphicstate)  # per glyph, through render_char
            return
        run = TextRun.of(textstate, self.ctm, ncs, graphicstate)
        textstate.linematrix = self._render_horizontal(run, seq, textstate.linematrix)

    def _render_horizontal(self, run: TextRun, seq: PDFTextSeq, pos: Point) -> Point:
        """pdfminer's ``render_string_horizontal`` with ``render_char`` inlined; the pen position after."""
        font, fontsize, scaling, dxscale = run.font, run.fontsize, run.scaling, run.dxscale
        charspace, wordspace, rise = run.charspace, run.wordspace, run.rise
        descent_unit, glyphs = self._glyph_table(font)
        descent = descent_unit * fontsize
        (a, b, c, d, e, f) = run.matrix
        style = self._style(font.fontname, a * d * scaling > 0 and b * c <= 0, run.ncs, run.graphicstate)
        frame = self.frame
        out: list[Any] = self.cur_item._objs  # CharRecords stand in for LTChars
        bottom_y, top_y = descent + rise, descent + rise + fontsize
        (x, y) = pos
        needcharspace = False
        for obj in seq:
            if isinstance(obj, (int, float)):
                x -= obj * dxscale
                needcharspace = True
                continue
            if not isinstance(obj, bytes):
                self._log_bad_operand(run, obj, (x, y))
                continue
            for cid in font.decode(obj):
                if needcharspace:
                    x += charspace
                text, textwidth = glyphs.get(cid) or self._learn_glyph(font, glyphs, cid)
                adv = textwidth * fontsize * scaling
                # translate_matrix(matrix, (x, y)), then apply_matrix_rect(that, bbox), inlined
                ce, cf = x * a + y * c + e, x * b + y * d + f
                left1, bottom1 = a * 0 + c * bottom_y + ce, b * 0 + d * bottom_y + cf
                right1, bottom2 = a * adv + c * bottom_y + ce, b * adv + d * bottom_y + cf
                right2, top1 = a * adv + c * top_y + ce, b * adv + d * top_y + cf
                left2, top2 = a * 0 + c * top_y + ce, b * 0 + d * top_y + cf
                x0, y0 = min(left1, left2, right1, right2), min(bottom1, bottom2, top1, top2)
                x1, y1 = max(left1, left2, right1, right2), max(bottom1, bottom2, top1, top2)
                box = (x0, y0, x1, y1)
                out.append(frame.char(style, (a, b, c, d, ce, cf), text, adv, box, y1 - y0, CharRecord))
                x += adv
                if cid == 32 and wordspace:
                    x += wordspace
                needcharspace = True
        return (x, y)

    def _log_bad_operand(self, run: TextRun, obj: Any, pos: Point) -> None:
        """pdfminer logs an operand that is neither a number nor a string (and draws nothing)."""
        super().render_string_horizontal(
            [obj],
            run.matrix,
            pos,
            run.font,
            run.fontsize,
            run.scaling,
            run.charspace,
            run.wordspace,
            run.rise,
            run.dxscale,
            run.ncs,
            run.graphicstate,
        )

    def _glyph_table(self, font: PDFFont) -> tuple[float, Glyphs]:
        """``font``'s descent (per unit of size) and its cache of glyphs: cid -> (text, width)."""
        known = self.glyphs.get(id(font))
        if known is None or known[0] is not font:
            known = self.glyphs[id(font)] = (font, font.get_descent(), {})
        return known[1], known[2]

    def _learn_glyph(self, font: PDFFont, glyphs: Glyphs, cid: int) -> tuple[str, float]:
        glyph = glyphs[cid] = (self._glyph_text(font, cid), font.char_width(cid))
        return glyph

    def _glyph_text(self, font: PDFFont, cid: int) -> str:
        """The text of glyph ``cid``, or pdfminer's ``(cid:N)`` where the font does not say (a
        ZapfDingbats font without a Unicode map is read by its standard encoding)."""
        try:
            text = font.to_unichr(cid)
            assert isinstance(text, str), str(type(text))
        except PDFUnicodeNotDefined:
            dingbat = dingbat_text(cid) if is_dingbats(str(getattr(font, "fontname", ""))) else None
            text = dingbat if dingbat is not None else self.handle_undefined_char(font, cid)
        return text

    def _style(self, fontname: str, upright: bool, ncs: PDFColorSpace, gs: PDFGraphicState) -> CharStyle:
        return CharStyle(
            fontname,
            upright,
            self.cur_mcid,
            self.cur_tag,
            self.colorspace_name(ncs),
            as_tuple(gs.scolor),
            as_tuple(gs.ncolor),
        )

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
        """One glyph of a vertical font (or of a string the fast loop left to pdfminer)."""
        fontname = font.fontname
        if not plain_marks(fontname, self.cur_mcid):
            return float(super().render_char(matrix, font, fontsize, scaling, rise, cid, ncs, graphicstate))
        text = self._glyph_text(font, cid)
        adv = font.char_width(cid) * fontsize * scaling
        vertical = font.is_vertical()
        box = _glyph_box(matrix, font, cid, fontsize, rise, adv, vertical)
        (a, b, c, d, _e, _f) = matrix
        style = self._style(fontname, a * d * scaling > 0 and b * c <= 0, ncs, graphicstate)
        (x0, y0, x1, y1) = box
        record = self.frame.char(style, matrix, text, adv, box, x1 - x0 if vertical else y1 - y0, CharRecord)
        self.cur_item._objs.append(record)  # type: ignore[arg-type]  # LTContainer.add, minus a call
        return adv


def _glyph_box(
    matrix: Matrix, font: PDFFont, cid: int, fontsize: float, rise: float, adv: float, vertical: bool
) -> tuple[float, float, float, float]:
    """LTChar's bounding box of one glyph on the page: (x0, y0, x1, y1), x0 <= x1 and y0 <= y1."""
    if vertical:
        textdisp = font.char_disp(cid)
        assert isinstance(textdisp, tuple)
        (vx, vy) = textdisp
        vx = fontsize * 0.5 if vx is None else vx * fontsize * 0.001
        vy = (1000 - vy) * fontsize * 0.001
        bbox = (-vx, vy + rise + adv, -vx + fontsize, vy + rise)
    else:
        descent = font.get_descent() * fontsize
        bbox = (0, descent + rise, adv, descent + rise + fontsize)
    (x0, y0, x1, y1) = apply_matrix_rect(matrix, bbox)
    if x1 < x0:
        (x0, x1) = (x1, x0)
    if y1 < y0:
        (y0, y1) = (y1, y0)
    return (x0, y0, x1, y1)
