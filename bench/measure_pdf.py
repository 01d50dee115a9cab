"""Measure the PDF parser on third-party material (never copied into tests; no per-document rules).

    PYTHONPATH=. .venv/bin/python bench/measure_pdf.py [--eval DIR] [--only tables,ocr,speed,bad]

Parses through ``parsers.registry.parse_path`` (what ``docmill parse --json`` calls), then reports:
- tables: cell accuracy = fraction of expected cells whose whitespace-normalised text equals ours
  at the same row/column (best-matching table of ours on that page), on tabula's ruled
  ("spreadsheet") cases and pdfplumber's bordered table assertions (cells + structure checks);
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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

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


def _in_area(bbox: list[float] | None, area: list[float] | None) -> bool:
    if area is None or bbox is None:
        return True
    top, left, bottom, right = area
    cx, cy = (bbox[0] + bbox[2]) / 2, (bbox[1] + bbox[3]) / 2
    return left <= cx <= right and top <= cy <= bottom


def _tabula_expected(root: Path, name: str) -> list[Rows]:
    path = root / name
    if path.suffix == ".json":
        data = json.loads(path.read_text())
        tables = data if isinstance(data, list) else [data]
        return [[[c["text"] for c in row] for row in t["data"]] for t in tables]
    with path.open(newline="", encoding="utf-8") as fh:
        return [[list(r) for r in csv.reader(fh)]]


def measure_tabula(root: Path) -> dict[str, Any]:
    manifest = json.loads((root / "expected_outputs_manifest.json").read_text())
    results = {}
    for case in manifest["cases"]:
        if case.get("method") != "spreadsheet" or not case.get("expected"):
            continue
        expected_files = case["expected"] if isinstance(case["expected"], list) else [case["expected"]]
        name = next((e for e in expected_files if e.endswith(".json")), expected_files[0])
        doc = parse(root / case["pdf"])
        ours = [rows for rows, bbox in page_tables(doc, case["page"]) if _in_area(bbox, case.get("area"))]
        hits = total = exact = 0
        expected = _tabula_expected(root, name)
        # tabula's CSV writer puts a page's tables one after another: compare with ours joined too
        candidates = [*ours, [row for rows in ours for row in rows]] if name.endswith(".csv") else ours
        for table in expected:
            h, t = best_match(table, candidates)
            hits, total, exact = hits + h, total + t, exact + (h == t)
        key = f"{Path(case['pdf']).stem}:{name}"
        results[key] = {
            "cells": f"{hits}/{total}",
            "accuracy": round(hits / total, 4),
            "exact_tables": f"{exact}/{len(expected)}",
        }
    return _summary(results)


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


def levenshtein(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def cer(reference: str, hypothesis: str) -> float:
    ref, hyp = norm(reference), norm(hypothesis)
    return levenshtein(ref, hyp) / max(len(ref), 1)


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
    if "ocr" in parts:
        report["ocr"] = measure_ocr(args.eval, args.dpi)
    if "speed" in parts:
        report["speed"] = measure_speed(args.eval)
    if "bad" in parts:
        report["bad"] = measure_bad(args.eval)
    print(json.dumps(report, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
