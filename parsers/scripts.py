"""Character ranges of the scripts docmill treats specially, defined once.

- Han ideographs in the Basic Multilingual Plane (Extension A U+3400 to the end of the unified
  block U+9FFF): what "Chinese text" means when the chunker sizes pieces and splits sentences and
  when the abstain model decides a corpus's language.
- Scripts written without spaces between words (Han incl. compatibility and supplementary planes,
  kana, Hangul, the iteration mark): what the BM25 tokenizer cuts into character runs for bigrams.
  Changing this class changes tokens, so the tokenizer's version must change with it.
"""

from __future__ import annotations

HAN_FIRST, HAN_LAST = "\u3400", "\u9fff"

# one estimated token each when sizing chunks: kana, Han, Hangul syllables, compatibility ideographs
CJK_LETTERS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"

# Han (incl. ext. A, compatibility, ext. B+), Hiragana, Katakana (+ phonetic ext., half-width),
# Hangul syllables and jamo, and the iteration mark 々.
UNSPACED_SCRIPTS = (
    "\u1100-\u11ff\u3005\u3040-\u309f\u30a0-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f\U00020000-\U0002ffff"
)


def is_han(ch: str) -> bool:
    return HAN_FIRST <= ch <= HAN_LAST


def han_count(text: str) -> int:
    return sum(1 for ch in text if HAN_FIRST <= ch <= HAN_LAST)
