"""Build eval/zh-faq from three pinned Chinese FAQ sources (see SOURCE.md).

Each FAQ entry becomes one question (its heading / "Q:" line, markup stripped) and one answer
passage (the text under it, written alone to docs/<source>/<page>/<nnn>.md, without the question).
Deterministic: fixed commits, files read in sorted order, no randomness. The git snapshots are
read with ``git show``; pass their folders with --mindspore/--paddle/--tidb.

    python eval/zh-faq/build.py            # rewrites docs/, queries.jsonl, stats.json
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
MIRROR = Path("/work/.mirror")
SOURCES = {
    "mindspore": {
        "repo": "mindspore-ai/docs",
        "commit": "99f68a8ad9e99ddc37844d19789fc42c4680f006",
        "git": MIRROR / "mindspore-ai+docs/repo",
    },
    "paddle": {
        "repo": "PaddlePaddle/docs",
        "commit": "46ceb37d54c1e4e994933424702031a073ec9100",
        "git": MIRROR / "PaddlePaddle+docs/repo",
    },
    "tidb": {
        "repo": "pingcap/docs-cn",
        "commit": "ae9ab0fd89873986fabc4c8873d77d46ba76f066",
        "git": MIRROR / "pingcap+docs-cn/repo",
    },
}
MIN_ANSWER_CHARS = 20  # an answer shorter than this (markup stripped) says too little to retrieve
LOW_OVERLAP = 0.35  # share of the question's bigrams found in its answer below which: "low-overlap"
QUESTION_MARK = re.compile(
    r"[？?]|如何|怎么|怎样|为什么|为何|是否|能否|可否|可以|吗|什么|哪|多少|报错|错误|失败|error", re.I
)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def faq_files(name: str, repo: Path, commit: str) -> list[str]:
    paths = git(repo, "ls-tree", "-r", "--name-only", commit).splitlines()
    if name == "mindspore":
        return sorted(p for p in paths if p.endswith(".md") and "source_zh_cn" in p and "faq" in p.lower())
    if name == "paddle":
        return sorted(p for p in paths if p.startswith("docs/faq/") and p.endswith(".md"))
    return sorted(p for p in paths if p.endswith(".md") and re.search(r"(^|/)[\w-]*faq[\w-]*\.md$", p))


def plain(text: str) -> str:
    """A question as a user would type it: no Markdown/HTML markup, single spaces."""
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.replace("**", "").replace("`", "").replace("\\", "")
    text = re.sub(r"^\s*(Q|问题)\s*[:：]\s*", "", text)
    return re.sub(r"\s+", " ", text).strip(" #")


def clean_answer(lines: list[str]) -> str:
    out = []
    for line in lines:
        if re.fullmatch(r"\s*(<br\s*/?>|-{3,}|\*{3,})\s*", line):
            continue
        line = re.sub(r"!\[[^\]]*\]\([^)]*\)", "", line)  # images are not copied
        out.append(line.rstrip())
    text = "\n".join(out).strip()
    text = re.sub(r"^(\+\s*)?(A|答复)\s*[:：]\s*", "", text)
    return re.sub(r"\n{3,}", "\n\n", text) + "\n"


def mindspore_pairs(text: str) -> Iterator[tuple[str, str]]:
    question, body = None, []
    for line in text.splitlines():
        if re.search(r"\*\*Q\s*[:：]", line):
            if question:
                yield question, clean_answer(body)
            question, body = plain(line), []
        elif line.startswith("#") and question:  # a new section closes the last answer
            yield question, clean_answer(body)
            question, body = None, []
        elif question is not None:
            body.append(line)
    if question:
        yield question, clean_answer(body)


def heading_pairs(text: str, paddle: bool) -> Iterator[tuple[str, str]]:
    """(question heading, body) for each question-like leaf heading; the body runs to the next
    heading at the same or a higher level (deeper headings stay in the answer)."""
    text = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)
    lines, in_code = text.splitlines(), False
    heads = []
    for i, line in enumerate(lines):
        if line.startswith("```"):
            in_code = not in_code
        m = None if in_code else re.match(r"(#{2,6})\s+(.*)", line)
        if m:
            heads.append((i, len(m.group(1)), m.group(2)))
    for n, (i, level, title) in enumerate(heads):
        if paddle and "问题" not in title:
            continue
        if not QUESTION_MARK.search(title):
            continue
        end = next((j for j, lv, _ in heads[n + 1 :] if lv <= level), len(lines))
        yield plain(title), clean_answer(lines[i + 1 : end])


def bigrams(text: str) -> set[str]:
    """Character bigrams of CJK runs plus lowercased ASCII words: a tokeniser-free overlap measure."""
    grams = set()
    for run in re.findall(r"[\u4e00-\u9fff]+", text):
        grams.update(run[k : k + 2] for k in range(len(run) - 1)) if len(run) > 1 else grams.add(run)
    grams.update(w.lower() for w in re.findall(r"[A-Za-z_][A-Za-z0-9_.]+", text))
    return grams


def overlap(question: str, answer: str) -> float:
    q = bigrams(question)
    return len(q & bigrams(answer)) / len(q) if q else 0.0


def collect(args: argparse.Namespace) -> list[dict]:
    rows, seen_q, seen_a = [], set(), set()
    for name, src in SOURCES.items():
        repo = Path(getattr(args, name))
        for path in faq_files(name, repo, src["commit"]):
            text = git(repo, "show", f"{src['commit']}:{path}")
            pairs = mindspore_pairs(text) if name == "mindspore" else heading_pairs(text, name == "paddle")
            page = re.sub(r"[^\w-]+", "_", path.removesuffix(".md").replace("docs/", "").replace("/", "-"))
            for number, (question, answer) in enumerate(pairs, 1):
                body = plain(answer)
                if len(body) < MIN_ANSWER_CHARS or len(question) < 4 or question in seen_q or body in seen_a:
                    continue
                seen_q.add(question)
                seen_a.add(body)
                rows.append(
                    {
                        "source": name,
                        "path": path,
                        "page": page,
                        "n": number,
                        "question": question,
                        "answer": answer,
                    }
                )
    return rows


def write(rows: list[dict]) -> dict:
    docs = HERE / "docs"
    if docs.exists():
        shutil.rmtree(docs)
    queries, stats = [], {"questions": 0, "by_source": {}, "by_kind": {}, "overlaps": []}
    for row in rows:
        rel = f"{row['source']}/{row['page']}/{row['n']:03d}.md"
        target = docs / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(row["answer"], encoding="utf-8")
        share = overlap(row["question"], row["answer"])
        kind = "low-overlap" if share < LOW_OVERLAP else "overlap"
        qid = f"{row['source']}-{row['page']}-{row['n']:03d}"
        queries.append(
            {"id": qid, "query": row["question"], "relevant": [rel], "kind": kind, "overlap": round(share, 3)}
        )
        stats["by_source"][row["source"]] = stats["by_source"].get(row["source"], 0) + 1
        stats["by_kind"][kind] = stats["by_kind"].get(kind, 0) + 1
        stats["overlaps"].append(share)
    with open(HERE / "queries.jsonl", "w", encoding="utf-8") as out:
        for q in queries:
            out.write(json.dumps(q, ensure_ascii=False) + "\n")
    shares = sorted(stats.pop("overlaps"))
    stats.update(questions=len(queries), median_overlap=round(shares[len(shares) // 2], 3))
    stats["corpus_bytes"] = sum(p.stat().st_size for p in docs.rglob("*.md"))
    (HERE / "stats.json").write_text(json.dumps(stats, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return stats


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    for name, src in SOURCES.items():
        parser.add_argument(f"--{name}", default=str(src["git"]), help=f"git dir of {src['repo']}")
    print(json.dumps(write(collect(parser.parse_args())), ensure_ascii=False))


if __name__ == "__main__":
    main()
