"""Bordered tables, exactly: strict cell accuracy and exact tables, per fit/held half, for docmill
and, in the same run, pdfplumber's default ``extract_tables()`` and camelot's lattice mode.

    PYTHONPATH=. .venv/bin/python bench/bordered_tables.py [--eval DIR] [--peers pdfplumber,camelot]
        [--show fit] [--json OUT]

Sets (each case is in the fit or the held half by a stable hash of its id, ``half_of``; tune on
fit, report held):
- ``generated``: eval/pdf/bordered (reportlab; the PDFs are regenerated when missing, the committed
  expected.json is what the generator wrote): every cell of every
  table, plus docmill's titles (caption -> ``Table.title``), header rows, extra tables on the
  page (a boxed caption read as a table) and caption text repeated in the prose;
- ``tabula``: tabula-java's ruled ("spreadsheet") cases with full expected content, one case per
  PDF (JSON expectation preferred); the strict score as it is, and the tolerant one of
  bench/measure_pdf.py (tabula's convention differences named there) beside it;
- ``pdfplumber``: pdfplumber's bordered assertions (partial: selected rows/cells; a case is exact
  when all its cells and structure checks hold).

Strict: a cell counts when its whitespace-normalised text equals the expected one at the same
row/column of the best-matching table on the page; a table is exact when all its cells match and
its shape (rows, row widths) is the expected one. Peers do not merge a table continued on the next
page, so their two halves are joined for them (a repeated header dropped) before scoring.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.measure_pdf import (  # noqa: E402
    _pdfplumber_checks,
    _tabula_expected,
    drop_sliver_columns,
    norm,
    tolerant_score,
)
from parsers.model import ParsedDocument  # noqa: E402
from parsers.options import ParseOptions  # noqa: E402
from parsers.registry import parse_path  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
GENERATED = REPO / "eval" / "pdf" / "bordered" / "cases"
Rows = list[list[str]]
# page number -> tables on it (rows), for one PDF
Reader = Callable[[Path], dict[int, list[Rows]]]


def half_of(case_id: str) -> str:
    """ "fit" or "held", from the first byte of the id's SHA-256: stable across runs and machines."""
    return "fit" if hashlib.sha256(case_id.encode()).digest()[0] % 2 == 0 else "held"


# --- readers ------------------------------------------------------------------------------------


def docmill_doc(path: Path) -> ParsedDocument:
    return parse_path(path, path.name, ParseOptions(ocr=False))[0]


def docmill_tables(doc: ParsedDocument) -> dict[int, list[Rows]]:
    out: dict[int, list[Rows]] = {}
    for b in doc.blocks:
        if b.table is not None and b.page is not None:
            out.setdefault(b.page, []).append([list(r) for r in b.table.rows])
    return out


def pdfplumber_tables(path: Path) -> dict[int, list[Rows]]:
    import pdfplumber

    out: dict[int, list[Rows]] = {}
    with pdfplumber.open(path) as pdf:
        for number, page in enumerate(pdf.pages, 1):
            out[number] = [[[c or "" for c in row] for row in t] for t in page.extract_tables()]
    return out


def camelot_tables(path: Path) -> dict[int, list[Rows]]:
    import camelot

    out: dict[int, list[Rows]] = {}
    for t in camelot.read_pdf(str(path), flavor="lattice", pages="all"):
        out.setdefault(int(t.page), []).append([[str(c) for c in row] for row in t.df.values.tolist()])
    return out


def joined_over_break(tables: dict[int, list[Rows]], page: int) -> Rows | None:
    """The last table of ``page`` followed by the first of the next page (its first rows dropped
    when they repeat the first table's): what a reader that does not merge continuations gives."""
    first, more = tables.get(page, []), tables.get(page + 1, [])
    if not first or not more:
        return None
    a, b = first[-1], more[0]
    k = next((n for n in range(min(len(a), len(b)), 0, -1) if b[:n] == a[:n]), 0)
    return a + b[k:]


# --- scoring ------------------------------------------------------------------------------------


def score(expected: Rows, ours: Rows) -> tuple[int, int, bool]:
    """(matching cells, expected cells, exact)."""
    total = sum(len(r) for r in expected)
    hits = sum(
        1
        for i, row in enumerate(expected)
        for j, cell in enumerate(row)
        if i < len(ours) and j < len(ours[i]) and norm(ours[i][j]) == norm(cell)
    )
    shape = len(ours) == len(expected) and all(len(a) == len(b) for a, b in zip(ours, expected, strict=True))
    return hits, total, hits == total and shape


def best(expected: Rows, candidates: Sequence[Rows]) -> tuple[int, int, bool, int]:
    """``score`` against the best candidate, and that candidate's index (-1: none)."""
    scored = [(*score(expected, c), i) for i, c in enumerate(candidates)]
    total = sum(len(r) for r in expected)
    return max(scored, key=lambda s: (s[0], s[2]), default=(0, total, False, -1))


class Tally:
    def __init__(self) -> None:
        self.hits = self.cells = self.exact = self.tables = 0
        self.extra: dict[str, int] = {}

    def add(self, hits: int, cells: int, exact: bool) -> None:
        self.hits, self.cells = self.hits + hits, self.cells + cells
        self.exact, self.tables = self.exact + exact, self.tables + 1

    def count(self, key: str, n: int = 1) -> None:
        self.extra[key] = self.extra.get(key, 0) + n

    def row(self) -> dict[str, Any]:
        return {
            "exact_tables": f"{self.exact}/{self.tables}",
            "cell_accuracy": round(self.hits / max(self.cells, 1), 4),
            "cells": f"{self.hits}/{self.cells}",
            **self.extra,
        }


# --- sets ---------------------------------------------------------------------------------------


def generated_cases() -> list[dict[str, Any]]:
    manifest = GENERATED / "expected.json"
    cases = json.loads(manifest.read_text())["cases"] if manifest.is_file() else []
    if not cases or not all((GENERATED / c["pdf"]).is_file() for c in cases):  # PDFs are not committed
        subprocess.run([sys.executable, str(GENERATED.parent / "generate.py")], check=True, cwd=REPO)
        cases = json.loads(manifest.read_text())["cases"]
    return cases


def run_generated(systems: dict[str, Reader], tallies: dict[tuple[str, str, str], Tally], show: str) -> None:
    for case in generated_cases():
        half = half_of(f"bordered:{case['id']}")
        path = GENERATED / case["pdf"]
        doc = docmill_doc(path)
        for name, reader in systems.items():
            found = docmill_tables(doc) if name == "docmill" else reader(path)
            tally = tallies.setdefault(("generated", name, half), Tally())
            used: dict[int, set[int]] = {}
            for table in case["tables"]:
                page = table["page"]
                candidates = list(found.get(page, []))
                if "continued_on_page" in table and name != "docmill":
                    joined = joined_over_break(found, page)
                    candidates += [joined] if joined else []
                hits, cells, exact, index = best(table["rows"], candidates)
                tally.add(hits, cells, exact)
                used.setdefault(page, set()).add(index)
                if name == "docmill":
                    _docmill_checks(doc, table, index, tally)
                if show in (half, "all") and not exact and name == "docmill":
                    print(f"# {case['id']} ({name}): {hits}/{cells}", file=sys.stderr)
            pages = {t["page"] for t in case["tables"]} | {
                t["continued_on_page"] for t in case["tables"] if "continued_on_page" in t
            }
            if name == "docmill":
                extra = sum(len(found.get(p, [])) for p in pages) - len(case["tables"])
            else:  # a peer's continued table is two tables
                extra = sum(len(found.get(p, [])) for p in pages) - sum(
                    2 if "continued_on_page" in t else 1 for t in case["tables"]
                )
            tally.count("extra_tables", max(extra, 0))


def _docmill_checks(doc: ParsedDocument, expected: dict[str, Any], index: int, tally: Tally) -> None:
    blocks = [b for b in doc.blocks if b.table is not None and b.page == expected["page"]]
    block = blocks[index] if 0 <= index < len(blocks) else None
    table = block.table if block is not None else None
    want = expected.get("title")
    if want:
        got = table.title if table is not None else None
        tally.count("titles_right", int(norm(got or "") == norm(want)))
        tally.count("titles_expected")
        prose = " ".join(norm(b.text) for b in doc.blocks if b.table is None)
        tally.count("caption_in_prose", int(norm(want) in prose))
    if table is not None:
        tally.count("header_rows_right", int(table.header_rows == expected["header_rows"]))


def tabula_cases(root: Path) -> list[dict[str, Any]]:
    manifest = json.loads((root / "expected_outputs_manifest.json").read_text())
    cases: dict[str, dict[str, Any]] = {}
    for case in manifest["cases"]:
        if case.get("method") != "spreadsheet" or not case.get("expected"):
            continue
        files = case["expected"] if isinstance(case["expected"], list) else [case["expected"]]
        name = next((e for e in files if e.endswith(".json")), files[0])
        cases.setdefault(case["pdf"], {**case, "file": name})
    return list(cases.values())


def run_tabula(
    root: Path, systems: dict[str, Reader], tallies: dict[tuple[str, str, str], Tally], show: str
) -> None:
    for case in tabula_cases(root):
        half = half_of(f"tabula:{Path(case['pdf']).stem}")
        path = root / case["pdf"]
        expected = _tabula_expected(root, case["file"])
        for name, reader in systems.items():
            found = (docmill_tables(docmill_doc(path)) if name == "docmill" else reader(path)).get(
                case["page"], []
            )
            candidates = [*found, [r for t in found for r in t]] if case["file"].endswith(".csv") else found
            tally = tallies.setdefault(("tabula", name, half), Tally())
            tolerant = tallies.setdefault(("tabula (tolerant)", name, half), Tally())
            for rows, widths in expected:
                hits, cells, exact, _ = best(rows, candidates)
                tally.add(hits, cells, exact)
                kept, _dropped = drop_sliver_columns(rows, widths)
                t_hits = max((tolerant_score(kept, c)[0] for c in candidates), default=0)
                t_cells = sum(len(r) for r in kept)
                tolerant.add(t_hits, t_cells, t_hits == t_cells)
                if show in (half, "all") and not exact and name == "docmill":
                    print(f"# tabula {path.stem} ({name}): {hits}/{cells}", file=sys.stderr)


def run_pdfplumber(
    root: Path, systems: dict[str, Reader], tallies: dict[tuple[str, str, str], Tally], show: str
) -> None:
    cases = json.loads((root / "expected_table_assertions.json").read_text())["cases"]
    for case in cases:
        if case.get("bordered") is not True or "crop" in case:
            continue
        half = half_of(f"pdfplumber:{Path(case['pdf']).stem}")
        path = root / case["pdf"]
        for name, reader in systems.items():
            found = (docmill_tables(docmill_doc(path)) if name == "docmill" else reader(path)).get(
                case["page"], []
            )
            cells, checks = _pdfplumber_checks(case["expect"], found)
            structure = all(c["expected"] == c["ours"] for c in checks.values())
            tally = tallies.setdefault(("pdfplumber", name, half), Tally())
            tally.add(sum(cells), len(cells), all(cells) and structure)
            if show in (half, "all") and not (all(cells) and structure) and name == "docmill":
                print(
                    f"# pdfplumber {path.stem} ({name}): {sum(cells)}/{len(cells)} {checks}", file=sys.stderr
                )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--eval", type=Path, default=Path(__file__).resolve().parents[2] / "shared/eval/pdf")
    ap.add_argument("--peers", default="pdfplumber,camelot")
    ap.add_argument("--show", default="", help="list docmill's inexact tables of this half (fit/held/all)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    readers: dict[str, Reader] = {"pdfplumber": pdfplumber_tables, "camelot": camelot_tables}
    systems: dict[str, Reader] = {"docmill": lambda p: docmill_tables(docmill_doc(p))}
    systems.update({p: readers[p] for p in args.peers.split(",") if p})
    tallies: dict[tuple[str, str, str], Tally] = {}
    run_generated(systems, tallies, args.show)
    run_tabula(args.eval / "tabula", systems, tallies, args.show)
    run_pdfplumber(args.eval / "pdfplumber", systems, tallies, args.show)
    report: dict[str, Any] = {}
    for half in ("fit", "held"):
        for name in systems:
            pooled = Tally()
            for (set_name, system, h), tally in sorted(tallies.items()):
                if system != name or h != half:
                    continue
                report[f"{half} / {set_name} / {name}"] = tally.row()
                if set_name != "tabula (tolerant)":
                    pooled.hits += tally.hits
                    pooled.cells += tally.cells
                    pooled.exact += tally.exact
                    pooled.tables += tally.tables
            report[f"{half} / ALL strict / {name}"] = pooled.row()
    print("| half / set / system | exact tables | cell accuracy | cells | docmill extras |")
    print("|---|---|---|---|---|")
    for key, row in report.items():
        extras = ", ".join(
            f"{k}={v}" for k, v in row.items() if k not in ("exact_tables", "cell_accuracy", "cells")
        )
        print(f"| {key} | {row['exact_tables']} | {row['cell_accuracy']} | {row['cells']} | {extras} |")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
