"""The ZapfDingbats font's built-in encoding as Unicode: an embedded Dingbats font without a
ToUnicode map (LaTeX's pifont, ``\\ding{51}`` / ``\\ding{55}``, the check mark and the cross of
results tables) gives pdfminer no text for its glyphs, and they were dropped. Standard data: the
encoding of the PDF standard 14 font ZapfDingbats and the Unicode of each glyph (Adobe's
zapfdingbats glyph list), as runs of consecutive codes mapped to consecutive code points."""

from __future__ import annotations

# (first code, last code, code point of the first): 202 codes in 31 runs
_RUNS = (
    (32, 32, 0x20), (33, 36, 0x2701), (37, 37, 0x260E), (38, 41, 0x2706), (42, 42, 0x261B),
    (43, 43, 0x261E), (44, 71, 0x270C), (72, 72, 0x2605), (73, 107, 0x2729), (108, 108, 0x25CF),
    (109, 109, 0x274D), (110, 110, 0x25A0), (111, 114, 0x274F), (115, 115, 0x25B2),
    (116, 116, 0x25BC), (117, 117, 0x25C6), (118, 118, 0x2756), (119, 119, 0x25D7),
    (120, 126, 0x2758), (128, 141, 0x2768), (161, 167, 0x2761), (168, 168, 0x2663),
    (169, 169, 0x2666), (170, 170, 0x2665), (171, 171, 0x2660), (172, 181, 0x2460),
    (182, 212, 0x2776), (213, 213, 0x2192), (214, 215, 0x2194), (216, 239, 0x2798),
    (241, 254, 0x27B1),
)  # fmt: skip
ZAPF_DINGBATS = {code: chr(first + code - lo) for lo, hi, first in _RUNS for code in range(lo, hi + 1)}


def is_dingbats(fontname: str) -> bool:
    """A ZapfDingbats font, embedded as a subset ("YCQRWY+Dingbats") or not ("ZapfDingbats")."""
    return fontname.split("+", 1)[-1] in ("ZapfDingbats", "Dingbats", "ITCZapfDingbats")


def dingbat_text(code: int) -> str | None:
    """The Unicode text of ZapfDingbats' glyph ``code``, None for a code it does not encode."""
    return ZAPF_DINGBATS.get(code)
