"""`docmill eval --queries ... --report DIR`: a Markdown report with plots (matplotlib), so a user
sees at a glance how their corpus behaves: scores per mode and question kind, abstain rates, and
the confidence of answered vs abstained and of in-domain vs off-topic questions."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from indexers.ranking.abstain import DECISION


def write_report(folder: Path, report: Mapping[str, Any], records: Sequence[Mapping[str, Any]]) -> Path:
    """report.md, scores.png, confidence.png and records.jsonl in ``folder``; returns report.md."""
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "records.jsonl", "w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    _scores_plot(folder / "scores.png", report["modes"], report.get("k", 10))
    _confidence_plot(folder / "confidence.png", records)
    path = folder / "report.md"
    path.write_text(_markdown(report, records), encoding="utf-8")
    return path


def _scores_plot(path: Path, modes: Mapping[str, Mapping[str, Mapping[str, Any]]], k: int = 10) -> None:
    import matplotlib.pyplot as plt

    hit = f"hit@{min(5, k)}"
    kinds = sorted({kind for kinds in modes.values() for kind, m in kinds.items() if hit in m})
    metrics = [(hit, hit), (f"mrr@{k}", f"MRR@{k}"), ("wrongly_abstained", "wrongly abstained")]
    fig, axes = plt.subplots(1, len(metrics), figsize=(4 * len(metrics), 3.4), sharey=True)
    width = 0.8 / max(len(modes), 1)
    for ax, (key, label) in zip(axes, metrics, strict=True):
        for i, (mode, by_kind) in enumerate(modes.items()):
            values = [by_kind.get(kind, {}).get(key, 0.0) for kind in kinds]
            ax.bar([x + i * width for x in range(len(kinds))], values, width, label=mode)
        ax.set_xticks([x + width * (len(modes) - 1) / 2 for x in range(len(kinds))], kinds, rotation=20)
        ax.set_title(label)
        ax.set_ylim(0, 1)
    axes[0].legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _confidence_plot(path: Path, records: Sequence[Mapping[str, Any]]) -> None:
    import matplotlib.pyplot as plt

    modes = list(dict.fromkeys(r["mode"] for r in records))
    fig, axes = plt.subplots(1, max(len(modes), 1), figsize=(4 * max(len(modes), 1), 3.2), sharey=True)
    axes = axes if hasattr(axes, "__len__") else [axes]
    bins = [i / 20 for i in range(21)]
    for ax, mode in zip(axes, modes, strict=False):
        rows = [r for r in records if r["mode"] == mode and r.get("confidence") is not None]
        groups = {
            "in-domain, answered": [
                r["confidence"] for r in rows if not r["offtopic"] and not r["abstained"]
            ],
            "in-domain, abstained": [r["confidence"] for r in rows if not r["offtopic"] and r["abstained"]],
            "off-topic": [r["confidence"] for r in rows if r["offtopic"]],
        }
        for label, values in groups.items():
            if values:
                ax.hist(values, bins=bins, alpha=0.55, label=f"{label} ({len(values)})")
        ax.axvline(DECISION, color="black", linewidth=1, linestyle="--")
        ax.set_title(f"{mode}: confidence")
        ax.set_xlim(0, 1)
        ax.legend(fontsize="x-small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _markdown(report: Mapping[str, Any], records: Sequence[Mapping[str, Any]]) -> str:
    from docmill.eval.compare import format_comparisons
    from docmill.eval.runner import format_questions

    fusion = report.get("fusion", {})
    lines = [
        f"# Retrieval report: {report['questions_file']}",
        "",
        f"Index `{report['index']}`; {report['questions']} answerable questions, "
        f"{report['offtopic']} off-topic "
        f"({report['half']} half). Fusion stored by the build: method `{fusion.get('method')}`, "
        f"rrf_k {fusion.get('rrf_k')}, weights {fusion.get('weights')}"
        + (f"; collapse `{report['collapse']}`" if report.get("collapse") else "")
        + ".",
        "",
        format_questions(report),
        "",
        *[f"- {line}" for line in format_comparisons(report.get("compare", {}))],
        "",
        "![scores per mode and question kind](scores.png)",
        "",
        f"Confidence of each answer (the index abstains below {DECISION}, dashed):",
        "",
        "![confidence of answered, abstained and off-topic questions](confidence.png)",
        "",
    ]
    wrong = [r for r in records if r["abstained"] and not r["offtopic"]]
    if wrong:
        lines += [
            "## In-domain questions that abstained",
            "",
            "| mode | id | rank without abstaining | reason |",
        ]
        lines += ["|---|---|---:|---|"]
        lines += [f"| {r['mode']} | {r['id']} | {r['rank'] or '-'} | {r['reason']} |" for r in wrong]
        lines.append("")
    passed = [r for r in records if r["offtopic"] and not r["abstained"]]
    if passed:
        lines += [f"{len(passed)} off-topic answers were not abstained on (records.jsonl lists them).", ""]
    return "\n".join(lines)
