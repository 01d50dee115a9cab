"""Ranking variants on one built index, one open: collapse policy, evidence tiers, kind floor.

    PYTHONPATH=. .venv/bin/python bench/ranking_lab.py --index INDEX --queries FILE [--offtopic FILE]
        [--variants base,section,...] [--modes bm25,vector,hybrid] [--json]

The index is the one `docmill eval --queries FILE --docs DIR --cache C` built (its path is printed
in that table's header), so variants are compared without re-ingesting. Each question is searched
as `docmill eval` does (docmill.eval.runner.evaluate_questions); the table gives hit@1 / hit@5 /
MRR@10 per mode, question kind and half (fit, held). Exploration only: the figures that count are
re-measured with `docmill eval` (docs/EVALUATION.md).

Variants: ``base`` (no collapse, no tiers, the kind floor a build of a mixed tree recorded: the
ranking before issue 22), ``none``/``section``/``page``/``document`` (that collapse, tiers on, no
kind floor), and any of
them with ``+notiers`` (tiers off), ``+floor0`` /
``+floor3`` (kind floor forced).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from docmill.api import open_index
from docmill.eval.questions import load_questions, select_half
from docmill.eval.runner import evaluate_questions
from indexers.ranking import fusion


def configure(index: Any, variant: str) -> dict[str, Any]:
    """Set the index's knobs for ``variant``; the search options it needs."""
    name, *flags = variant.split("+")
    index.evidence_tiers = name != "base" and "notiers" not in flags
    index.kind_floor = 3 if name == "base" and index.manifest.extra.get("fusion", {}).get("kind_floor") else 0
    index.coverage_power_override = None
    fusion.NAMES = "nonames" not in flags
    for flag in flags:
        if flag.startswith("cov"):
            index.coverage_power_override = float(flag[len("cov") :])
        if flag.startswith("floor"):
            index.kind_floor = int(flag[len("floor") :])
    return {"collapse": "none" if name == "base" else name}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", required=True)
    parser.add_argument("--queries", required=True)
    parser.add_argument("--offtopic")
    parser.add_argument("--variants", default="base,none,section,page")
    parser.add_argument("--modes", default="bm25,vector,hybrid")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    index = open_index(args.index)
    questions = load_questions(args.queries)
    if args.offtopic:
        questions += load_questions(args.offtopic, offtopic=True)
    modes = args.modes.split(",")
    out: dict[str, Any] = {}
    for variant in args.variants.split(","):
        options = configure(index, variant)
        for half in ("fit", "held"):
            chosen = select_half(questions, half)
            summary, _ = evaluate_questions(index, chosen, modes, search_options=options)
            out[f"{variant} {half}"] = summary
    if args.json:
        print(json.dumps(out, indent=1))
        return
    print("| variant | half | mode | kind | n | hit@1 | hit@5 | MRR@10 |")
    print("|---|---|---|---|---:|---:|---:|---:|")
    for key, summary in out.items():
        variant, half = key.rsplit(" ", 1)
        for mode, kinds in summary.items():
            for kind, m in kinds.items():
                if "hit@5" in m:
                    print(
                        f"| {variant} | {half} | {mode} | {kind} | {m['questions']} | {m['hit@1']:.3f} "
                        f"| {m['hit@5']:.3f} | {m['mrr@10']:.3f} |"
                    )


if __name__ == "__main__":
    main()
