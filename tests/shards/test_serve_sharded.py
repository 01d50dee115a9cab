"""`docmill serve` over a sharded root: a real uvicorn on 127.0.0.1 serving docmill.serve's app over
open_index(ROOT, follow=True); the JSON says whether every shard answered."""

from __future__ import annotations

import httpx
import pytest

import docmill
from docmill.serve import create_app
from tests.conftest import running
from tests.docmill.test_page import browser  # noqa: F401  # the page harness's headless Chromium

pytestmark = pytest.mark.slow


def test_serve_reports_partial_results_of_a_sharded_root(built_copy, embedder):
    root = built_copy["root"]
    index = docmill.open_index(root, embedder=embedder, follow=True)
    for shard in index.shards.values():
        shard.searcher.check_interval = 0.0
    with running(create_app(index)) as url:
        full = httpx.get(f"{url}/search", params={"q": "cache", "mode": "bm25"}).json()
        assert full["hits"] and full["partial"] is False and set(full["shards"]) == {"00", "01", "02"}
        assert httpx.get(f"{url}/index").json()["sharded"] is True
        current = root / "shards" / "01" / "CURRENT"
        good = current.read_text()
        current.write_text("20990101T000000.000000-missing\n")
        partial = httpx.get(f"{url}/search", params={"q": "cache", "mode": "bm25"})
        assert partial.status_code == 200
        body = partial.json()
        assert body["partial"] is True and body["shards"]["01"] != "ok" and body["hits"]
        assert "01=?" in httpx.get(f"{url}/health").json()["build"]
        current.write_text(good)
        assert httpx.get(f"{url}/search", params={"q": "cache", "mode": "bm25"}).json()["partial"] is False


@pytest.mark.integration
def test_the_page_says_which_shards_answered_a_partial_result(browser, built_copy, embedder):  # noqa: F811
    """In a real headless Chromium (the page harness of tests/docmill/test_page.py): a full result
    shows no partial line; with shard 01 mid-publish the page names the shards that answered."""
    from selenium.webdriver.common.by import By

    root = built_copy["root"]
    index = docmill.open_index(root, embedder=embedder, follow=True)
    for shard in index.shards.values():
        shard.searcher.check_interval = 0.0
    driver = browser
    try:
        with running(create_app(index)) as url:
            driver.get(f"{url}/?q=cache&mode=bm25")
            assert driver.find_elements(By.CSS_SELECTOR, ".hit")
            assert not driver.find_elements(By.CSS_SELECTOR, ".partial")
            current = root / "shards" / "01" / "CURRENT"
            good = current.read_text()
            current.write_text("20990101T000000.000000-missing\n")
            driver.get(f"{url}/?q=cache&mode=bm25")
            line = driver.find_element(By.CSS_SELECTOR, ".partial").text
            assert line.startswith("Partial result: shards 00, 02 of 3 answered; not answering: 01: "), line
            assert driver.find_elements(By.CSS_SELECTOR, ".hit")  # the other shards' hits still shown
            current.write_text(good)
            driver.get(f"{url}/?q=cache&mode=bm25")
            assert not driver.find_elements(By.CSS_SELECTOR, ".partial")
    finally:
        index.close()
