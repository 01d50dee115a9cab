"""Definitions a query names (indexers/ranking/definitions.py): the identifiers a query writes, the
candidate code chunks whose symbol they name, and, through a real build, the definition lifted
above the many docs chunks that only use the name."""

from __future__ import annotations

import docmill
from indexers.build.places import Place
from indexers.ranking.definitions import defined_rows, named_identifiers


def test_named_identifiers_are_the_ones_written_as_code():
    assert named_identifiers("Where is `Session.exec` implemented?") == ["Session.exec"]
    assert named_identifiers("Where does sqlmodel_validate build an instance?") == ["sqlmodel_validate"]
    assert named_identifiers("Which function implements `col()`?") == ["col"]
    assert named_identifiers("What does getUserName return for a guest?") == ["getUserName"]
    assert named_identifiers("Where is the 'Relationship' function defined?") == ["Relationship"]
    # plain words, acronyms and sentence-initial capitals are not identifiers
    assert named_identifiers("How do I hook a class up to a URL in Session docs?") == []
    assert named_identifiers("Where is the config read? See config.toml, e.g. `a b`") == ["config.toml"]


def _place(kind: str, symbol: str | None, path: str = "pkg/session.py") -> Place:
    return Place(path, path, kind, (), symbol, None, (1, 9))


def test_candidates_defining_a_named_identifier_are_found_and_only_where_the_name_is_specific():
    places = {
        3: _place("text", None, "docs/tutorial.md"),
        7: _place("code", "Session.exec"),
        8: _place("code", "Session.exec"),  # the second part of a long method
        9: _place("code", "Session.execute"),
        12: _place("code", "Engine.__init__", "pkg/engine.py"),
        13: _place("code", "Session.__init__"),
        14: _place("code", "Pool.__init__", "pkg/pool.py"),
    }
    assert defined_rows("Where is `Session.exec` implemented?", places) == {
        7: "Session.exec",
        8: "Session.exec",
    }
    assert defined_rows("Where is `exec` implemented?", places) == {7: "exec", 8: "exec"}
    assert defined_rows("What runs in `__init__`?", places) == {}  # three definitions: not specific
    assert defined_rows("Where is the session executed?", places) == {}


DOC_PAGE = """
    # {title}

    ## Run the query

    Where is the query run? You run it with `session.exec(select(Hero))`: session exec runs the
    statement and returns the results. Every example on this page calls session.exec on a Session
    and implements its own query; session exec is implemented for selects, and exec is how you
    run them.
    """

TREE = {
    **{f"docs/page{i}.md": DOC_PAGE.format(title=f"Tutorial part {i}") for i in range(8)},
    "pkg/session.py": '''
        """Sessions."""


        class Session:
            """A unit of work."""

            def exec(self, statement):
                """Run a select statement and return scalar results."""
                results = self.execute(statement)
                return results.scalars()

            def close(self):
                """Release the connection."""
                self.bind = None
        ''',
}


def test_a_definition_the_query_names_leads_over_docs_that_use_it(tmp_path, embedder):
    from flows.pipeline import run_ingest
    from tests.conftest import write_tree

    root = write_tree(tmp_path / "proj", TREE)
    run_ingest([root], tmp_path / "idx", embedder=embedder)
    index = docmill.open_index(tmp_path / "idx", embedder=embedder)
    query = "Where is `Session.exec` implemented?"

    def rank(hits):
        return next((i for i, h in enumerate(hits, 1) if h.chunk.symbol == "Session.exec"), None)

    hits = index.search(query, k=10, abstain=False).hits
    index.evidence_tiers = False  # the tiers off: the docs that use the name lead
    plain = index.search(query, k=10, abstain=False).hits
    found, before = rank(hits), rank(plain)
    assert found is not None and found <= 2 and "defines:Session.exec" in hits[found - 1].explain
    assert before is None or before > 5  # eight tutorial pages that call session.exec lead
