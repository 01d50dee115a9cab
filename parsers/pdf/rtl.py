"""Right-to-left text from a PDF's visual order to logical (reading) order.

pdfplumber gives a line's glyphs left to right as they are drawn, so Hebrew or Arabic comes out
reversed. ``logical_line`` runs the Unicode bidi algorithm (python-bidi) over such a line: applied
to a visual-order line with the right base direction, reordering is its own inverse for RTL runs,
embedded numbers and embedded Latin words. Lines without RTL characters are returned unchanged
(the same object), so left-to-right text is byte-identical and costs one scan.
"""

from __future__ import annotations

import re

from bidi import get_display

from parsers.pdf.text_layout import Segment, with_text

# Hebrew, Arabic, Syriac, Thaana, NKo, Samaritan, Mandaic, Arabic Extended, and the Hebrew/Arabic
# presentation forms PDFs often map shaped glyphs to.
_RTL = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")
_LTR = re.compile(r"[^\W\d_\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")
_STRONG = re.compile(r"[^\W\d_]")  # letters: the strong characters that set a direction


def has_rtl(text: str) -> bool:
    return _RTL.search(text) is not None


def logical_line(visual: str) -> str:
    """One line of text in visual (left-to-right drawn) order -> logical order.

    The base direction is what the algorithm would have taken from the logical line's first strong
    character: that character is drawn at the left end of a left-to-right line and at the right
    end of a right-to-left one. A line with a Latin letter leftmost and an RTL one rightmost fits
    both ("hello םולש" is "hello שלום" or "שלום hello"); then the direction of most words decides,
    right-to-left on a tie (the line has RTL text, which is what this is for)."""
    if not has_rtl(visual):
        return visual
    strong = _STRONG.findall(visual)
    if not strong or _RTL.match(strong[0]):  # no letters: Arabic-Indic digits and punctuation
        base = "R"
    elif not _RTL.match(strong[-1]):
        base = "L"
    else:
        words = visual.split()
        rtl_words = sum(1 for w in words if has_rtl(w))
        ltr_words = sum(1 for w in words if not has_rtl(w) and _LTR.search(w))
        base = "R" if rtl_words >= ltr_words else "L"
    return str(get_display(visual, base_dir=base))


def logical_segments(segments: list[Segment]) -> list[Segment]:
    """Text-layer line segments with RTL lines in logical order (others are the same objects)."""
    return [s if not has_rtl(s.text) else with_text(s, logical_line(s.text)) for s in segments]
