"""Measure the PDF parser on third-party material (never copied into tests; no per-document rules).

    PYTHONPATH=. .venv/bin/python bench/measure_pdf.py [--eval DIR] [--only tables,ocr,speed,bad]

Parses through ``parsers.registry.parse_path`` (what ``docmill parse --json`` calls), then reports:
- tables: cell accuracy = fraction of expected cells whose whitespace-normalised text equals ours
  at the same row/column (best-matching table of ours on that page), on tabula's ruled
  ("spreadsheet") cases and pdfplumber's bordered table assertions (cells + structure checks).
  Strict scores are reported as they are; tabula's cases also get a *tolerant* score that forgives
  only the convention differences named in ``TOLERANCES`` (each case lists the cells each one
  recovered). ``rotation``: a bordered table on a rotated page must read as on the upright page;
  an unruled table on a rotated page must not become a bordered one;
- ocr: character error rate (edit distance / reference length, whitespace-normalised) and seconds
  per page on docling ocr/sources (every orientation) and ocrmypdf linn.pdf vs linn.txt;
- speed: pages/s on docling's text-layer PDFs;
- bad: every PDF under the eval folder either parses or is skipped with a reason; crashes listed.
"""

from __future__ import annotations

import argparse
import csv
import json
import time
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from indexers.ranking.metrics import char_error_rate as cer
from parsers.model import ParsedDocument, SkipFile
from parsers.options import ParseOptions
from parsers.registry import parse_path

Rows = list[list[str]]


def norm(text: str) -> str:
    return " ".join(str(text).split())


def parse(path: Path, options: ParseOptions | None = None) -> ParsedDocument:
    return parse_path(path, path.name, options or ParseOptions(ocr=False))[0]


def page_tables(doc: ParsedDocument, page: int) -> list[tuple[Rows, list[float] | None]]:
    return [
        ([list(r) for r in b.table.rows], b.metadata.get("bbox"))
        for b in doc.blocks
        if b.table is not None and b.page == page
    ]


def cell_score(expected: Rows, ours: Rows) -> tuple[int, int]:
    """(matching cells, expected cells) at the same row/column."""
    total = sum(len(r) for r in expected)
    hits = 0
    for i, row in enumerate(expected):
        for j, cell in enumerate(row):
            if i < len(ours) and j < len(ours[i]) and norm(ours[i][j]) == norm(cell):
                hits += 1
    return hits, total


def best_match(expected: Rows, candidates: Sequence[Rows]) -> tuple[int, int]:
    total = sum(len(r) for r in expected)
    return max((cell_score(expected, c) for c in candidates), default=(0, total))


# Convention differences between tabula's expected files and a correct reading of the PDF. Only
# the tolerant score applies them; the strict score does not.
TOLERANCES = {
    "sliver_columns": "an expected column empty in every row and under 2 pt wide in tabula's JSON "
    "geometry is dropped: tabula makes it between its area edge and a double-stroked table border "
    "(schools: 1.6 pt wide); no text fits in it",
    "span_packing": "tabula lists a row's cells left to right without the slots a spanning cell "
    "covers and pads the row at the end (spreadsheet_no_bounding_frame: 'VARIATION' spans columns "
    "4-5 above 'Percentage'/'Absolute' but tabula writes it in column 2); a row counts as matched "
    "when its non-empty cells, in order, equal ours",
    "nfkc": "cell text compared after Unicode NFKC: the PDF draws a fullwidth '（' (twotables) that "
    "tabula writes as '('",
}
SLIVER_PT = 2.0


def _nfkc(text: str) -> str:
    return norm(unicodedata.normalize("NFKC", str(text)))


def _packed(row: Sequence[str]) -> list[str]:
    return [_nfkc(c) for c in row if _nfkc(c)]


def tolerant_score(expected: Rows, ours: Rows) -> tuple[int, dict[str, int]]:
    """Matching cells under ``TOLERANCES`` (sliver columns already dropped from ``expected``),
    and how many hits each tolerance added over the strict row/column comparison."""
    hits, used = 0, {"nfkc": 0, "span_packing": 0}
    for i, row in enumerate(expected):
        mine = ours[i] if i < len(ours) else []
        strict = sum(j < len(mine) and norm(mine[j]) == norm(c) for j, c in enumerate(row))
        nfkc = sum(j < len(mine) and _nfkc(mine[j]) == _nfkc(c) for j, c in enumerate(row))
        packed = len(row) if mine and _packed(mine) == _packed(row) and nfkc < len(row) else 0
        best = max(strict, nfkc, packed)
        hits += best
        if best > strict:
            used["span_packing" if packed == best and packed > nfkc else "nfkc"] += best - strict
    return hits, used


def drop_sliver_columns(expected: Rows, widths: list[list[float | None]] | None) -> tuple[Rows, int]:
    """``expected`` without columns that are empty in every row and under ``SLIVER_PT`` wide
    (needs tabula's JSON geometry; CSV expectations are returned as they are)."""
    if not widths or not expected:
        return expected, 0
    n = max(len(r) for r in expected)

    def sliver(j: int) -> bool:
        for row, w in zip(expected, widths, strict=True):
            if j < len(row) and (norm(row[j]) or ((w[j] if j < len(w) else None) or 0.0) >= SLIVER_PT):
                return False
        return True

    drop = {j for j in range(n) if sliver(j)}
    kept = [[c for j, c in enumerate(row) if j not in drop] for row in expected]
    return kept, sum(1 for row in expected for j in range(len(row)) if j in drop)


def _in_area(bbox: list[float] | None, area: list[float] | None) -> bool:
    if area is None or bbox is None:
        return True
    top, left, bottom, right = area
    cx, cy = (bbox[0] + bbox[2]) / 2, (bbox[1] + bbox[3]) / 2
    return left <= cx <= right and top <= cy <= bottom


def _tabula_expected(root: Path, name: str) -> list[tuple[Rows, list[list[float | None]] | None]]:
    """Expected tables of a tabula file, each with its cells' widths when the file has them (JSON)."""
    path = root / name
    if path.suffix == ".json":
        data = json.loads(path.read_text())
        tables = data if isinstance(data, list) else [data]
        return [
            (
                [[c["text"] for c in row] for row in t["data"]],
                [[c.get("width") for c in row] for row in t["data"]],
            )
            for t in tables
        ]
    with path.open(newline="", encoding="utf-8") as fh:
        return [([list(r) for r in csv.reader(fh)], None)]


def measure_tabula(root: Path) -> dict[str, Any]:
    manifest = json.loads((root / "expected_outputs_manifest.json").read_text())
    results = {}
    structure: dict[str, Any] = {}
    for case in manifest["cases"]:
        if case.get("method") != "spreadsheet":
            continue
        if not case.get("expected"):  # structure-only case (china.pdf: an incomplete grid, 2 tables)
            doc = parse(root / case["pdf"])
            found = len(page_tables(doc, case["page"]))
            structure[Path(case["pdf"]).stem] = {
                "expected": case.get("expect", {}),
                "ours": {"n_tables": found},
            }
            continue
        expected_files = case["expected"] if isinstance(case["expected"], list) else [case["expected"]]
        name = next((e for e in expected_files if e.endswith(".json")), expected_files[0])
        doc = parse(root / case["pdf"])
        ours = [rows for rows, bbox in page_tables(doc, case["page"]) if _in_area(bbox, case.get("area"))]
        results[f"{Path(case['pdf']).stem}:{name}"] = _tabula_case(_tabula_expected(root, name), ours, name)
    summary = _summary(results)
    hits = sum(int(r["cells_tolerant"].split("/")[0]) for r in results.values())
    total = sum(int(r["cells_tolerant"].split("/")[1]) for r in results.values())
    summary["cell_accuracy_pooled_tolerant"] = round(hits / max(total, 1), 4)
    summary["tolerances"] = TOLERANCES
    summary["structure"] = structure
    return summary


def _tabula_case(
    expected: list[tuple[Rows, list[list[float | None]] | None]], ours: list[Rows], name: str
) -> dict[str, Any]:
    # tabula's CSV writer puts a page's tables one after another: compare with ours joined too
    candidates = [*ours, [row for rows in ours for row in rows]] if name.endswith(".csv") else ours
    hits = total = exact = t_hits = t_total = 0
    used = {"sliver_columns": 0, "nfkc": 0, "span_packing": 0}
    for table, widths in expected:
        h, t = best_match(table, candidates)
        hits, total, exact = hits + h, total + t, exact + (h == t)
        kept, dropped = drop_sliver_columns(table, widths)
        best = max((tolerant_score(kept, c) for c in candidates), key=lambda x: x[0], default=(0, {}))
        t_hits, t_total = t_hits + best[0], t_total + sum(len(r) for r in kept)
        used["sliver_columns"] += dropped
        for key, n in best[1].items():
            used[key] += n
    return {
        "cells": f"{hits}/{total}",
        "accuracy": round(hits / total, 4),
        "exact_tables": f"{exact}/{len(expected)}",
        "cells_tolerant": f"{t_hits}/{t_total}",
        "accuracy_tolerant": round(t_hits / max(t_total, 1), 4),
        "tolerances_used": {k: v for k, v in used.items() if v},
    }


def _summary(results: dict[str, Any]) -> dict[str, Any]:
    hits = sum(int(r["cells"].split("/")[0]) for r in results.values())
    total = sum(int(r["cells"].split("/")[1]) for r in results.values())
    mean = sum(r["accuracy"] for r in results.values()) / max(len(results), 1)
    return {
        "cases": results,
        "cell_accuracy_pooled": round(hits / max(total, 1), 4),
        "mean_case_accuracy": round(mean, 4),
    }


def measure_pdfplumber(root: Path) -> dict[str, Any]:
    """Bordered cases only; cell expectations scored as cells, counts as structure checks."""
    cases = json.loads((root / "expected_table_assertions.json").read_text())["cases"]
    results = {}
    for case in cases:
        if case.get("bordered") is not True or "crop" in case:
            continue
        doc = parse(root / case["pdf"])
        tables = [rows for rows, _ in page_tables(doc, case["page"])]
        cells, checks = _pdfplumber_checks(case["expect"], tables)
        if cells or checks:
            hits = sum(cells)
            results[Path(case["pdf"]).stem] = {
                "cells": f"{hits}/{len(cells)}",
                "accuracy": round(hits / len(cells), 4) if cells else 1.0,
                "structure": checks,
            }
    return _summary(results)


def _pdfplumber_checks(expect: dict[str, Any], tables: list[Rows]) -> tuple[list[bool], dict[str, Any]]:
    cells: list[bool] = []
    checks: dict[str, Any] = {}
    first = tables[0] if tables else []
    for key, value in expect.items():
        if key == "n_tables":
            checks[key] = {"expected": value, "ours": len(tables)}
        elif key == "rows_per_table":
            checks[key] = {"expected": value, "ours": [len(t) for t in tables]}
        elif key == "last_row":
            cells.extend(_row_hits(value, [t[-1] for t in tables if t]))
        elif key.startswith("row["):
            index = int(key[4:-1])
            cells.extend(_row_hits(value, [t[index] for t in tables if len(t) > index], squash=3))
        elif key.startswith("cell["):
            i, j = (int(x) for x in key[5:-1].split("]["))
            found = [t[i][j] for t in tables if _has(t, i, j)]
            cells.append(any(norm(f) == norm(value) for f in found))
    _ = first
    return cells, checks


def _has(rows: Rows, i: int, j: int) -> bool:
    try:
        rows[i][j]
    except IndexError:
        return False
    return True


def _row_hits(expected: list[str], candidates: list[list[str]], squash: int = 0) -> list[bool]:
    """Per-cell hits against the best candidate row; ``squash`` first cells compared without
    spaces (the WARN test removes them before asserting)."""

    def same(a: str, b: str, j: int) -> bool:
        return a.replace(" ", "") == b.replace(" ", "") if j < squash else norm(a) == norm(b)

    best = [False] * len(expected)
    for row in candidates:
        hits = [j < len(row) and same(row[j], cell, j) for j, cell in enumerate(expected)]
        best = max(best, hits, key=sum)
    return best


# (upright, rotated) renderings of one bordered table; and unruled tables on rotated pages
ROTATED_PAIRS = [
    (
        "pdfplumber/pdfs/nics-background-checks-2015-11.pdf",
        "pdfplumber/pdfs/nics-background-checks-2015-11-rotated.pdf",
    ),
]
ROTATED_UNRULED = ["tabula/pdfs/rotated_page.pdf"]  # a stream table with horizontal rules only


def measure_rotation(eval_root: Path) -> dict[str, Any]:
    """Cell agreement of each rotated page's tables with the upright page's (every upright cell is
    expected), and the bordered tables found on rotated pages whose table is not ruled (0 expected)."""
    out: dict[str, Any] = {}
    for upright, rotated in ROTATED_PAIRS:
        want = [rows for rows, _ in page_tables(parse(eval_root / upright), 1)]
        got = [rows for rows, _ in page_tables(parse(eval_root / rotated), 1)]
        hits = total = 0
        for table in want:
            h, t = best_match(table, got)
            hits, total = hits + h, total + t
        out[Path(rotated).stem] = {"cells": f"{hits}/{total}", "accuracy": round(hits / max(total, 1), 4)}
    for name in ROTATED_UNRULED:
        found = len(page_tables(parse(eval_root / name), 1))
        out[Path(name).stem] = {"bordered_tables_expected": 0, "ours": found}
    return out


def _ocr_case(path: Path, reference: str, dpi: int) -> dict[str, Any]:
    started = time.perf_counter()
    doc = parse(path, ParseOptions(ocr=True, ocr_dpi=dpi))
    seconds = time.perf_counter() - started
    text = "\n".join(b.text for b in doc.blocks)
    pages = max(doc.metadata.get("pages", 1), 1)
    return {"cer": round(cer(reference, text), 4), "s_per_page": round(seconds / pages, 2)}


def measure_ocr(eval_root: Path, dpi: int) -> dict[str, Any]:
    docling = eval_root / "docling" / "ocr"
    reference = (docling / "groundtruth/rapidocr/full_page/ocr_test.rapidocr.full_page.md").read_text()
    out = {}
    for name in ("ocr_test", "ocr_test_rotated_90", "ocr_test_rotated_180", "ocr_test_rotated_270"):
        out[name] = _ocr_case(docling / "sources" / f"{name}.pdf", reference, dpi)
    linn = eval_root / "ocrmypdf" / "resources"
    out["linn"] = _ocr_case(linn / "linn.pdf", (linn / "linn.txt").read_text(errors="replace"), dpi)
    return out


def measure_speed(eval_root: Path) -> dict[str, Any]:
    pages = 0
    started = time.perf_counter()
    per_file = {}
    for path in sorted((eval_root / "docling" / "pdf" / "sources").glob("*.pdf")):
        t0 = time.perf_counter()
        try:
            doc = parse(path)
        except SkipFile as exc:
            per_file[path.name] = f"skipped: {exc}"
            continue
        pages += doc.metadata["pages"]
        per_file[path.name] = f"{doc.metadata['pages']} p, {time.perf_counter() - t0:.2f} s"
    seconds = time.perf_counter() - started
    return {
        "pages": pages,
        "seconds": round(seconds, 2),
        "pages_per_s": round(pages / seconds, 2),
        "files": per_file,
    }


def measure_bad(eval_root: Path) -> dict[str, Any]:
    """Every PDF: parsed, skipped (with reason) or crashed (any other exception). No OCR, to stay fast."""
    skipped, crashed, parsed = {}, {}, 0
    for path in sorted(eval_root.rglob("*.pdf")):
        rel = str(path.relative_to(eval_root))
        try:
            parse(path, ParseOptions(ocr=False, pdf_seconds_per_file=60))
            parsed += 1
        except SkipFile as exc:
            skipped[rel] = str(exc)
        except Exception as exc:  # noqa: BLE001 - the point is to list crashes, not to stop at one
            crashed[rel] = f"{type(exc).__name__}: {exc}"
    return {"parsed": parsed, "skipped": skipped, "crashed": crashed}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--eval", type=Path, default=Path(__file__).resolve().parents[2] / "shared/eval/pdf")
    ap.add_argument("--only", default="tables,ocr,speed,bad")
    ap.add_argument("--dpi", type=int, default=ParseOptions().ocr_dpi)
    args = ap.parse_args()
    parts = set(args.only.split(","))
    report: dict[str, Any] = {}
    if "tables" in parts:
        report["tabula_spreadsheet"] = measure_tabula(args.eval / "tabula")
        report["pdfplumber_bordered"] = measure_pdfplumber(args.eval / "pdfplumber")
        report["rotation"] = measure_rotation(args.eval)
    if "ocr" in parts:
        report["ocr"] = measure_ocr(args.eval, args.dpi)
    if "speed" in parts:
        report["speed"] = measure_speed(args.eval)
    if "bad" in parts:
        report["bad"] = measure_bad(args.eval)
    print(json.dumps(report, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
