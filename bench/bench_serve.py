"""`docmill serve` under load while the index is re-indexed: latency and throughput at concurrency 1
and 16 on loopback, errors, and whether every answer came from exactly one build.

The index is SciFact (5,183 abstracts, 10.6k chunks) plus one marker record whose text names the
re-index generation. Phase 1: one client for --quiet seconds. Phase 2: 16 clients for at least
--seconds while real `docmill ingest` runs change the marker record: one publishes (generation 2),
one is killed with -9 mid-build (generation 3, must never be served), one publishes (generation 4).
A client checks each answer: HTTP 200, the JSON `build` equals the X-Docmill-Build header, every
hit exists in that build's chunks.jsonl, and a marker query's top hit names that build's
generation. The server's open file descriptors are counted before and after.

    PYTHONPATH=. .venv/bin/python bench/bench_serve.py [--seconds 60] [--quiet 20]

Builds .docmill-cache/bench/serve/ once (SciFact from $DOCMILL_SCIFACT: minutes to embed).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx  # noqa: E402

from bench.common import BENCH_CACHE, REPO, SCIFACT, percentile, table  # noqa: E402
from indexers.build.files import BUILDS, CHUNKS_FILE  # noqa: E402

WORK = BENCH_CACHE / "serve"
DOCMILL = str(REPO / ".venv/bin/docmill")
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
MARKER_QUERY = "serve bench re-index generation marker record"


def write_corpus(generation: int) -> Path:
    """SciFact plus the marker record of ``generation`` (the rest unchanged: an incremental ingest)."""
    corpus = WORK / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    lines = (SCIFACT / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    marker = {
        "_id": "serve-bench-marker",
        "title": "Serve bench marker record",
        "text": f"This serve bench re-index generation marker record says generation{generation}.",
    }
    (corpus / "scifact.jsonl").write_text("\n".join([*lines, json.dumps(marker)]) + "\n", encoding="utf-8")
    return corpus


def ingest(generation: int) -> subprocess.Popen:
    corpus = write_corpus(generation)
    return subprocess.Popen(
        [DOCMILL, "ingest", str(corpus), "--index", str(WORK / "index"), "--keep", "10"],
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


class Clients:
    """N client threads asking queries in a loop; records latency and checks every answer."""

    def __init__(self, url: str, queries: list[str], n: int) -> None:
        self.url, self.queries, self.n = url, queries, n
        self.stop = threading.Event()
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self.answers: list[tuple[str, list[str], str | None]] = []  # build, hit ids, marker seen
        self.lock = threading.Lock()

    def run(self, seconds_or_event: float | threading.Event) -> float:
        threads = [threading.Thread(target=self._client, args=(i,)) for i in range(self.n)]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        if isinstance(seconds_or_event, threading.Event):
            seconds_or_event.wait()
        else:
            time.sleep(seconds_or_event)
        self.stop.set()
        for thread in threads:
            thread.join()
        return time.perf_counter() - started

    def _client(self, offset: int) -> None:
        with httpx.Client(timeout=60) as session:
            i = offset
            while not self.stop.is_set():
                query = MARKER_QUERY if i % 10 == 0 else self.queries[i % len(self.queries)]
                i += self.n
                t = time.perf_counter()
                try:
                    response = session.get(f"{self.url}/search", params={"q": query, "k": 10})
                except httpx.HTTPError as exc:
                    with self.lock:
                        self.errors.append(f"transport: {exc}")
                    continue
                elapsed = time.perf_counter() - t
                self._check(query, response, elapsed)

    def _check(self, query: str, response: httpx.Response, elapsed: float) -> None:
        if response.status_code != 200:
            with self.lock:
                self.errors.append(f"{response.status_code}: {response.text[:200]}")
            return
        body = response.json()
        problem = None if body["build"] == response.headers.get("x-docmill-build") else "build header differs"
        marker = None
        if query == MARKER_QUERY:
            top = body["hits"][0]["text"] if body["hits"] else ""
            marker = next((w.rstrip(".") for w in top.split() if w.startswith("generation")), "none")
        with self.lock:
            self.latencies.append(elapsed)
            self.answers.append((body["build"], [h["chunk_id"] for h in body["hits"]], marker))
            if problem:
                self.errors.append(problem)


def build_facts(index: Path) -> dict[str, tuple[set[str], str | None]]:
    """Each build's chunk ids and the generation its marker record names."""
    facts = {}
    for build in sorted((index / BUILDS).iterdir()):
        if not (build / CHUNKS_FILE).is_file():
            continue
        ids, generation = set(), None
        for line in (build / CHUNKS_FILE).open(encoding="utf-8"):
            chunk = json.loads(line)
            ids.add(chunk["id"])
            if "serve bench re-index generation" in chunk["text"]:
                generation = next(w.rstrip(".") for w in chunk["text"].split() if w.startswith("generation"))
        facts[build.name] = (ids, generation)
    return facts


def verify(clients: Clients, facts: dict[str, tuple[set[str], str | None]]) -> list[str]:
    wrong = []
    for build, ids, marker in clients.answers:
        if build not in facts:
            wrong.append(f"answer from unknown build {build}")
        elif not set(ids) <= facts[build][0]:
            wrong.append(f"hits not in build {build}")
        elif marker is not None and marker != facts[build][1]:
            wrong.append(f"build {build} answered {marker}, holds {facts[build][1]}")
    return wrong


def reindex_events(done: threading.Event, log: list[str], min_seconds: float) -> None:
    started = time.perf_counter()
    time.sleep(3)
    for generation, kill_after in ((2, None), (3, 15.0), (4, None)):
        process = ingest(generation)
        t = time.perf_counter()
        if kill_after is not None:
            time.sleep(kill_after)
            process.send_signal(signal.SIGKILL)
            process.wait()
            log.append(f"generation {generation}: killed -9 after {kill_after:.0f} s")
            continue
        _, err = process.communicate()
        outcome = "published" if process.returncode == 0 else f"failed: {err.strip()[-200:]}"
        log.append(f"generation {generation}: {outcome} in {time.perf_counter() - t:.0f} s")
    time.sleep(max(5.0, min_seconds - (time.perf_counter() - started)))
    done.set()


def summary(name: str, clients: Clients, seconds: float) -> list[object]:
    lat = [x * 1000 for x in clients.latencies]
    return [
        name,
        len(lat),
        len(clients.errors),
        f"{percentile(lat, 50):.1f}",
        f"{percentile(lat, 99):.1f}",
        f"{len(lat) / seconds:.1f}",
        len({a[0] for a in clients.answers}),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--quiet", type=float, default=20)
    args = parser.parse_args()
    subprocess.run(
        [DOCMILL, "ingest", str(write_corpus(1)), "--index", str(WORK / "index"), "--keep", "10"],
        env=ENV,
        check=True,
        capture_output=True,
    )
    queries = [json.loads(line)["text"] for line in (SCIFACT / "queries.jsonl").open(encoding="utf-8")]
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = subprocess.Popen(
        [DOCMILL, "serve", str(WORK / "index"), "--port", str(port), "--check-interval", "1"],
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        while True:
            try:
                if httpx.get(f"{url}/health").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
        fds_before = len(os.listdir(f"/proc/{server.pid}/fd"))
        quiet = Clients(url, queries, 1)
        quiet_seconds = quiet.run(args.quiet)
        busy, done, events = Clients(url, queries, 16), threading.Event(), []
        runner = threading.Thread(target=reindex_events, args=(done, events, args.seconds))
        runner.start()
        busy_seconds = busy.run(done)
        runner.join()
        time.sleep(2)
        fds_after = len(os.listdir(f"/proc/{server.pid}/fd"))
    finally:
        server.terminate()
        server.wait()
    facts = build_facts(WORK / "index")
    wrong = verify(quiet, facts) + verify(busy, facts)
    print(
        table(
            ["clients", "requests", "errors", "p50 ms", "p99 ms", "req/s", "builds seen"],
            [
                summary("1 (no re-index)", quiet, quiet_seconds),
                summary("16 (2 publishes, 1 kill -9)", busy, busy_seconds),
            ],
        )
    )
    print(f"\nphase 2 lasted {busy_seconds:.0f} s; " + "; ".join(events))
    print(f"answers not from exactly one build: {len(wrong)} {wrong[:3]}")
    print(f"errors: {(quiet.errors + busy.errors)[:3]}")
    print(f"server open fds: {fds_before} before, {fds_after} after")


if __name__ == "__main__":
    main()
