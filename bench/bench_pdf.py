"""Text-PDF ingest: ``parsers.pdf.parser.parse`` vs a plain pdfplumber ``extract_text`` loop, pages/s and
peak RSS, each run in a fresh subprocess (ru_maxrss), alternated, median of ``--repeat``.

docmill runs with its defaults (``pdf_workers=2``: helper processes parse page ranges; their start-up
is inside the timing) and serially (``pdf_workers=1``), so the gain of the single-process work and
of the helpers can be told apart. docmill's RSS is the parse process's peak plus the largest
helper's peak (an upper bound of the two together).

Inputs: docling's multi-page text PDFs (eval set) and a generated N-page text PDF (reportlab,
cached under .docmill-cache/bench/). OCR is off for docmill (text PDFs; the peer has none).

    PYTHONPATH=. .venv/bin/python bench/bench_pdf.py [--pages 500] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import BENCH_CACHE, median, peak_rss_mib, run_child, table  # noqa: E402

DOCLING = Path("/work/shared/eval/pdf/docling/pdf/sources")
DOCLING_TEXT = (
    "redp5110_sampled.pdf",
    "multi_page.pdf",
    "normal_4pages.pdf",
    "2305.03393v1-pg9.pdf",
    "code_and_formula.pdf",
    "amt_handbook_sample.pdf",
)


def generated_pdf(pages: int) -> Path:
    """A text PDF of ``pages`` pages: a heading, paragraphs and a small ruled table every 10th page."""
    path = BENCH_CACHE / f"generated-{pages}p.pdf"
    if path.is_file():
        return path
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    pdf = canvas.Canvas(str(tmp), pagesize=A4)
    words = "retrieval index chunk token vector lexical dense hybrid fusion manifest build page".split()  # noqa: SIM905
    for page in range(pages):
        pdf.setFont("Helvetica-Bold", 14)
        pdf.drawString(60, 800, f"Section {page + 1}: {words[page % len(words)].title()} notes")
        pdf.setFont("Helvetica", 10)
        for line in range(55):
            text = " ".join(words[(page * 7 + line * 3 + i) % len(words)] for i in range(14))
            pdf.drawString(60, 780 - line * 13, f"{line + 1}. {text}.")
        if page % 10 == 0:
            for r in range(4):
                pdf.line(60, 60 + r * 15, 360, 60 + r * 15)
            for c in range(4):
                pdf.line(60 + c * 100, 60, 60 + c * 100, 105)
        pdf.showPage()
    pdf.save()
    tmp.replace(path)
    return path


def child(kind: str, files: list[str]) -> None:
    """Run in a subprocess: parse ``files`` one way, print {pages, seconds, peak_rss_mib}."""
    pages = 0
    started = time.perf_counter()
    helpers_rss = 0.0
    if kind.startswith("docmill"):
        import resource

        from parsers.options import ParseOptions
        from parsers.pdf import pool as pdf_pool
        from parsers.pdf.parser import parse
        from parsers.source import SourceFile

        options = ParseOptions(ocr=False, pdf_workers=1 if kind == "docmill-serial" else 2)
        for name in files:
            docs = parse(SourceFile.read(Path(name)), options)
            pages += int(docs[0].metadata["pages"])
        seconds = time.perf_counter() - started
        pdf_pool.shutdown_helpers()  # waited for: their peak shows in RUSAGE_CHILDREN
        helpers_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    else:
        import pdfplumber

        for name in files:
            with pdfplumber.open(name) as pdf:
                for page in pdf.pages:
                    page.extract_text()
                    pages += 1
        seconds = time.perf_counter() - started
    print(json.dumps({"pages": pages, "seconds": seconds, "peak_rss_mib": peak_rss_mib() + helpers_rss}))


def compare(files: list[Path], repeat: int) -> dict[str, dict[str, float]]:
    kinds = ["docmill", "pdfplumber", "docmill-serial"]
    runs: dict[str, list[dict[str, float]]] = {kind: [] for kind in kinds}
    for i in range(repeat):
        for kind in kinds if i % 2 == 0 else kinds[::-1]:
            runs[kind].append(run_child([__file__, "--child", kind, *map(str, files)]))
    return {
        kind: {
            "pages": r[0]["pages"],
            "pages_per_s": median([x["pages"] / x["seconds"] for x in r]),
            "peak_rss_mib": median([x["peak_rss_mib"] for x in r]),
        }
        for kind, r in runs.items()
    }


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--big-repeat", type=int, default=1, help="repeats for the generated PDF")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child[0], args.child[1:])
        return ""
    sets = {
        f"docling text PDFs ({len(DOCLING_TEXT)} files)": [
            DOCLING / n for n in DOCLING_TEXT if (DOCLING / n).is_file()
        ],
        f"generated {args.pages}-page PDF": [generated_pdf(args.pages)],
    }
    rows = []
    for label, files in sets.items():
        result = compare(files, args.repeat if "docling" in label else args.big_repeat)
        ours, peer, serial = result["docmill"], result["pdfplumber"], result["docmill-serial"]
        rows.append(
            (
                label,
                ours["pages"],
                ours["pages_per_s"],
                serial["pages_per_s"],
                peer["pages_per_s"],
                ours["pages_per_s"] / peer["pages_per_s"],
                serial["pages_per_s"] / peer["pages_per_s"],
                ours["peak_rss_mib"],
                serial["peak_rss_mib"],
                peer["peak_rss_mib"],
            )
        )
    report = "\n".join(
        [
            f"Median of {args.repeat} fresh subprocesses per cell ({args.big_repeat} for the generated PDF), "
            "docmill (default pdf_workers=2, and pdf_workers=1) and the peer alternated; OCR off. "
            "docmill RSS = parse process + largest helper.",
            "",
            table(
                [
                    "input",
                    "pages",
                    "docmill pages/s",
                    "docmill serial pages/s",
                    "pdfplumber loop pages/s",
                    "x peer",
                    "serial x peer",
                    "docmill peak RSS MiB",
                    "serial peak RSS MiB",
                    "peer peak RSS MiB",
                ],
                rows,
            ),
        ]
    )
    print(report)
    return report


if __name__ == "__main__":
    main()
