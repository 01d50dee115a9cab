"""The character dict pdfplumber makes of a glyph (one entry of ``page.chars``), built in one place.

pdfplumber's ``Page.process_object`` makes it from an LTChar; ``parsers.pdf.objects`` (from an
LTChar) and ``parsers.pdf.char_device`` (straight from the content stream) build the same dict,
key for key and in pdfplumber's key order, through ``PageFrame.char``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pdfplumber
from pdfminer.pdfcolor import PDFColorSpace
from pdfminer.utils import Matrix
from pdfplumber.utils import resolve_all, resolve_and_decode

CharDict = dict[str, Any]
Box = tuple[float, float, float, float]


class CharRecord(dict):  # type: ignore[type-arg]
    """A char dict that pdfplumber's marked-content hook can tag like an LTChar (``obj.mcid = ...``)."""

    __slots__ = ()

    def __setattr__(self, key: str, value: Any) -> None:
        self[key] = resolve_all(value)  # process_object resolves mcid/tag the same way


def plain_marks(fontname: Any, mcid: Any) -> bool:
    """A font name and marked-content id of the plain types the fast paths copy as they are
    (anything else may come from the file as a PDF object: pdfplumber resolves those)."""
    return type(fontname) is str and (mcid is None or type(mcid) is int)


def as_tuple(color: Any) -> tuple[Any, ...]:
    """A graphic state's colour as pdfplumber stores it: always a tuple."""
    return color if isinstance(color, tuple) else (color,)


class ColorspaceNames:
    """A colour space's decoded name, computed once per colour space object (by identity)."""

    def __init__(self) -> None:
        self._seen: dict[int, tuple[PDFColorSpace, str]] = {}

    def __call__(self, ncs: PDFColorSpace) -> str:
        known = self._seen.get(id(ncs))
        if known is None or known[0] is not ncs:
            known = self._seen[id(ncs)] = (ncs, resolve_and_decode(ncs.name))
        return known[1]


@dataclass(frozen=True, slots=True)
class CharStyle:
    """What the glyphs of one string share: font, direction, marked content, colour space and colours."""

    fontname: str
    upright: bool
    mcid: int | None
    tag: str | None
    ncs: str
    stroking_color: tuple[Any, ...]
    non_stroking_color: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class PageFrame:
    """Where a page sits: its number, height, top in the document and MediaBox origin."""

    page_number: int
    height: float
    doctop: float
    mb_x0: float
    mb_top: float

    @classmethod
    def of(cls, page: pdfplumber.page.Page) -> PageFrame:
        mb_x0, mb_top = page.mediabox[:2]
        return cls(page.page_number, page.height, page.initial_doctop, mb_x0, mb_top)

    def char(
        self,
        style: CharStyle,
        matrix: Matrix,
        text: str,
        adv: float,
        box: Box,
        size: float,
        make: Callable[..., CharDict] = dict,
    ) -> CharDict:
        """pdfplumber's dict of one glyph drawn in ``box`` (PDF space, before the MediaBox shift)."""
        x0, y0, x1, y1 = box
        top = (self.height - y1) + self.mb_top
        return make(
            matrix=matrix,
            fontname=style.fontname,
            adv=adv,
            upright=style.upright,
            x0=x0 + self.mb_x0 if self.mb_x0 != 0 else x0,
            y0=y0,
            x1=x1 + self.mb_x0 if self.mb_x0 != 0 else x1,
            y1=y1,
            width=x1 - x0,
            height=y1 - y0,
            size=size,
            mcid=style.mcid,
            tag=style.tag,
            object_type="char",
            page_number=self.page_number,
            ncs=style.ncs,
            text=text,
            stroking_color=style.stroking_color,
            non_stroking_color=style.non_stroking_color,
            top=top,
            bottom=(self.height - y0) + self.mb_top,
            doctop=self.doctop + top,
        )
