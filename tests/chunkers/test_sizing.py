from chunkers.sizing import count_tokens, pack, split_sentences, split_words


def test_count_tokens_counts_words_punctuation_and_cjk_characters():
    assert count_tokens("Hello, world!") == 4
    assert count_tokens("安装指南") == 4
    assert count_tokens("") == 0
    # a long word counts as several pieces, so the estimate errs long
    assert count_tokens("internationalization") == 3


def test_split_sentences_keeps_punctuation():
    assert split_sentences("One. Two? Three! 四。五") == ["One.", "Two?", "Three!", "四。", "五"]


def test_split_words_never_cuts_a_word():
    text = " ".join(f"word{i:03d}" for i in range(100))
    pieces = list(split_words(text, 20))
    assert " ".join(pieces) == text
    assert all(count_tokens(p) <= 20 for p in pieces)
    assert all(set(p.split()) <= set(text.split()) for p in pieces)


def test_pack_respects_limit_and_order():
    units = [f"Sentence number {i} is here." for i in range(30)]
    pieces = pack(units, 30)
    assert " ".join(pieces) == " ".join(units)
    assert all(count_tokens(p) <= 30 for p in pieces)
    assert len(pieces) > 1
