import pytest

from indexers.lexical.tokenize import CHINESE_STOPWORDS, ENGLISH_STOPWORDS, NAME, VERSION, Tokenizer

plain = Tokenizer(stopwords=False, stem=False, cjk_unigrams=False)
# The splitting rules are stated before stemming; the default tokenizer also stems (see below).
# The bigram rules are stated without the Han-character field (cjk_unigrams, tested on its own).
default = Tokenizer(stem=False, cjk_unigrams=False)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("onSaveInstanceState", ["onsaveinstancestate", "on", "save", "instance", "state"]),
        ("OnSaveInstanceState", ["onsaveinstancestate", "on", "save", "instance", "state"]),
        ("parse_pdf", ["parse_pdf", "parse", "pdf"]),
        ("HTTPServer", ["httpserver", "http", "server"]),
        ("getHTTPResponseCode", ["gethttpresponsecode", "get", "http", "response", "code"]),
        ("XMLHttpRequest", ["xmlhttprequest", "xml", "http", "request"]),
        ("IOError", ["ioerror", "io", "error"]),
        ("utf8Decode", ["utf8decode", "utf", "8", "decode"]),
        ("kebab-case-name", ["kebab-case-name", "kebab", "case", "name"]),
        ("os.path.join", ["os.path.join", "os", "path", "join"]),
        ("x86_64", ["x86_64", "x86", "64", "x", "86"]),
        ("MAX_RETRIES", ["max_retries", "max", "retries"]),
        ("__init__", ["init"]),
        ("caféBar", ["cafébar", "café", "bar"]),
    ],
)
def test_identifiers_kept_whole_and_split(text: str, expected: list[str]) -> None:
    assert plain(text) == expected


@pytest.mark.parametrize("word", ["the", "The", "HTTP", "2024", "a", "Ab", "naïve"])
def test_plain_words_are_not_split(word: str) -> None:
    assert plain(word) == [word.lower()]


def test_split_identifiers_off_keeps_only_the_whole_token() -> None:
    assert Tokenizer(split_identifiers=False, stem=False)("onSaveInstanceState parse_pdf") == [
        "onsaveinstancestate",
        "parse_pdf",
    ]


def test_numbers_and_punctuation() -> None:
    assert plain("pi is 3.14, COVID-19 in 2020.") == [
        "pi",
        "is",
        "3.14",
        "3",
        "14",
        "covid-19",
        "covid",
        "19",
        "in",
        "2020",
    ]
    # A trailing separator does not join; apostrophes split (possessive s/t are stopwords).
    assert plain("end. -start don't") == ["end", "start", "don", "t"]
    assert default("the user's file") == ["user", "file"]


def test_cjk_runs_become_overlapping_bigrams() -> None:
    assert default("写代码") == ["写代", "代码"]
    assert default("日本語のテキスト") == ["日本", "本語", "語の", "のテ", "テキ", "キス", "スト"]
    assert default("한국어 처리") == ["한국", "국어", "처리"]


def test_mixed_cjk_and_latin_keep_text_order() -> None:
    assert default("用Python写代码") == ["用", "python", "写代", "代码"]


def test_one_character_cjk_run_stays_a_unigram() -> None:
    assert default("书 and 笔") == ["书", "笔"]


def test_chinese_stopwords_apply_to_unigrams_only() -> None:
    assert default("我 的 书") == ["我", "书"]
    assert default("我的书") == ["我的", "的书"]
    assert plain("的") == ["的"]


def test_han_characters_are_a_field_of_their_own_after_the_bigrams() -> None:
    han = Tokenizer(stem=False)
    assert han.cjk_unigrams is True  # new builds
    assert han("写代码") == ["写代", "代码", "u:写", "u:代", "u:码"]
    assert han("我的书") == ["我的", "的书", "u:我", "u:书"]  # stopwords left out of the field
    assert han("书") == ["书", "u:书"]
    # kana and Hangul keep their bigrams only: the field was measured on Chinese
    assert han("のテキ") == ["のテ", "テキ"]
    assert han("한국어") == ["한국", "국어"]
    assert han("parse_pdf") == default("parse_pdf")


def test_a_han_character_weighs_a_quarter_of_a_bigram_in_a_query() -> None:
    from indexers.lexical.tokenize import UNIGRAM_WEIGHT, term_weight

    assert term_weight("写代") == term_weight("python") == 1.0
    assert term_weight("u:写") == UNIGRAM_WEIGHT == 0.25


def test_a_manifest_without_cjk_unigrams_was_tokenised_without_them() -> None:
    recorded = {k: v for k, v in Tokenizer().to_dict().items() if k != "cjk_unigrams"}
    old = Tokenizer.from_dict(recorded)
    assert old.cjk_unigrams is False
    assert old("写代码") == ["写代", "代码"]
    assert Tokenizer.from_dict(Tokenizer().to_dict()) == Tokenizer()


def test_cjk_bigrams_off_gives_unigrams_without_stopwords() -> None:
    assert Tokenizer(cjk_bigrams=False)("我的书") == ["我", "书"]


def test_english_stopwords_drop_whole_tokens_and_parts() -> None:
    assert default("The state of the art") == ["state", "art"]
    assert default("state-of-the-art") == ["state-of-the-art", "state", "art"]
    assert default("onSaveInstanceState") == ["onsaveinstancestate", "save", "instance", "state"]
    assert {"the", "and", "of", "is"} <= ENGLISH_STOPWORDS
    assert 30 <= len(ENGLISH_STOPWORDS) <= 150
    assert {"的", "了", "是", "在"} <= CHINESE_STOPWORDS


@pytest.mark.parametrize("text", ["", "   ", "\n\t ", "😀🎉", "— … !!", "_ - ."])
def test_empty_whitespace_emoji_and_punctuation_give_no_tokens(text: str) -> None:
    assert default(text) == []


def test_emoji_between_words_is_a_separator() -> None:
    assert default("rocket🚀launch") == ["rocket", "launch"]


def test_nfkc_folds_full_width_and_ligatures() -> None:
    assert default("ｐｙｔｈｏｎ ﬁle") == ["python", "file"]


def test_to_dict_round_trip() -> None:
    tokenizer = Tokenizer(stopwords=False, cjk_bigrams=False)
    data = tokenizer.to_dict()
    assert data["name"] == NAME
    assert data["version"] == VERSION
    assert Tokenizer.from_dict(data) == tokenizer


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"name": "other-words"}, "other-words"),
        ({"version": VERSION + 1}, "rebuild the index"),
        ({"lowercase": True}, "unknown tokenizer option"),
    ],
)
def test_from_dict_refuses_unknown_name_version_and_options(change: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Tokenizer.from_dict({**Tokenizer().to_dict(), **change})


def test_options_must_be_bools() -> None:
    with pytest.raises(ValueError, match="must be a bool"):
        Tokenizer(stopwords="yes")  # type: ignore[arg-type]


def test_stem_uses_snowball_and_leaves_cjk_alone() -> None:
    pytest.importorskip("Stemmer")
    stemming = Tokenizer(stem=True)
    assert stemming("running files 写代码 用") == [
        "run",
        "file",
        "写代",
        "代码",
        "u:写",
        "u:代",
        "u:码",
        "用",
        "u:用",
    ]


def test_stem_without_pystemmer_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from indexers.lexical import tokenize

    tokenize._stemmer.cache_clear()
    monkeypatch.setitem(sys.modules, "Stemmer", None)
    try:
        with pytest.raises(ValueError, match="PyStemmer"):
            Tokenizer(stem=True)
    finally:
        tokenize._stemmer.cache_clear()


def test_tokenizer_is_deterministic_and_hashable() -> None:
    text = "Mixed 中文 text with camelCase and snake_case 2024"
    assert default(text) == Tokenizer(stem=False, cjk_unigrams=False)(text)
    assert hash(Tokenizer(stem=False, cjk_unigrams=False)) == hash(default)
    assert Tokenizer()(text) == Tokenizer()(text)


def test_default_tokenizer_stems_english() -> None:
    # Chosen by measurement: SciFact BM25 nDCG@10 0.682 -> 0.705 (docs/EVALUATION.md).
    assert Tokenizer().stem is True
    assert Tokenizer()("running parse_pdf files") == ["run", "parse_pdf", "pars", "pdf", "file"]
