"""Caption labels and font names: the words that open a table or figure caption ("Table 3",
"Fig. 2", "表 3") and the font-name markers of bold and monospaced type, each rule written once.

The patterns differ on purpose, by what their caller must tell apart:
- ``TABLE_CAPTION`` (tables/captions.py, tables/ruled.py): a table caption proper; "Table 3 shows"
  (prose that refers to a table) is not one.
- ``TABLE_LABEL`` (pdf/parser.py): a block before a table opening with a table label and a number.
- ``TABLE_OR_FIGURE_LABEL`` (tables/unruled.py): a line that ends a whitespace table.
- ``FIGURE_OR_TABLE_LABEL`` (headings.py): a label line, never a heading.
- ``FIGURE_CAPTION`` (tables/captions.py): a figure caption under or over a framed drawing.
"""

from __future__ import annotations

import re
from typing import Any

TABLE_WORDS = ("table", r"tab\.", "tableau", "tabelle")
MORE_TABLE_WORDS = ("tabla", "tabela")  # only the caption proper knows these
FIGURE_WORDS = ("figure", r"fig\.")
MORE_FIGURE_WORDS = ("chart", "exhibit", "image", "abbildung", r"abb\.")
TABLE_ZH, FIGURE_ZH = "表", "图"
# a number, a capital (any letter under IGNORECASE) or a Chinese numeral after the label word
_NUMBER_START = r"\s*[\dA-Z一二三四五六七八九十]"


def _either(*words: str) -> str:
    return "|".join(words)


# "Table 7: ...", "TABLE 3 - ...", "Tab. 2 Results", "Table 4.1 (continued)", "Tableau 2 –", "表 3":
# the label and its number, then punctuation, the end, or a capitalised word.
TABLE_CAPTION = re.compile(
    rf"^(?i:{_either(*TABLE_WORDS, *MORE_TABLE_WORDS)})\s*(?:\d+[A-Za-z]?(?:[.\-]\d+)*|[IVXLC]+\b)"
    r"(?:\s*[:.\-|\u2013\u2014]|\s*$|\s+(?=[A-Z(\d\"\u201c]))"
    rf"|^{TABLE_ZH}\s*[\d一二三四五六七八九十]"
)
TABLE_LABEL = re.compile(rf"^({_either(*TABLE_WORDS, TABLE_ZH)}){_NUMBER_START}", re.IGNORECASE)
TABLE_OR_FIGURE_LABEL = re.compile(
    rf"^({_either(*TABLE_WORDS, *FIGURE_WORDS, TABLE_ZH, FIGURE_ZH)}){_NUMBER_START}", re.IGNORECASE
)
# the label word in any case, then a number or a capital letter standing alone ("Figure A.1")
# "Figure 1 – ...", "Fig. 2: ...", "图 3": a figure caption proper (a number, then punctuation or a word)
FIGURE_CAPTION = re.compile(
    rf"^(?i:{_either(*FIGURE_WORDS)})\s*\d+[A-Za-z]?(?:[.\-]\d+)*(?:\s*[:.\-|\u2013\u2014]|\s+(?=[A-Z(]))"
    rf"|^{FIGURE_ZH}\s*\d"
)
FIGURE_OR_TABLE_LABEL = re.compile(
    rf"^(?i:{_either(*FIGURE_WORDS, *MORE_FIGURE_WORDS, *TABLE_WORDS, FIGURE_ZH, TABLE_ZH)})\s*(?:\d|[A-Z]\b)"
)

BOLD_MARKERS = ("bold", "black", "heavy", "semibold", "demi", "medi")
# weight in a face name's suffix ("AdvTT3f2a.B", "Arial,Bd", "Univers-Hv") or TeX's bold extended
# Computer Modern ("CMBX10"); URW's "NimbusRomNo9L-Medi" is their Times Bold ("medi" above)
_BOLD_NAME = re.compile(r"(?:[-,._](?:b|bd|hv|blk|sb)(?:it|i|o|obl)?$|^cmbx)")
ITALIC_MARKERS = ("italic", "oblique", "kursiv")
# slant in a face name's suffix ("MinionPro-It", "AdvTT3f2a.I", "Arial,BoldIt", URW's
# "NimbusRomNo9L-ReguItal") or TeX's
# Computer Modern italic / slanted ("CMTI10", "CMSL10")
_ITALIC_NAME = re.compile(r"(?:[-,._](?:[a-z]*it(?:al)?|i|obl)$|^cm(?:ti|sl|bxti)\d)")
MONO_MARKERS = ("courier", "mono", "consol", "menlo", "code", "typewriter")


def bold_font(fontname: Any) -> bool:
    """A font name that says bold or any heavier weight (a word's weight in running text)."""
    name = str(fontname).lower()
    face = name.split("+", 1)[-1]  # without a subset tag "ABCDEF+"
    return any(m in name for m in BOLD_MARKERS) or _BOLD_NAME.search(face) is not None


def italic_font(fontname: Any) -> bool:
    """A font name of an italic or oblique face."""
    name = str(fontname).lower()
    face = name.split("+", 1)[-1]
    return any(m in name for m in ITALIC_MARKERS) or _ITALIC_NAME.search(face) is not None


def mono_font(fontname: Any) -> bool:
    """A font name of a monospaced face."""
    name = str(fontname).lower()
    return any(m in name for m in MONO_MARKERS)


def named_bold(fontname: Any) -> bool:
    """A font name containing "bold" (the narrower test table header cells are voted on with;
    ``bold_font`` also counts black, heavy and demi)."""
    return "bold" in str(fontname).lower()
