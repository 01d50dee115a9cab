"""Definitions a query names: "Where is `Session.exec` implemented?", "Where is
`sqlmodel_table_construct` defined?". A developer who writes an identifier (in backticks or
quotes, or written as one: with ``_``, an inner ``.``, an inner capital or ``()``) asks for the
code that defines it, but in a docs + code tree the name is used in many more places than it is
defined (SQLModel's tutorial calls ``session.exec`` on most pages), so BM25 ranks the uses and the
definition sinks. A candidate code chunk whose symbol is that name (``Session.exec``, or a member
ending in ``.exec`` when the query writes ``exec``) is lifted into the first tier with the
evidence ``defines:NAME`` (fusion.promote), when the name picks out at most MAX_DEFINITIONS
symbols among the candidates: a name defined in many places (``__init__``) says nothing.

Measured in session 10 on the dev trees (docs/EVALUATION.md "Definitions a query names"): the
two questions that prompted it are on sqlmodel's held half, so that half is not unseen for it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from indexers.build.places import Place
from indexers.ranking.fusion import written_terms

MAX_DEFINITIONS = 2
# written as an identifier: a snake_case word, a dotted name, camelCase, or a call
_MARKED = re.compile(r"_|\w\.\w|[a-z][A-Z]|\(\)")
_IDENTIFIER = re.compile(r"[A-Za-z_][\w.]*")


def named_identifiers(query: str) -> list[str]:
    """The identifiers ``query`` writes: quoted or in backticks, or marked as code (``_``, an
    inner ``.``, camelCase, ``()``); plain words and acronyms ("URL", "Session") are not."""
    names = []
    for token in written_terms(query, lambda t: bool(_MARKED.search(t.strip(".")))):
        name = token.strip().strip(".").removesuffix("()")
        if _IDENTIFIER.fullmatch(name) and max(len(part) for part in name.split(".")) > 1:
            names.append(name)  # "e.g." and "i.e." are no names
    return list(dict.fromkeys(names))


def defined_rows(query: str, places: Mapping[int, Place]) -> dict[int, str]:
    """The candidate rows (``places``: row -> its place) whose code symbol is an identifier the
    query names, for names that match at most MAX_DEFINITIONS symbols: row -> the name."""
    out: dict[int, str] = {}
    for name in named_identifiers(query):
        by_symbol: dict[str, list[int]] = {}
        for row, place in places.items():
            symbol = place.symbol
            if place.kind == "code" and symbol and (symbol == name or symbol.endswith("." + name)):
                by_symbol.setdefault(symbol, []).append(row)
        if len(by_symbol) <= MAX_DEFINITIONS:
            for rows in by_symbol.values():
                out.update((row, name) for row in rows if row not in out)
    return out
