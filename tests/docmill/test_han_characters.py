"""The Han-character BM25 field through the real ingest and search: a paraphrase that shares
characters but no bigram with its answer is found by BM25 in a new build, not in a build made
without the field (as every build before it), which keeps searching as it did until its next
ingest indexes the field. Real ingest (MiniLM, FAISS); the tree is our own writing."""

from __future__ import annotations

from docmill.api import open_index
from flows.config import IngestConfig
from flows.pipeline import run_ingest
from indexers.build.manifest import Manifest
from indexers.build.store import IndexStore

TREE = {
    "ui/popup.md": """
        # 弹窗

        弹窗组件默认挂载到页面最外层，不受父容器的定位和层级限制。
        """,
    "ui/table.md": """
        # 表格

        表格支持按列排序和分页，数据量大时建议开启虚拟滚动。
        """,
    "ui/form.md": """
        # 表单

        表单校验在提交前运行，校验失败的字段会显示红色提示。
        """,
}
# 弹出框 shares 弹 with 弹窗 but none of its bigrams (弹出, 出框)
QUERY = "弹出框"


def _bm25_paths(index) -> list[str]:
    return [h.chunk.path for h in open_index(index).search(QUERY, k=3, mode="bm25", abstain=False).hits]


def test_a_build_without_the_field_searches_as_before_and_its_next_ingest_adds_it(tmp_path, tree, embedder):
    docs = tree(tmp_path / "docs", TREE)
    index = tmp_path / "idx"
    before = IngestConfig(model="all-MiniLM-L6-v2", tokenizer={"cjk_unigrams": False})
    run_ingest([docs], index, before, embedder=embedder)
    assert Manifest.read(IndexStore(index).current_build()).tokenizer["cjk_unigrams"] is False
    assert _bm25_paths(index) == []  # no bigram of the query is indexed
    run_ingest([docs], index, IngestConfig(model="all-MiniLM-L6-v2"), embedder=embedder)
    assert Manifest.read(IndexStore(index).current_build()).tokenizer["cjk_unigrams"] is True
    assert _bm25_paths(index)[0].endswith("ui/popup.md")
