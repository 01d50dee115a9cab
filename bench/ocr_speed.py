"""Where the OCR time goes, per stage, on the scanned evaluation pages (third-party, never copied).

    PYTHONPATH=. .venv/bin/python bench/ocr_speed.py [--eval DIR] [--dpi 200] [--only linn,...]
        [--baseline GIT_REV]

For each page: render time, orientation probe (detection + recognition of a few crops), page
detection, recognition (with the number of lines), layout, and CER of the joined text against the
reference. Stages are timed by wrapping the engine's detector/recogniser (recognition runs on
several threads, so its summed time can exceed the wall time). ``cpu_s`` is the process CPU time:
on a shared, busy machine it is the steadier number to compare runs by. ``--baseline REV`` also
runs ``parsers/ocr.py`` as it was at REV, alternating with the current one case by case in the same
process, so both see the same machine load.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import parsers
from indexers.ranking.metrics import char_error_rate as cer
from parsers.options import ParseOptions
from parsers.pdf import ocr
from parsers.registry import parse_path

TIMES: dict[str, float] = defaultdict(float)
CALLS: dict[str, int] = defaultdict(int)


def _wrap(obj: Any, name: str) -> None:
    """Accumulate the wall time of ``obj.__call__`` under ``name`` (instance-level wrapper)."""
    original = obj.__call__

    class Timed(type(obj)):  # type: ignore[misc]
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                TIMES[name] += time.perf_counter() - started
                CALLS[name] += 1

    obj.__class__ = Timed


def instrument(module: Any) -> None:
    engine = module.engine()
    engine._load_det_model()
    engine._load_rec_model()
    _wrap(engine.text_det, "det")
    _wrap(engine.text_rec, "rec")
    render = module._render

    def timed_render(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return render(*args, **kwargs)
        finally:
            TIMES["render"] += time.perf_counter() - started

    module._render = timed_render


def cases(eval_root: Path) -> list[tuple[str, Path, str]]:
    docling = eval_root / "docling" / "ocr"
    reference = (docling / "groundtruth/rapidocr/full_page/ocr_test.rapidocr.full_page.md").read_text()
    out = [
        (name, docling / "sources" / f"{name}.pdf", reference)
        for name in ("ocr_test", "ocr_test_rotated_90", "ocr_test_rotated_180", "ocr_test_rotated_270")
    ]
    linn = eval_root / "ocrmypdf" / "resources"
    out.append(("linn", linn / "linn.pdf", (linn / "linn.txt").read_text(errors="replace")))
    return out


def load_revision(rev: str) -> Any:
    """parsers/ocr.py as committed at ``rev``, as a module of its own (own engine)."""
    source = subprocess.run(
        ["git", "show", f"{rev}:parsers/ocr.py"], check=True, capture_output=True, text=True
    ).stdout
    path = Path(tempfile.mkdtemp()) / "ocr_baseline.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("ocr_baseline", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_case(module: Any, path: Path, reference: str, dpi: int) -> dict[str, Any]:
    """Parse ``path`` with ``module`` standing in for parsers.pdf.ocr (pdf.py imports it lazily)."""
    sys.modules["parsers.pdf.ocr"] = parsers.pdf.ocr = module
    TIMES.clear()
    CALLS.clear()
    t0, c0 = time.perf_counter(), time.process_time()
    doc = parse_path(path, path.name, ParseOptions(ocr=True, ocr_dpi=dpi))[0]
    total, cpu = time.perf_counter() - t0, time.process_time() - c0
    text = "\n".join(b.text for b in doc.blocks)
    stages = {k: round(v, 2) for k, v in TIMES.items()}
    stages["other"] = round(total - sum(TIMES.values()), 2)
    return {
        "s": round(total, 2),
        "cpu_s": round(cpu, 2),
        "cer": round(cer(reference, text), 4),
        "stages_s": stages,
        "calls": dict(CALLS),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--eval", type=Path, default=Path(__file__).resolve().parents[2] / "shared/eval/pdf")
    ap.add_argument("--dpi", type=int, default=ParseOptions().ocr_dpi)
    ap.add_argument("--only", default="", help="comma-separated case names")
    ap.add_argument("--baseline", help="git revision of parsers/ocr.py to run alongside")
    args = ap.parse_args()
    modules = {"current": ocr}
    if args.baseline:
        modules[f"at {args.baseline}"] = load_revision(args.baseline)
    report: dict[str, Any] = {}
    for label, module in modules.items():
        started = time.perf_counter()
        instrument(module)
        report[f"engine_load_s ({label})"] = round(time.perf_counter() - started, 2)
    for name, path, reference in cases(args.eval):
        if args.only and name not in args.only.split(","):
            continue
        for label, module in modules.items():
            report[f"{name} ({label})"] = result = run_case(module, path, reference, args.dpi)
            print(f"{name} ({label})", json.dumps(result), flush=True)
    sys.modules["parsers.pdf.ocr"] = parsers.pdf.ocr = ocr
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
