"""Incremental re-index on a generated tree of 1,000 small Markdown and code files.

Measures, each as a fresh `docmill ingest` process (start-up included): the full build, then
re-ingest after changing one file, deleting one, adding one, and all three at once, as a ratio of
the full build in the same run, with the breakdown (the process's own diff / parse / chunk / embed
seconds from the build's manifest; "rest" is start-up imports, writing the segments and
publishing); and the full build's peak RSS. A re-ingest writes the next build by segments
(flows/segmented.py): the previous build's files hard-linked, one small new segment. Last, the
vectors a re-ingest computed without torch (indexers/query_encoder.py) against
sentence-transformers' for the same texts.

    .venv/bin/python bench/bench_incremental.py [--files 1000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WORDS = (  # noqa: SIM905 - a paragraph reads better than a 60-item list
    "orbital daemon cache index build token bucket limiter queue retry backoff snapshot replica shard "
    "lease heartbeat config install upgrade rollback metric latency throughput schema migration parser "
    "chunk vector embedding manifest publish atomic pointer reader writer lock prune release archive "
    "socket buffer stream batch worker pool schedule cron deploy tenant quota audit policy key rotate"
).split()


def _sentence(rng: random.Random) -> str:
    words = rng.choices(WORDS, k=rng.randint(8, 18))
    return " ".join(words).capitalize() + "."


def markdown_file(rng: random.Random, n: int) -> str:
    parts = [f"# Topic {n}: {rng.choice(WORDS)} {rng.choice(WORDS)}\n"]
    for s in range(rng.randint(2, 4)):
        parts.append(f"\n## Section {s + 1} on {rng.choice(WORDS)}\n\n")
        parts.append(" ".join(_sentence(rng) for _ in range(rng.randint(2, 6))) + "\n")
    return "".join(parts)


def python_file(rng: random.Random, n: int) -> str:
    out = [f'"""Module {n}: {_sentence(rng)}"""\n\n']
    for f in range(rng.randint(2, 4)):
        name = f"{rng.choice(WORDS)}_{rng.choice(WORDS)}_{f}"
        out.append(f"\ndef {name}(value: int, limit: int = {rng.randint(1, 99)}) -> int:\n")
        out.append(f'    """{_sentence(rng)}"""\n')
        out.append(f"    total = value * {rng.randint(2, 9)}\n    if total > limit:\n")
        out.append("        return limit\n    return total\n\n")
    return "".join(out)


def go_file(rng: random.Random, n: int) -> str:
    out = [f"// Package p{n}: {_sentence(rng)}\npackage p{n}\n"]
    for f in range(rng.randint(2, 3)):
        name = f"{rng.choice(WORDS).capitalize()}{rng.choice(WORDS).capitalize()}{f}"
        out.append(f"\n// {name} {_sentence(rng).lower()}\n")
        out.append(f"func {name}(v int) int {{\n\tif v > {rng.randint(1, 99)} {{\n")
        out.append(f"\t\treturn v - {rng.randint(1, 9)}\n\t}}\n\treturn v * 2\n}}\n")
    return "".join(out)


def generate(root: Path, files: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    for n in range(files):
        folder = root / f"area{n % 20:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        kind = n % 5
        if kind < 3:
            (folder / f"doc{n:04d}.md").write_text(markdown_file(rng, n), encoding="utf-8")
        elif kind == 3:
            (folder / f"mod{n:04d}.py").write_text(python_file(rng, n), encoding="utf-8")
        else:
            (folder / f"svc{n:04d}.go").write_text(go_file(rng, n), encoding="utf-8")


def ingest(tree: Path, index: Path) -> tuple[float, dict]:
    """Wall seconds of one `docmill ingest` process, and what it did (from the build's manifest)."""
    from indexers.build.manifest import Manifest
    from indexers.build.store import IndexStore

    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    docmill = Path(sys.executable).with_name("docmill")
    before = IndexStore(index).current_name()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(
        [str(docmill), "ingest", str(tree), "--index", str(index)], capture_output=True, env=env
    )
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime
    if result.returncode != 0:
        raise RuntimeError(f"docmill ingest failed: {result.stderr.decode()[-2000:]}")
    build = IndexStore(index).current_build()
    if build.name == before:
        return seconds, {
            "published": False,
            "parsed": 0,
            "embedded": 0,
            "added": 0,
            "changed": 0,
            "removed": 0,
            "cpu": cpu,
        }
    manifest = Manifest.read(build)
    diff = manifest.extra["incremental"]
    return seconds, {
        "published": True,
        "parsed": len(diff["parsed"]),
        "embedded": diff["embedded"],
        "embedded_with": diff.get("embedded_with", "model"),
        "added": len(diff["added"]),
        "changed": len(diff["changed"]),
        "removed": len(diff["removed"]),
        "seconds": diff.get("seconds", {}),
        "segments": len(manifest.segments),
        "build": build,
        "cpu": cpu,
    }


def startup_seconds() -> float:
    """A fresh interpreter importing what `docmill ingest` imports before it reads the tree."""
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", "import docmill.cli, flows.pipeline"], check=True, cwd=REPO, env=os.environ
    )
    return time.perf_counter() - started


def breakdown(seconds: float, report: dict) -> str:
    if not report["published"]:
        return ""
    parts = dict(report["seconds"])
    parts["rest"] = seconds - sum(parts.values())
    return "; " + ", ".join(f"{name} {value:.2f}" for name, value in parts.items())


def check_vectors(build: Path) -> str:
    """Max |difference| and min cosine between the newest segment's vectors and
    sentence-transformers' (torch) for the same texts."""
    import json

    import numpy as np

    from indexers.build.manifest import Manifest
    from indexers.dense.embedder import Embedder

    newest = Manifest.read(build).segments[-1]["name"]
    folder = build / "segments" / newest
    texts = [json.loads(line)["index_text"] for line in (folder / "chunks.jsonl").read_text().splitlines()]
    ours = np.load(folder / "embeddings.npy")
    torch = Embedder("all-MiniLM-L6-v2").encode(texts + [""])[: len(texts)]  # a batch: the torch path
    cosine = (ours * torch).sum(axis=1)
    return (
        f"torch-free vs torch vectors of {len(texts)} new chunks: max |diff| "
        f"{np.abs(ours - torch).max():.2e}, min cosine {cosine.min():.7f}"
    )


def full_build(tree: Path, index: Path) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak RSS (MiB) of one `docmill ingest` process (reaped with
    wait4, so the figures are that process's own)."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    docmill = Path(sys.executable).with_name("docmill")
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # child: become `docmill ingest`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.execve(str(docmill), [str(docmill), "ingest", str(tree), "--index", str(index)], env)
    _, status, usage = os.wait4(pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"docmill ingest exited with {status}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--keep", help="keep the generated tree and index in this folder")
    args = parser.parse_args()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="docmill-bench-"))
    tree, index = work / "tree", work / "index"
    shutil.rmtree(work, ignore_errors=True)
    generate(tree, args.files)
    full_s, full_cpu, rss = full_build(tree, index)
    from indexers.build.manifest import Manifest
    from indexers.build.store import IndexStore

    counts = Manifest.read(IndexStore(index).current_build()).counts
    print(
        f"full build: {args.files} files, {counts['chunks']} chunks, {full_s:.1f} s "
        f"({full_cpu:.1f} s CPU), peak RSS {rss:.0f} MiB"
    )
    rng = random.Random(99)
    markdown = sorted(tree.rglob("*.md"))

    def all_three() -> None:
        markdown[2].write_text(markdown_file(rng, 2), encoding="utf-8")
        markdown[3].unlink()
        (tree / "area08/new.md").write_text(markdown_file(rng, 10_008), encoding="utf-8")

    steps = {
        "change 1": lambda: markdown[0].write_text(markdown_file(rng, 0), encoding="utf-8"),
        "delete 1": lambda: markdown[1].unlink(),
        "add 1": lambda: (tree / "area07/new.md").write_text(markdown_file(rng, 10_007), encoding="utf-8"),
        "all three": all_three,
        "no change": lambda: None,
    }
    print(f"start-up (fresh interpreter, imports only): {startup_seconds():.2f} s")
    last_build = None
    for name, edit in steps.items():
        edit()
        seconds, report = ingest(tree, index)
        note = "" if report["published"] else ", nothing published"
        where = (
            f", {report['segments']} segments, embedded by {report['embedded_with']}"
            if report["published"]
            else ""
        )
        print(
            f"{name:>9}: {seconds:5.2f} s = {seconds / full_s:6.1%} of the full build "
            f"(CPU {report['cpu']:.2f} s = {report['cpu'] / full_cpu:.1%}) "
            f"(parsed {report['parsed']}, embedded {report['embedded']}, "
            f"+{report['added']} ~{report['changed']} -{report['removed']}{note}{where})"
            + breakdown(seconds, report)
        )
        if report["published"] and report["embedded"]:
            last_build = report["build"]
    if last_build is not None:
        print(check_vectors(last_build))
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    main()
