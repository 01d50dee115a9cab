"""Table structure metric: ICDAR-2013-style adjacency relations + strict cell accuracy, docmill vs peers.

    PYTHONPATH=. .venv/bin/python bench/table_adjacency.py [--systems docmill,camelot,...]
        [--half held|fit|all] [--json OUT] [--show-cases]
        [--set dev|real|real-s9|real-s10|real-s11|real-s12|real-s12b|real-s13|both]

Relations (Göbel et al., ICDAR 2013 table competition): for each non-empty cell, the nearest
non-empty cell to its right in the same row and the nearest non-empty cell below it in the same
column, each as (text, text, direction), texts NFKC- and whitespace-normalised. Precision =
matched relations / relations found, recall = matched / expected, pooled over tables (a multiset
intersection per matched table pair). It forgives empty columns/rows and split or merged
header lines more than strict cell accuracy does (expected cells equal at the same row/column,
counted over all expected cells, as bench/measure_pdf.py does), which is reported beside it.

Matching: per page, each expected table is paired with the found table sharing the most
relations with it (one to one, greedy, best pair first). A found table paired with none adds
its relations to the found side (false relations), on pages whose expectation covers the page
(tabula cases with an area only count found tables whose centre lies in the area).

Material (`Case`): tabula-java's expected outputs (../shared/eval/pdf/tabula: "basic" =
unruled, "spreadsheet" = ruled; JSON preferred over the same table's CSV) and our generated set
eval/pdf/unruled (expected.json, written by its generator before any detector ran); with
``--set real`` (or ``both``) the real-table dev set eval/pdf-real (cells written by hand from the
rendered pages; its README says from where). Every case is in the fit or the held half by a
stable hash of its id (``half``); tune on fit, report held.

False tables: tables found on pages that have none: the generated negatives and the real
table-free pages in ``TABLE_FREE`` (listed, with why, in eval/pdf/unruled/README.md).

Systems, all in one run: docmill (parsers.registry.parse_path, as ``docmill parse``); docmill with
the unruled detector switched off ("before"); camelot lattice and stream (and "camelot best
mode": lattice on ruled, stream on unruled, as a user who knows the table kind would run it);
pdfplumber's default lines strategy and its text strategy.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
import time
import unicodedata
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

Rows = list[list[str]]
BBox = tuple[float, float, float, float]
Found = list[tuple[Rows, BBox | None]]

EVAL = Path("/work/shared/eval/pdf")
TABULA = EVAL / "tabula"
GENERATED = Path(__file__).resolve().parent.parent / "eval" / "pdf" / "unruled"
REAL = Path(__file__).resolve().parent.parent / "eval" / "pdf-real"

# Real pages without a data table (by docling's reference Markdown where it has one, and by
# looking at the rendered page): (file under EVAL, 1-based pages). See eval/pdf/unruled/README.md.
TABLE_FREE: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("docling/pdf/sources/multi_page.pdf", (1, 2, 3, 4, 5)),
    ("docling/pdf/sources/normal_4pages.pdf", (1, 3, 4)),
    ("docling/pdf/sources/code_and_formula.pdf", (1, 2)),
    ("docling/pdf/sources/picture_classification.pdf", (1, 2)),
    ("docling/pdf/sources/right_to_left_01.pdf", (1,)),
    ("docling/pdf/sources/redp5110_sampled.pdf", (1, 2, 3, 4, 5, 6, 7, 10, 13, 15, 16, 17, 18)),
    ("pdfplumber/pdfs/issue-848.pdf", (1, 2, 3, 4, 5, 6, 7, 8)),
    ("pdfplumber/pdfs/scotus-transcript-p1.pdf", (1,)),
    ("pdfplumber/pdfs/federal-register-2020-17221.pdf", (1, 2, 3, 4, 7, 8, 9, 10, 11, 12, 13, 14, 15)),
    ("pdfplumber/pdfs/issue-982-example.pdf", (1, 2, 3, 4, 5, 6, 7, 8)),
    ("tabula/pdfs/us-017.pdf", (1, 3, 4)),
    ("ocrmypdf/resources/tagged.pdf", (2,)),  # page 1 holds a 2x2 table
    ("ocrmypdf/resources/graph_ocred.pdf", (1,)),
    ("ocrmypdf/resources/link.pdf", (1, 2)),
    ("ocrmypdf/resources/toc.pdf", (1,)),
    ("ocrmypdf/resources/multipage.pdf", (4,)),
)


def norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", str(text)).split())


def relations(rows: Sequence[Sequence[str]]) -> Counter[tuple[str, str, str]]:
    """Adjacency relations of a table: (cell, nearest non-empty right neighbour, "h") and
    (cell, nearest non-empty cell below, "v")."""
    grid = [[norm(c) for c in row] for row in rows]
    out: Counter[tuple[str, str, str]] = Counter()
    for i, row in enumerate(grid):
        for j, cell in enumerate(row):
            if not cell:
                continue
            right = next((c for c in row[j + 1 :] if c), None)
            if right is not None:
                out[(cell, right, "h")] += 1
            below = next((r[j] for r in grid[i + 1 :] if j < len(r) and r[j]), None)
            if below is not None:
                out[(cell, below, "v")] += 1
    return out


def cell_hits(expected: Rows, ours: Rows) -> int:
    return sum(
        1
        for i, row in enumerate(expected)
        for j, cell in enumerate(row)
        if i < len(ours) and j < len(ours[i]) and norm(ours[i][j]) == norm(cell)
    )


@dataclass
class Tally:
    """Pooled counts of one system on one slice of the material."""

    matched: int = 0
    found: int = 0
    expected: int = 0
    cells_hit: int = 0
    cells: int = 0
    tables: int = 0
    exact: int = 0

    def add(self, other: Tally) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def scores(self) -> dict[str, float]:
        p = self.matched / self.found if self.found else 0.0
        r = self.matched / self.expected if self.expected else 0.0
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        return {"precision": p, "recall": r, "f1": f1, "cell_accuracy": self.cells_hit / max(self.cells, 1)}


@dataclass(frozen=True)
class ExpectedTable:
    rows: Rows
    ruled: bool


@dataclass(frozen=True)
class Case:
    case_id: str
    pdf: Path
    page: int
    tables: tuple[ExpectedTable, ...]
    area: tuple[float, float, float, float] | None = None  # tabula (top, left, bottom, right)
    source: str = "generated"

    @property
    def half(self) -> str:
        return "fit" if int(hashlib.sha1(self.case_id.encode()).hexdigest(), 16) % 2 == 0 else "held"


def _tabula_tables(path: Path) -> list[Rows]:
    if path.suffix == ".json":
        data = json.loads(path.read_text())
        return [
            [[c["text"] for c in row] for row in t["data"]]
            for t in (data if isinstance(data, list) else [data])
        ]
    with path.open(newline="", encoding="utf-8") as fh:
        return [[list(r) for r in csv.reader(fh)]]


def tabula_cases(root: Path = TABULA) -> list[Case]:
    """tabula's "basic" (unruled) and "spreadsheet" (ruled) cases with full expected content, one
    per (pdf, page), JSON preferred (it holds each table separately; the CSV concatenates them)."""
    manifest = json.loads((root / "expected_outputs_manifest.json").read_text())
    chosen: dict[tuple[str, int], Case] = {}
    for case in manifest["cases"]:
        method = case.get("method")
        if method not in ("basic", "spreadsheet") or not case.get("expected"):
            continue
        files = case["expected"] if isinstance(case["expected"], list) else [case["expected"]]
        name = next((f for f in files if f.endswith(".json")), files[0])
        tables = _tabula_tables(root / name)
        if case.get("table_index") is not None:
            tables = tables[:1]
        key = (case["pdf"], int(case["page"]))
        if key in chosen and not name.endswith(".json"):
            continue
        area = tuple(case["area"]) if case.get("area") else None
        chosen[key] = Case(
            f"tabula:{Path(case['pdf']).stem}:p{case['page']}",
            root / case["pdf"],
            int(case["page"]),
            tuple(ExpectedTable(t, method == "spreadsheet") for t in tables),
            area,  # type: ignore[arg-type]
            "tabula",
        )
    return list(chosen.values())


def generated_cases(root: Path = GENERATED) -> list[Case]:
    data = json.loads((root / "expected.json").read_text())
    return [
        Case(
            f"gen:{c['id']}",
            root / c["pdf"],
            int(c["page"]),
            tuple(ExpectedTable(t["rows"], bool(t["ruled"])) for t in c["tables"]),
        )
        for c in data["cases"]
    ]


def real_cases(root: Path = REAL, without: Sequence[str] = ()) -> list[Case]:
    """The real-table dev set (eval/pdf-real/expected.json, cells written by hand from the rendered
    pages; PDFs from eval/pdf-real/fetch.py): ruled and partly ruled tables count as ruled, the
    rest as unruled; its pages without a table count as table-free pages. ``without`` leaves out
    the cases marked ``"added": <one of them>`` (``("session 10", "session 11", "session 12",
    "session 12b", "session 13", "session 14", "session 15")``: the set as it was up to session 9)."""
    data = json.loads((root / "expected.json").read_text())
    data["cases"] = [c for c in data["cases"] if c.get("added") not in without]
    return [
        Case(
            f"real:{c['id']}",
            root / c["pdf"],
            int(c["page"]),
            tuple(ExpectedTable(t["rows"], t["kind"] != "unruled") for t in c["tables"]),
            source="real",
        )
        for c in data["cases"]
    ]


def table_free_cases(root: Path = EVAL) -> list[Case]:
    return [
        Case(f"free:{Path(name).stem}:p{p}", root / name, p, (), source="table-free")
        for name, pages in TABLE_FREE
        for p in pages
    ]


# --- systems -------------------------------------------------------------------------------------

System = Callable[[Path, int, bool], Found]  # (pdf, page, ruled hint) -> tables on that page


def _docmill(unruled: bool) -> System:
    from parsers.options import ParseOptions
    from parsers.pdf import parser as pdf_parser
    from parsers.registry import parse_path

    cache: dict[Path, Any] = {}

    def run(path: Path, page: int, _ruled: bool) -> Found:
        if path not in cache:
            previous = getattr(pdf_parser, "UNRULED_TABLES", None)
            if previous is not None:
                pdf_parser.UNRULED_TABLES = unruled
            try:
                cache[path] = parse_path(path, path.name, ParseOptions(ocr=False, pdf_workers=1))[0]
            finally:
                if previous is not None:
                    pdf_parser.UNRULED_TABLES = previous
        out: Found = []
        for b in cache[path].blocks:
            if b.table is None:
                continue
            rows = _page_rows(b.table, b.metadata.get("page_starts") or [[b.page, 0]], page, path)
            if rows:
                bbox = b.metadata.get("bbox")
                out.append((rows, tuple(bbox) if bbox and b.page == page else None))  # type: ignore[arg-type]
        return out

    return run


def _page_rows(table: Any, starts: list[list[int]], page: int, path: Path | None = None) -> Rows:
    """The header and the body rows of ``table`` that lie on ``page``: a table continued over
    several pages is one block, ``page_starts`` ([page, first body row]) says where each starts.
    On a page after the first the header counts only when the page prints it again (the parser
    keeps one copy of a repeated header; a header printed once is not on the later pages)."""
    for k, (p, start) in enumerate(starts):
        if p == page:
            stop = starts[k + 1][1] if k + 1 < len(starts) else len(table.body)
            header = table.header if k == 0 or path is None or _printed_on(path, page, table.header) else ()
            return [list(r) for r in (*header, *table.body[start:stop])]
    return []


_PAGE_TEXT: dict[tuple[Path, int], str] = {}


def _printed_on(path: Path, page: int, rows: Sequence[Sequence[str]]) -> bool:
    """Whether every non-empty cell of ``rows`` appears (spaces ignored) in the page's text."""
    import pdfplumber

    if (path, page) not in _PAGE_TEXT:
        with pdfplumber.open(path) as pdf:
            _PAGE_TEXT[(path, page)] = "".join((pdf.pages[page - 1].extract_text() or "").split())
    text = _PAGE_TEXT[(path, page)]
    cells = ["".join(c.split()) for r in rows for c in r if c.strip()]
    return all(c in text for c in cells)


def _pdfplumber(strategy: str) -> System:
    import pdfplumber

    settings = {"vertical_strategy": strategy, "horizontal_strategy": strategy}

    def run(path: Path, page: int, _ruled: bool) -> Found:
        with pdfplumber.open(path) as pdf:
            p = pdf.pages[page - 1]
            found = p.find_tables(settings)
            return [([[c or "" for c in r] for r in t.extract()], tuple(map(float, t.bbox))) for t in found]  # type: ignore[misc]

    return run


def _camelot(flavor: str | None) -> System:
    import camelot
    import pdfplumber

    def run(path: Path, page: int, ruled: bool) -> Found:
        mode = flavor or ("lattice" if ruled else "stream")
        with pdfplumber.open(path) as pdf:
            height = float(pdf.pages[page - 1].height)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                tables = camelot.read_pdf(str(path), pages=str(page), flavor=mode)
            except (ValueError, IndexError, ZeroDivisionError, TypeError) as exc:
                print(f"camelot {mode} failed on {path.name} p{page}: {exc}", file=sys.stderr)
                return []
        out: Found = []
        for t in tables:
            x0, y0, x1, y1 = (float(v) for v in t._bbox)
            out.append((t.df.values.tolist(), (x0, height - y1, x1, height - y0)))
        return out

    return run


SYSTEMS: dict[str, Callable[[], System]] = {
    "docmill": lambda: _docmill(True),
    "docmill-before": lambda: _docmill(False),
    "camelot-lattice": lambda: _camelot("lattice"),
    "camelot-stream": lambda: _camelot("stream"),
    "camelot-best": lambda: _camelot(None),
    "pdfplumber-lines": lambda: _pdfplumber("lines"),
    "pdfplumber-text": lambda: _pdfplumber("text"),
}


# --- scoring -------------------------------------------------------------------------------------


def _in_area(bbox: BBox | None, area: tuple[float, float, float, float] | None) -> bool:
    if area is None or bbox is None:
        return True
    top, left, bottom, right = area
    cx, cy = (bbox[0] + bbox[2]) / 2, (bbox[1] + bbox[3]) / 2
    return left <= cx <= right and top <= cy <= bottom


@dataclass
class CaseResult:
    per_class: dict[str, Tally] = field(default_factory=dict)
    found_tables: int = 0
    details: list[str] = field(default_factory=list)


def score_case(case: Case, found: Found) -> CaseResult:
    """Match found tables to the expected ones of one page and pool their relations by class."""
    ours = [rows for rows, bbox in found if _in_area(bbox, case.area)]
    result = CaseResult(found_tables=len(ours))
    exp_rel = [relations(t.rows) for t in case.tables]
    our_rel = [relations(r) for r in ours]
    pairs = sorted(
        ((sum((e & o).values()), i, j) for i, e in enumerate(exp_rel) for j, o in enumerate(our_rel)),
        reverse=True,
    )
    taken_e: dict[int, int] = {}
    taken_o: set[int] = set()
    for shared, i, j in pairs:
        if shared > 0 and i not in taken_e and j not in taken_o:
            taken_e[i] = j
            taken_o.add(j)
    classes = [("ruled" if t.ruled else "unruled") for t in case.tables]
    for i, table in enumerate(case.tables):
        tally = result.per_class.setdefault(classes[i], Tally())
        paired = taken_e.get(i)
        mine = ours[paired] if paired is not None else []
        tally.expected += sum(exp_rel[i].values())
        tally.found += sum(our_rel[paired].values()) if paired is not None else 0
        tally.matched += sum((exp_rel[i] & our_rel[paired]).values()) if paired is not None else 0
        hits = cell_hits(table.rows, mine)
        cells = sum(len(r) for r in table.rows)
        tally.cells_hit, tally.cells, tally.tables = (
            tally.cells_hit + hits,
            tally.cells + cells,
            tally.tables + 1,
        )
        tally.exact += hits == cells
        result.details.append(f"{classes[i]} table {i}: {hits}/{cells} cells")
    if classes:
        page_class = Counter(classes).most_common(1)[0][0]
        for j, rel in enumerate(our_rel):
            if j not in taken_o:
                result.per_class[page_class].found += sum(rel.values())
                result.details.append(f"unmatched table of ours: {len(ours[j])} rows")
    return result


def evaluate(system: System, cases: Iterable[Case]) -> dict[str, Any]:
    """Pooled scores per half x class, and the false-table count on table-free pages."""
    pooled: dict[tuple[str, str], Tally] = {}
    free_pages = free_hits = 0
    free_list: list[str] = []
    per_case: dict[str, Any] = {}
    started = time.monotonic()
    for case in cases:
        hint = bool(case.tables) and all(t.ruled for t in case.tables)
        try:
            found = system(case.pdf, case.page, hint)
        except Exception as exc:  # noqa: BLE001 - a peer crashing on one page is a result, not a stop
            print(f"{case.case_id}: {type(exc).__name__}: {exc}", file=sys.stderr)
            found = []
        res = score_case(case, found)
        if not case.tables:
            free_pages += 1
            if res.found_tables:
                free_hits += 1
                free_list.append(case.case_id)
            continue
        per_case[case.case_id] = {k: v.scores() for k, v in res.per_class.items()} | {"details": res.details}
        for cls, tally in res.per_class.items():
            for half in (case.half, "all"):
                for c in (cls, "all"):
                    pooled.setdefault((half, c), Tally()).add(tally)
    return {
        "pooled": {
            f"{h}/{c}": {**t.scores(), "tables": t.tables, "exact": t.exact} for (h, c), t in pooled.items()
        },
        "false_tables": {
            "pages": free_pages,
            "with_table": free_hits,
            "rate": free_hits / max(free_pages, 1),
            "list": free_list,
        },
        "cases": per_case,
        "seconds": round(time.monotonic() - started, 1),
    }


def report(results: dict[str, dict[str, Any]], halves: Sequence[str]) -> str:
    lines = []
    for half in halves:
        lines.append(f"\n### {half} half: adjacency F1 (P/R) and strict cell accuracy\n")
        lines.append(
            "| system | unruled F1 | unruled P/R | unruled cells | ruled F1 | ruled P/R | ruled cells "
            "| all F1 | all cells |"
        )
        lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for name, res in results.items():
            cols = []
            for cls in ("unruled", "ruled", "all"):
                s = res["pooled"].get(f"{half}/{cls}")
                if s is None:
                    cols += ["-"] * (3 if cls != "all" else 2)
                    continue
                cols.append(f"{s['f1']:.3f}")
                if cls != "all":
                    cols.append(f"{s['precision']:.2f}/{s['recall']:.2f}")
                cols.append(f"{s['cell_accuracy']:.3f}")
            lines.append(f"| {name} | " + " | ".join(cols) + " |")
    lines.append("\n### false tables on table-free pages (all halves)\n")
    lines.append("| system | pages with a table / table-free pages | rate | pages |")
    lines.append("|---|---:|---:|---|")
    for name, res in results.items():
        ft = res["false_tables"]
        shown = ", ".join(ft["list"][:12]) + (" ..." if len(ft["list"]) > 12 else "")
        lines.append(f"| {name} | {ft['with_table']}/{ft['pages']} | {ft['rate']:.3f} | {shown} |")
    lines.append("\n| system | seconds |\n|---|---:|")
    lines.extend(f"| {name} | {res['seconds']} |" for name, res in results.items())
    return "\n".join(lines)


ADDED = (
    "session 10",
    "session 11",
    "session 12",
    "session 12b",
    "session 13",
    "session 14",
    "session 15",
    "session 17",
    "session 17b",
    "session 18",
    "session 18b",
    "session 19",
    "session 19b",
)
# --set real-sN: the set as it was up to session N (the cases added later left out)
REAL_WITHOUT = {
    f"real-s{n}": ADDED[i:]
    for i, n in enumerate(("9", "10", "11", "12", "12b", "13", "14", "16", "17", "17b", "18", "18b", "19"))
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--systems", default=",".join(SYSTEMS), help=f"comma list of: {', '.join(SYSTEMS)}")
    ap.add_argument("--half", default="all", choices=("fit", "held", "all"), help="which halves to print")
    ap.add_argument("--json", type=Path, help="write all results (per case too) here")
    ap.add_argument("--show-cases", action="store_true", help="print docmill's per-case details")
    ap.add_argument("--no-free", action="store_true", help="skip the real table-free pages")
    ap.add_argument(
        "--set",
        default="dev",
        choices=("dev", "real", *REAL_WITHOUT, "both"),
        help="dev: tabula + generated + table-free pages (as before); real: eval/pdf-real only; "
        "real-s9 ... real-s19: eval/pdf-real as it was up to session 9 "
        "(64 pages) / 10 (74 pages) / 11 (89 pages) / 12's first round (92 pages) / 12's second round "
        "(101 pages) / 13 (109 pages) / 14 (117 pages) / 16 (130 pages) / 17's first round (141 pages) / "
        "17's second round (151 pages) / 18's first round (162 pages) / 18's second round (167 pages) / "
        "19 (177 pages); both",
    )
    args = ap.parse_args()
    names = [n.strip() for n in args.systems.split(",") if n.strip()]
    unknown = [n for n in names if n not in SYSTEMS]
    if unknown:
        raise SystemExit(f"unknown system {unknown[0]!r}; expected one of: {', '.join(SYSTEMS)}")
    only_real = args.set.startswith("real")
    cases = [] if only_real else tabula_cases() + generated_cases()
    cases += [] if args.no_free or only_real else table_free_cases()
    cases += real_cases(without=REAL_WITHOUT.get(args.set, ())) if args.set != "dev" else []
    absent = [c for c in cases if not c.pdf.exists()]  # eval/pdf-real/fetch.py could not get them
    if absent:
        files = ", ".join(sorted({c.pdf.name for c in absent}))
        print(f"{len(absent)} pages left out, their PDF missing: {files}")
        cases = [c for c in cases if c.pdf.exists()]
    n_tables = Counter(("ruled" if t.ruled else "unruled", c.half) for c in cases for t in c.tables)
    print(f"{len(cases)} pages; tables by class/half: {dict(sorted(n_tables.items()))}")
    results = {name: evaluate(SYSTEMS[name](), cases) for name in names}
    halves = ["fit", "held", "all"] if args.half == "all" else [args.half]
    print(report(results, halves))
    if args.show_cases:  # only the cases of the halves asked for (--half fit keeps held cases unseen)
        shown = {c.case_id for c in cases if args.half == "all" or c.half == args.half}
        for name in names:
            for cid, res in results[name]["cases"].items():
                if cid in shown:
                    print(name, cid, json.dumps(res))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
