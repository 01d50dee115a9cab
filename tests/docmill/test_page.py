"""The search page: its pure pieces (highlighting, tables), then the page itself in a real headless
Chromium (Debian's chromium + chromium-driver, driven by selenium) against a real uvicorn."""

from __future__ import annotations

import shutil
import tempfile
from urllib.parse import urlencode

import pytest

from docmill import page
from docmill.serve import create_app

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"


def test_highlight_marks_words_starting_with_query_terms_and_escapes_html():
    out = page.highlight("Run the <b>installer</b>; INSTALL it & go do", page.query_terms("install go"))
    assert (
        out == "Run the &lt;b&gt;<mark>installer</mark>&lt;/b&gt;; <mark>INSTALL</mark> it &amp; "
        "<mark>go</mark> do"
    )
    assert page.highlight("download items", ["do", "it"]) == "download items"
    assert page.highlight("a < b", []) == "a &lt; b"


def test_query_terms_drop_single_letters_and_stopwords_but_keep_cjk_and_prefer_longer_terms():
    assert page.query_terms("a cache caches 缓") == ["caches", "cache", "缓"]
    assert page.query_terms("Which is the way to the cache?") == ["cache", "way"]
    assert page.query_terms("的") == []  # a Chinese stopword


def test_cjk_query_terms_are_the_tokenizers_bigrams_and_overlapping_ones_mark_one_run():
    terms = page.query_terms("安装脚本在哪里")
    assert {"安装", "装脚", "脚本"} <= set(terms)
    assert not any(t.startswith("u:") or len(t) == 1 for t in terms)  # no Han-character field
    out = page.highlight("在服务器上运行安装脚本，然后重启", terms)
    assert "<mark>安装脚本</mark>" in out and "<mark>在</mark>" not in out


def test_the_abstain_reason_is_in_plain_words_with_the_formula_behind_a_details_line():
    from docmill.hits import SearchResult

    formula = "confidence 0.03 < 0.5: 0.2 x known-term share 0.00 + 0.8 x best cosine 0.19 < 0.29"
    result = SearchResult([], True, formula, confidence=0.03)
    out = page.page(query="zeppelin mooring", build="b1", result=result, k=20)
    words = page.abstain_words("zeppelin mooring", result)
    assert (
        "none of its distinctive words occur" in words
        and "no passage is close enough to it in meaning" in words
    )
    assert "known-term share" not in words and "(confidence 0.03; it answers from 0.50)" in out
    vector_only = SearchResult(
        [], True, "confidence 0.46 < 0.5: 0 x known-term share 0.11 + 1 x best cosine 0.83 < 0.83"
    )
    assert "words" not in page.abstain_words("q", vector_only)  # the words do not weigh in this verdict
    anyway = "/?q=zeppelin+mooring&amp;mode=hybrid&amp;k=20&amp;abstain=false"
    assert f'href="{anyway}">Show results anyway</a>' in out
    assert "<details" in out and "known-term share 0.00 + 0.8 x best cosine" in out


def test_table_chunk_renders_as_a_table_with_its_header_and_escaped_pipes():
    text = "Platforms\n| Platform | Minimum version |\n|---|---|\n| Ubuntu | 22.04 |\n| a \\| b | 11 |"
    out = page.table_html(text, ["ubuntu"])
    assert out.startswith('<div class="text">Platforms</div><table>')
    assert "<thead><tr><th>Platform</th><th>Minimum version</th></tr></thead>" in out
    assert "<tr><td><mark>Ubuntu</mark></td><td>22.04</td></tr>" in out
    assert "<td>a | b</td>" in out


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="docmill-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def site(live, run_server):
    with run_server(create_app(live)) as url:
        yield url


def _open(browser, url: str, **params: str):
    from selenium.webdriver.common.by import By

    browser.get(f"{url}/?{urlencode(params)}")
    return browser.find_elements(By.CSS_SELECTOR, ".hit")


@pytest.mark.integration
def test_a_q_link_shows_the_right_hit_with_citation_highlight_and_explain(browser, site):
    from selenium.webdriver.common.by import By

    hits = _open(browser, site, q="How do I install on Linux?")
    assert hits, browser.page_source[:2000]
    first = hits[0]
    citation = first.find_element(By.CSS_SELECTOR, ".citation").text
    assert citation.startswith("[1] ") and "install.md > Guide > Install > Linux" in citation
    marked = {m.text.lower() for m in first.find_elements(By.TAG_NAME, "mark")}
    assert {"install", "installer"} <= marked and "download" not in marked, marked
    assert not marked & {"how", "do", "i", "on"}, marked  # stopwords are not highlighted
    explain = first.find_element(By.CSS_SELECTOR, ".explain").text
    assert "bm25#" in explain and " z=" in explain  # z-score fusion, the default on prose
    assert browser.title.startswith("How do I install on Linux?")


@pytest.mark.integration
def test_a_chinese_query_marks_its_terms_in_the_hit(browser, site):
    from selenium.webdriver.common.by import By

    hits = _open(browser, site, q="怎么运行安装脚本")
    assert hits and "zh.md" in hits[0].find_element(By.CSS_SELECTOR, ".citation").text
    marked = [m.text for m in hits[0].find_elements(By.TAG_NAME, "mark")]
    assert "运行安装脚本" in marked or {"安装", "脚本"} <= set(marked), marked


@pytest.mark.integration
def test_an_abstained_query_links_to_its_results_anyway_and_k_limits_the_hits(browser, site):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    assert _open(browser, site, q="zeppelin helium mooring mast procedures") == []
    box = browser.find_element(By.CSS_SELECTOR, ".abstained")
    assert "known-term share" not in box.text.split("how this was decided")[0]
    box.find_element(By.CSS_SELECTOR, "a.anyway").click()
    hits = browser.find_elements(By.CSS_SELECTOR, ".hit")
    assert "abstain=false" in browser.current_url and len(hits) > 1
    assert (
        _open(browser, site, q="install", k="1") and len(browser.find_elements(By.CSS_SELECTOR, ".hit")) == 1
    )
    assert Select(browser.find_element(By.NAME, "k")).first_selected_option.get_attribute("value") == "1"
    _open(browser, site, q="install", k="zero")
    assert "k must be a whole number" in browser.find_element(By.CSS_SELECTOR, ".error").text


@pytest.mark.integration
def test_a_table_hit_is_shown_as_a_table(browser, site):
    from selenium.webdriver.common.by import By

    hits = _open(browser, site, q="minimum version Ubuntu platform", kind="table")
    assert hits
    table = hits[0].find_element(By.TAG_NAME, "table")
    headers = [th.text for th in table.find_elements(By.TAG_NAME, "th")]
    assert headers[:2] == ["Platform", "Minimum version"]
    cells = [td.text for td in table.find_elements(By.TAG_NAME, "td")]
    assert "Ubuntu" in cells and "22.04" in cells


@pytest.mark.integration
def test_an_abstained_query_says_nothing_relevant_was_found_and_why(browser, site):
    from selenium.webdriver.common.by import By

    assert _open(browser, site, q="zeppelin helium mooring mast procedures") == []
    message = browser.find_element(By.CSS_SELECTOR, ".abstained").text
    assert message.startswith("Nothing relevant was found for")
    assert len(message.split(":", 1)[1].strip()) > 10  # the reason follows


@pytest.mark.integration
def test_the_form_submits_to_a_shareable_link_with_mode_and_filters(browser, site):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    browser.get(site + "/")
    assert not browser.find_elements(By.CSS_SELECTOR, ".hit")
    box = browser.find_element(By.NAME, "q")
    box.send_keys("evict least recently used entry")
    Select(browser.find_element(By.NAME, "mode")).select_by_value("bm25")
    Select(browser.find_element(By.NAME, "kind")).select_by_value("code")
    browser.find_element(By.NAME, "path").send_keys("*cache*")
    browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    WebDriverWait(browser, 30).until(
        lambda b: "q=" in b.current_url and b.find_elements(By.CSS_SELECTOR, ".hit")
    )
    assert "q=evict+least+recently+used+entry" in browser.current_url
    assert "mode=bm25" in browser.current_url and "kind=code" in browser.current_url
    hits = browser.find_elements(By.CSS_SELECTOR, ".hit")
    assert hits and "cache.py" in hits[0].find_element(By.CSS_SELECTOR, ".citation").text
    assert "evict_oldest" in hits[0].find_element(By.TAG_NAME, "code").text
    assert hits[0].find_element(By.CSS_SELECTOR, ".explain").text.startswith("bm25#1")
    # the form keeps what was asked
    assert browser.find_element(By.NAME, "q").get_attribute("value") == "evict least recently used entry"


@pytest.mark.integration
def test_a_bad_field_is_explained_on_the_page(browser, site):
    from selenium.webdriver.common.by import By

    _open(browser, site, q="install", mode="hybird")
    assert "unknown mode 'hybird'" in browser.find_element(By.CSS_SELECTOR, ".error").text


@pytest.mark.integration
def test_the_page_follows_a_publish(browser, site, publish_generation):
    from selenium.webdriver.common.by import By

    hits = _open(browser, site, q="generation marker quokka")
    assert "marker1" in hits[0].text
    build = publish_generation(2)
    hits = _open(browser, site, q="generation marker quokka")
    assert "marker2" in hits[0].text
    assert build in browser.find_element(By.CSS_SELECTOR, "main .meta").text


def test_a_collapsed_hit_lists_its_siblings_pages_and_lines():
    from chunkers.model import Chunk
    from docmill.hits import Hit

    def chunk(cid, **where):
        return Chunk(cid, "r.pdf", "r.pdf", "text", f"text {cid}", f"text {cid}", **where)

    lead = chunk("a", pages=(2, 2))
    hit = Hit(
        lead,
        0.03,
        {},
        {},
        "vec#1(0.50) +2 same place",
        siblings=(chunk("b", pages=(2, 2)), chunk("c", pages=(2, 3))),
    )
    html = page.hit_html(1, hit, [])
    assert 'class="siblings meta">also here: p. 2, pp. 2-3</div>' in html
    assert hit.place == "r.pdf (pp. 2-3)"
    assert "siblings" not in page.hit_html(1, Hit(lead, 0.03, {}, {}, ""), [])
