"""Fuzz: the BM25 tokenizer never raises, is deterministic, and emits lowercase, non-empty tokens
without whitespace, for any unicode text and every flag combination.

Examples per test: DOCMILL_FUZZ_EXAMPLES (default 50; `make fuzz` runs many more)."""

from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st

from indexers.lexical.tokenize import Tokenizer

FUZZ = settings(max_examples=int(os.environ.get("DOCMILL_FUZZ_EXAMPLES", "50")), deadline=None, database=None)

RULE_CHARACTERS = "aZ09_-.'’ éÉßİıﬁＡ中文日本語한국어々ー\t\n\u200b\u0301"
# Unicode at large, plus the characters the rules care about (separators, camel case, CJK, digits).
TEXT = st.one_of(
    st.text(),
    st.text(
        alphabet=st.sampled_from(list("aZ09_-.'’ éÉßİıﬁＡ中文日本語한국어々ー\t\n\u200b\u0301")), max_size=200
    ),
)
FLAGS = st.fixed_dictionaries(
    {"stopwords": st.booleans(), "split_identifiers": st.booleans(), "cjk_bigrams": st.booleans()}
)


@FUZZ
@given(text=TEXT, flags=FLAGS)
def test_tokenizer_is_total_deterministic_and_lowercase(text: str, flags: dict) -> None:
    tokenizer = Tokenizer(**flags)
    tokens = tokenizer(text)
    assert tokens == Tokenizer(**flags)(text)
    for token in tokens:
        assert token, tokens
        assert token == token.lower(), token
        assert not any(ch.isspace() for ch in token), token


@FUZZ
@given(text=TEXT)
def test_tokenizer_round_trips_through_its_manifest_form(text: str) -> None:
    tokenizer = Tokenizer()
    assert Tokenizer.from_dict(tokenizer.to_dict())(text) == tokenizer(text)
