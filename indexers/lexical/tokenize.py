"""The BM25 tokenizer: named and versioned, because an index is only valid for the exact rules that
built it. Any change to what ``__call__`` returns for some input must bump ``VERSION``.

Rules (version 1):

- Text is NFKC-normalised (full-width Latin -> ASCII, ligatures split), then lowercased per token.
- A Latin token is a run of letters/digits (unicode ``\\w`` minus ``_`` and CJK), optionally joined
  by single ``_``, ``-`` or ``.`` characters: ``parse_pdf``, ``state-of-the-art``, ``os.path.join``,
  ``3.14``. Apostrophes split (``don't`` -> ``don``, ``t``), so possessive ``s``/``t`` fall to stopwords.
- With ``split_identifiers`` a token is emitted whole, then its separator parts, then each part's
  camelCase / acronym / letter-digit pieces; a piece equal to the thing it came from is not
  repeated. ``onSaveInstanceState`` -> ``onsaveinstancestate on save instance state``;
  ``HTTPServer`` -> ``httpserver http server``; ``utf8Decode`` -> ``utf8decode utf 8 decode``;
  ``x86_64`` -> ``x86_64 x86 64 x 86``. Digits are split from letters so ``covid19`` also matches
  ``covid 19``. Only ASCII and Latin-1 capitals start a camel piece (Greek/Cyrillic are not split).
- CJK runs (Han, Hiragana, Katakana, Hangul) become overlapping character bigrams, a 1-character run
  stays a unigram. Bigrams and not a dictionary segmenter: no model or dictionary to version, no
  dependency, and bigram recall is close to segmenters for BM25 (the Lucene CJKAnalyzer choice).
- With ``cjk_unigrams`` each Han character (not a Chinese stopword) is also emitted as a term of its
  own field, ``u:`` + the character, after the run's bigrams; BM25 weighs such a query term
  UNIGRAM_WEIGHT (``term_weight``), so a paraphrase that shares characters but few bigrams with its
  answer ("弹窗" / "弹出框") still scores, below a bigram match. On by default for new builds; a
  build recorded before the option reads without it (``from_dict``), so it searches as it did.
- Stopwords (small English list; small Chinese list applied to CJK unigrams only) are dropped.
- ``stem`` applies the Snowball English stemmer (PyStemmer) to Latin tokens. PyStemmer is not a
  declared dependency, so ``stem=True`` raises ``ValueError`` when it is not installed.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from parsers.options import reject_unknown_fields
from parsers.scripts import UNSPACED_SCRIPTS, is_han

NAME = "docmill-words"
VERSION = 1

_CJK = UNSPACED_SCRIPTS
_WORD_CHAR = rf"[^\W_{_CJK}]"
_TOKEN_RE = re.compile(rf"({_WORD_CHAR}+(?:[_\-.]{_WORD_CHAR}+)*)|([{_CJK}]+)")
_SEPARATOR_RE = re.compile(r"[_\-.]")
_UPPER = "A-Z\u00c0-\u00d6\u00d8-\u00de"
_LOWER = rf"[^\W\d_{_UPPER}]"
# An acronym ends where a capitalised word starts ("HTTPServer" -> "HTTP", "Server").
_CAMEL_RE = re.compile(rf"[{_UPPER}]+(?=[{_UPPER}]{_LOWER})|[{_UPPER}]?{_LOWER}+|[{_UPPER}]+|\d+")

# A whitespace-separated string keeps ~120 words in 7 lines; ruff's list-literal rewrite takes 120.
ENGLISH_STOPWORDS: frozenset[str] = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i if in into is it its itself just
    me more most my myself no nor not of off on once only or other our ours ourselves out over own
    same she should so some such than that the their theirs them themselves then there these they
    this those through to too under until up very was we were what when where which while who whom
    why will with would you your yours yourself yourselves s t""".split()  # noqa: SIM905
)
# Function characters that carry no topic on their own (unigrams only; bigrams containing them are kept).
CHINESE_STOPWORDS: frozenset[str] = frozenset("的了是在和与及或也都就而着之于被把这那个吗吧呢啊")
# The Han-character field (cjk_unigrams): its terms' prefix (":" never occurs inside a Latin token)
# and their weight in a query. Chosen on the Chinese dev sets in a lab (bm25s over the builds'
# chunks, the characters in the same index as the bigrams; zh-faq over whole files), hit@5 fit /
# held, bigrams only -> weight 0.25 -> weight 1: zh-docs 0.737 / 0.810 -> 0.842 / 0.905 -> 0.895 /
# 0.905; zh-faq 0.788 / 0.789 -> 0.781 / 0.789 -> 0.768 / 0.762; CMRC (256 passages) 0.994 / 0.988
# -> 0.996 / 0.988 -> 0.996 / 0.994: a full weight costs the FAQ set what it gives the docs tree
# (docs/EVALUATION.md "Han characters in BM25").
UNIGRAM_PREFIX = "u:"
UNIGRAM_WEIGHT = 0.25


def term_weight(term: str) -> float:
    """A query term's weight in BM25: UNIGRAM_WEIGHT for the Han-character field, else 1."""
    return UNIGRAM_WEIGHT if term.startswith(UNIGRAM_PREFIX) else 1.0


def words(terms: Sequence[str]) -> list[str]:
    """``terms`` without the Han-character field: what abstaining reads (whether the corpus knows
    the query's words, how many of them one chunk holds). Single characters are known to any
    Chinese corpus, so counted there they would make every Chinese question look in-domain."""
    return [t for t in terms if not t.startswith(UNIGRAM_PREFIX)]


@functools.cache
def _stemmer() -> Callable[[list[str]], list[str]]:
    try:
        import Stemmer  # PyStemmer: C Snowball, ~100x faster than pure-Python snowballstemmer
    except ImportError as exc:
        raise ValueError(
            "Tokenizer(stem=True) needs PyStemmer (pip install PyStemmer); it is not installed"
        ) from exc
    return Stemmer.Stemmer("english").stemWords  # type: ignore[no-any-return]


def _identifier_parts(token: str) -> list[str]:
    """Separator parts, then camel/acronym/digit pieces of each part; no piece repeats its source."""
    parts = _SEPARATOR_RE.split(token) if len(token) > 1 else [token]
    out: list[str] = []
    if len(parts) > 1:
        out.extend(part.lower() for part in parts)
    for part in parts:
        pieces = _CAMEL_RE.findall(part)
        if len(pieces) > 1:
            out.extend(piece.lower() for piece in pieces)
    return out


def _needs_split(token: str) -> bool:
    """Cheap pre-check: plain words ("the", "The", "HTTP", "2024") have nothing to split."""
    if token.isalpha():
        return not (token.islower() or token.isupper() or token[1:].islower() or len(token) == 1)
    return not token.isdigit()


@dataclass(frozen=True)
class Tokenizer:
    """Text -> BM25 terms. Frozen so an index can record exactly which rules built it.

    Defaults, from SciFact train (809 queries, BM25 k1=1.2 b=0.75, nDCG@10 / R@100): as below
    0.678 / 0.916; split_identifiers=False 0.641 / 0.884 (hyphenated and digit terms matter);
    stopwords=False 0.680 / 0.914 (a wash, so keep the smaller index); stem=True 0.703 / 0.935.
    ``stem`` stays off by default only because PyStemmer is not a declared dependency.
    """

    stem: bool = True
    stopwords: bool = True
    split_identifiers: bool = True
    cjk_bigrams: bool = True
    cjk_unigrams: bool = True
    name: str = NAME
    version: int = VERSION

    def __post_init__(self) -> None:
        if self.name != NAME or self.version != VERSION:
            raise ValueError(
                f"unknown tokenizer {self.name!r} version {self.version!r}; "
                f"this docmill implements {NAME!r} version {VERSION}"
            )
        for f in fields(self):
            if f.type in ("bool", bool) and not isinstance(getattr(self, f.name), bool):
                raise ValueError(f"Tokenizer.{f.name} must be a bool, got {getattr(self, f.name)!r}")
        if self.stem:
            _stemmer()  # fail at construction, not mid-ingest

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": self.version,
            "stem": self.stem,
            "stopwords": self.stopwords,
            "split_identifiers": self.split_identifiers,
            "cjk_bigrams": self.cjk_bigrams,
            "cjk_unigrams": self.cjk_unigrams,
        }

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> Tokenizer:
        """Rebuild from a manifest; refuses other names, versions and unknown options."""
        if values.get("name") != NAME or values.get("version") != VERSION:
            raise ValueError(
                f"index was built with tokenizer {values.get('name')!r} version {values.get('version')!r}; "
                f"this docmill implements {NAME!r} version {VERSION}: rebuild the index"
            )
        reject_unknown_fields(cls, values, "tokenizer")
        # a build recorded before cjk_unigrams existed was tokenised without them
        return cls(**{"cjk_unigrams": False, **dict(values)})

    def __call__(self, text: str) -> list[str]:
        if not text.isascii():
            text = unicodedata.normalize("NFKC", text)
        drop = ENGLISH_STOPWORDS if self.stopwords else frozenset()
        split = self.split_identifiers
        terms: list[str] = []
        append = terms.append
        for word, cjk in _TOKEN_RE.findall(text):
            if not word:
                terms.extend(self._cjk_terms(cjk))
                continue
            lowered = word.lower()
            if lowered not in drop:
                append(lowered)
            # Inline fast path for the common all-lowercase word before the full check.
            if split and not (lowered == word and word.isalpha()) and _needs_split(word):
                terms.extend(part for part in _identifier_parts(word) if part not in drop)
        if self.stem:
            # One batch call. CJK terms pass through unchanged: every English Snowball rule needs
            # an ASCII-letter suffix, which a CJK bigram cannot have (pinned by a test).
            terms = _stemmer()(terms)
        return terms

    def _cjk_terms(self, run: str) -> list[str]:
        if len(run) == 1:
            if self.stopwords and run in CHINESE_STOPWORDS:
                return []
            terms = [run]
        elif not self.cjk_bigrams:
            return [ch for ch in run if not (self.stopwords and ch in CHINESE_STOPWORDS)]
        else:
            terms = [run[i : i + 2] for i in range(len(run) - 1)]
        if self.cjk_unigrams:
            stop = CHINESE_STOPWORDS if self.stopwords else frozenset()
            terms += [UNIGRAM_PREFIX + ch for ch in run if is_han(ch) and ch not in stop]
        return terms


DEFAULT_TOKENIZER = Tokenizer()
