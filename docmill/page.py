"""The search page `docmill serve` shows at `/`: server-rendered HTML, no scripts, so a search is a
link (`/?q=...`). Pure functions from a query and its result to a page."""

from __future__ import annotations

import dataclasses
import html
import re
from collections.abc import Iterable, Mapping
from urllib.parse import urlencode

from docmill.hits import Hit, SearchResult
from indexers.lexical.tokenize import DEFAULT_TOKENIZER, UNSPACED_SCRIPTS, Tokenizer, words
from indexers.ranking.options import Mode

MODES = tuple(Mode.names())  # hybrid first: the default
KINDS = ("", "text", "table", "code")
K_CHOICES = (5, 10, 20, 50)
DEFAULT_K = 10
_UNSPACED = re.compile(f"[{UNSPACED_SCRIPTS}]")
_SHARE = re.compile(r"known-term share (\d+(?:\.\d+)?)")
_COSINE = re.compile(r"best cosine (-?\d+(?:\.\d+)?)")
_LEXICAL_WEIGHT = re.compile(r"(\d+(?:\.\d+)?) x known-term share")
_DECISION = re.compile(r"^confidence \S+ < (\d+(?:\.\d+)?)")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_SEPARATOR = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?$")

_STYLE = """
body{font:15px/1.45 system-ui,sans-serif;max-width:60rem;margin:1.5rem auto;padding:0 1rem;color:#222}
form{display:flex;flex-wrap:wrap;gap:.5rem;margin-bottom:1rem}
input[name=q]{flex:1 1 20rem;font-size:1rem;padding:.35rem}
.hit{border-top:1px solid #ddd;padding:.6rem 0}
.citation{font-weight:600;word-break:break-all}
.text{white-space:pre-wrap;margin:.3rem 0}
.explain,.meta{color:#666;font-size:.85rem;font-family:ui-monospace,monospace}
mark{background:#fde68a}
table{border-collapse:collapse;margin:.3rem 0}
td,th{border:1px solid #ccc;padding:.15rem .4rem;text-align:left}
.abstained,.error{padding:.6rem;border-radius:4px}
.abstained{background:#f3f4f6}.abstained p{margin:.2rem 0}.error{background:#fee2e2}
"""


def query_terms(query: str, tokenizer: Tokenizer = DEFAULT_TOKENIZER) -> list[str]:
    """The query's terms as the index's tokenizer finds them, unstemmed (so they can be found in
    the text): English and Chinese stopwords dropped, identifiers split, CJK runs as the bigrams
    BM25 matches (not the Han-character field: a single character marked everywhere is noise).
    Single Latin letters are dropped; longest first so a longer term wins."""
    unstemmed = dataclasses.replace(tokenizer, stem=False)
    found = {w for w in words(unstemmed(query)) if len(w) > 1 or _UNSPACED.match(w)}
    return sorted(found, key=lambda w: (-len(w), w))


def _spans(text: str, terms: list[str]) -> list[tuple[int, int]]:
    """Where the terms occur, overlapping occurrences merged (CJK bigrams overlap: 红烧 + 烧肉)."""
    found: list[tuple[int, int]] = []
    for term in terms:
        if _UNSPACED.match(term):  # no spaces between CJK words: a term matches anywhere
            pattern = re.escape(term)
        else:  # `install` marks `installer` (BM25 matches stems); `do` must not mark `download`
            pattern = r"(?<![^\W_])" + re.escape(term) + (r"[^\W_]*" if len(term) >= 4 else r"(?![^\W_])")
        found.extend(m.span() for m in re.finditer(pattern, text, re.IGNORECASE))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(found):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def highlight(text: str, terms: Iterable[str]) -> str:
    """``text`` HTML-escaped, with the query terms (``query_terms``) wrapped in <mark>: Latin terms
    of four letters or more as word starts, shorter ones as whole words, CJK terms anywhere."""
    out, last = [], 0
    for start, end in _spans(text, list(terms)):
        out.append(html.escape(text[last:start]))
        out.append(f"<mark>{html.escape(text[start:end])}</mark>")
        last = end
    out.append(html.escape(text[last:]))
    return "".join(out)


def _cells(line: str) -> list[str]:
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [cell.strip().replace("\\|", "|") for cell in _CELL_SPLIT.split(inner)]


def table_html(text: str, terms: Iterable[str]) -> str:
    """A table chunk (an optional title line, then a Markdown pipe table) as an HTML table; the
    rows above the separator line are the header."""
    terms = list(terms)
    lines = text.splitlines()
    title = [line for line in lines if not line.lstrip().startswith("|")]
    rows = [line for line in lines if line.lstrip().startswith("|")]
    cut = next((i for i, line in enumerate(rows) if _SEPARATOR.match(line.strip())), None)
    header, body = (rows[:cut], rows[cut + 1 :]) if cut is not None else ([], rows)

    def row(line: str, tag: str) -> str:
        return "<tr>" + "".join(f"<{tag}>{highlight(c, terms)}</{tag}>" for c in _cells(line)) + "</tr>"

    parts = [f'<div class="text">{highlight(" ".join(title), terms)}</div>'] if title else []
    parts.append("<table>")
    if any(any(_cells(h)) for h in header):
        parts.append("<thead>" + "".join(row(h, "th") for h in header) + "</thead>")
    parts.append("<tbody>" + "".join(row(b, "td") for b in body) + "</tbody></table>")
    return "".join(parts)


def hit_html(rank: int, hit: Hit, terms: list[str]) -> str:
    chunk = hit.chunk
    if chunk.kind == "table":
        body = table_html(chunk.text, terms)
    elif chunk.kind == "code":
        body = f'<pre class="text"><code>{highlight(chunk.text, terms)}</code></pre>'
    else:
        body = f'<div class="text">{highlight(chunk.text, terms)}</div>'
    return (
        f'<div class="hit" data-rank="{rank}" data-chunk="{html.escape(chunk.id)}">'
        f'<div class="citation">[{rank}] {html.escape(hit.citation)}</div>'
        f'<div class="meta">{html.escape(chunk.kind)}</div>{body}'
        f"{graph_html(hit)}{siblings_html(hit)}"
        f'<div class="explain">{html.escape(hit.explain)}</div></div>'
    )


def siblings_html(hit: Hit) -> str:
    """The other chunks of the hit's place (collapsed into it), by their pages or lines."""
    if not hit.siblings:
        return ""
    where = ", ".join(html.escape(_where(c.pages, c.lines, c.symbol)) for c in hit.siblings)
    return f'<div class="siblings meta">also here: {where}</div>'


def _where(pages: tuple[int, int] | None, lines: tuple[int, int] | None, symbol: str | None) -> str:
    if pages:
        return f"p. {pages[0]}" if pages[0] == pages[1] else f"pp. {pages[0]}-{pages[1]}"
    span = f"L{lines[0]}-{lines[1]}" if lines else "chunk"
    return f"{symbol} {span}" if symbol else span


def graph_html(hit: Hit) -> str:
    """A code hit's callers and callees (from the code graph), or nothing."""
    if not (hit.used_by or hit.calls):
        return ""
    used_by = html.escape(", ".join(hit.used_by) or "-")
    calls = html.escape(", ".join(hit.calls) or "-")
    return f'<div class="graph meta">used by: {used_by}; calls: {calls}</div>'


def _select(name: str, options: Iterable[str], chosen: str, labels: Mapping[str, str]) -> str:
    items = "".join(
        f'<option value="{html.escape(o)}"{" selected" if o == chosen else ""}>'
        f"{html.escape(labels.get(o, o))}</option>"
        for o in options
    )
    return f'<select name="{name}" aria-label="{name}">{items}</select>'


def form_html(query: str, mode: str, kind: str, path: str, k: int = DEFAULT_K) -> str:
    ks = tuple(sorted({*K_CHOICES, k}))
    return (
        '<form method="get" action="/" role="search">'
        f'<input name="q" value="{html.escape(query)}" placeholder="Search the index" autofocus>'
        + _select("mode", MODES, mode, {})
        + _select("kind", KINDS, kind, {"": "any kind"})
        + _select("k", [str(n) for n in ks], str(k), {str(n): f"{n} results" for n in ks})
        + f'<input name="path" value="{html.escape(path)}" placeholder="path glob, e.g. docs/*">'
        + '<button type="submit">Search</button></form>'
    )


def partial_html(result: SearchResult) -> str:
    """For a sharded index's partial result (docmill.shard_merge.ShardedResult): which shards
    answered and why the others did not; nothing for a full result or one index."""
    shards: Mapping[str, str] = getattr(result, "shards", None) or {}
    missing = {name: why for name, why in shards.items() if why != "ok"}
    if not missing:
        return ""
    answered = ", ".join(name for name, why in shards.items() if why == "ok") or "none"
    why = "; ".join(f"{name}: {reason}" for name, reason in missing.items())
    return (
        f'<div class="partial error">Partial result: shards {html.escape(answered)} of {len(shards)} '
        f"answered; not answering: {html.escape(why)}.</div>"
    )


def search_link(query: str, mode: str, kind: str, path: str, k: int = DEFAULT_K, abstain: bool = True) -> str:
    """The page's URL for a search (only the fields that differ from the defaults)."""
    fields = (("q", query), ("mode", mode), ("kind", kind), ("path", path))
    params = {key: value for key, value in fields if value}
    if k != DEFAULT_K:
        params["k"] = str(k)
    if not abstain:
        params["abstain"] = "false"
    return "/?" + urlencode(params)


def abstain_words(query: str, result: SearchResult) -> str:
    """Why nothing was answered, in plain words, from the verdict's reason (indexers/ranking/
    abstain.py; the formula itself goes in a details line): what the query's words and its meaning
    found, each named only when it weighs in the verdict."""
    reason = result.reason or ""
    share, cosine, weight = _SHARE.search(reason), _COSINE.search(reason), _LEXICAL_WEIGHT.search(reason)
    parts = []
    if share is not None and (weight is None or float(weight.group(1)) > 0):
        known = float(share.group(1))
        if known == 0:
            parts.append("none of its distinctive words occur in the indexed text")
        elif known < 0.5:
            parts.append("few of its distinctive words occur in the indexed text")
        else:
            parts.append("its words occur in the indexed text, but not enough of them together")
    if cosine is not None:
        parts.append("no passage is close enough to it in meaning")
    if not parts:
        return "docmill is not confident that any passage answers it."
    return f"docmill did not answer it because {' and '.join(parts)}."


def abstained_html(query: str, result: SearchResult, anyway: str) -> str:
    decision = _DECISION.search(result.reason or "")
    answers = f"; it answers from {float(decision.group(1)):.2f}" if decision else ""
    sure = f" (confidence {result.confidence:.2f}{answers})" if result.confidence is not None else ""
    details = (
        f'<details class="meta"><summary>how this was decided</summary>'
        f"{html.escape(result.reason or '')}</details>"
        if result.reason
        else ""
    )
    return (
        f'<div class="abstained"><p>Nothing relevant was found for “{html.escape(query)}”{sure}.</p>'
        f"<p>{html.escape(abstain_words(query, result))}</p>"
        f'<p><a class="anyway" href="{html.escape(anyway)}">Show results anyway</a></p>{details}</div>'
    )


def results_html(
    query: str, result: SearchResult, anyway: str = "", tokenizer: Tokenizer | None = None
) -> str:
    """The hits, or why there are none (``anyway``: the link that searches without abstaining)."""
    notes = partial_html(result)
    notes += "".join(f'<p class="meta">note: {html.escape(n)}</p>' for n in result.notes)
    if result.abstained:
        return notes + abstained_html(query, result, anyway)
    if not result.hits:
        why = f": {result.reason}" if result.reason else " (the filters may exclude every chunk)"
        return notes + f'<div class="abstained">No hits{html.escape(why)}.</div>'
    terms = query_terms(query, tokenizer or DEFAULT_TOKENIZER)
    return notes + "".join(hit_html(i, hit, terms) for i, hit in enumerate(result.hits, start=1))


def page(
    *,
    query: str = "",
    mode: str = Mode.HYBRID.value,
    kind: str = "",
    path: str = "",
    build: str,
    result: SearchResult | None = None,
    error: str | None = None,
    model: str = "",
    k: int = DEFAULT_K,
    abstain: bool = True,
    tokenizer: Tokenizer | None = None,
) -> str:
    """The whole page: the form, then the results, an abstention or an error. ``model``: the
    embedding model shown next to the build; ``tokenizer``: the index's, to find the query's terms."""
    if model:
        build = f"{build} · model {model}"
    if error:
        body = f'<div class="error">{html.escape(error)}</div>'
    elif result is not None:
        link = search_link(query, mode, kind, path, k, abstain)
        anchor = f'<a href="{html.escape(link)}">link to this search</a>'
        body = f'<p class="meta">build {html.escape(build)} · {anchor}</p>'
        anyway = search_link(query, mode, kind, path, k, abstain=False)
        body += results_html(query, result, anyway, tokenizer)
    else:
        body = f'<p class="meta">build {html.escape(build)}</p>'
    title = f"{query} · docmill" if query else "docmill search"
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body><h1>docmill</h1>{form_html(query, mode, kind, path, k)}<main>{body}</main></body></html>"
    )
