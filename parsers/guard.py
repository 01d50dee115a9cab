"""A hard wall-clock limit per file that works for any parser: ``parse_with_limits``.

``parsers.registry.parse_source`` enforces the size/line/pixel limits, and the PDF parser checks
its soft time limit between pages, but nothing in-process can stop a parser stuck inside C code
(pdfminer on a pathological content stream, pdfium decoding an image, tree-sitter) or inside one
long regex. So the parse runs in a worker process, and a worker that overruns
``ParseOptions.seconds_per_file`` is killed; the file becomes a SkipFile with the reason. A worker
that dies (segfault, out-of-memory kill) costs one file too (``ParserCrashed``), never the ingest.

Workers are fresh interpreters (``python -c``; not ``fork``, which can deadlock in a process
holding torch/tokenizers threads, and not multiprocessing's ``spawn``, which re-runs the caller's
``__main__`` and so breaks scripts without a main guard). They wait idle between files and are
reused: starting one costs ~0.1 s plus the parser imports, once per worker, not per file. Results
come back over a socketpair as multiprocessing messages, i.e. pickled, between two processes of
this program that trust each other; nothing pickled ever touches disk.

This works inside daemonic processes too (Dask's process workers): multiprocessing forbids them
children, but these are plain subprocesses, and a worker exits by itself when its parent's end of
the socket closes, so none is orphaned.
"""

from __future__ import annotations

import atexit
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from parsers.model import ParsedDocument, SkipFile
from parsers.options import ParseOptions
from parsers.source import SourceFile

_START_TIMEOUT = 120.0  # seconds for a fresh worker to import and say it is ready (shared CPUs)
# A worker is replaced after this many files, so that whatever a parser library caches or leaks
# (pdfminer, pdfium, onnxruntime arenas) does not accumulate over a long ingest.
FILES_PER_WORKER = 200


class ParserCrashed(RuntimeError):
    """The worker raised an unexpected exception or died while parsing; the message says which,
    ``worker_traceback`` where it was raised (the worker's own traceback: the parent's ends here)."""

    def __init__(self, message: str, worker_traceback: str = "") -> None:
        super().__init__(message)
        self.worker_traceback = worker_traceback


class _Timeout(Exception):
    pass


def apply_process_limits(options: ParseOptions) -> None:
    """Process-wide library limits that mirror ParseOptions (called in the worker, which is ours)."""
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover - Pillow comes with pdfplumber
        return
    # Pillow warns above MAX_IMAGE_PIXELS and raises DecompressionBombError above twice that.
    Image.MAX_IMAGE_PIXELS = options.max_image_pixels


def serve(fd: int) -> None:
    """Worker loop on socket ``fd``: receive (source, options), reply ("ok", docs) | ("skip", reason)
    | ("error", type, message, traceback)."""
    from parsers.registry import parse_source

    conn = Connection(fd)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    conn.send(("ready",))
    while True:
        try:
            source, options = conn.recv()
        except EOFError:
            return
        try:
            apply_process_limits(options)
            reply: tuple[Any, ...] = ("ok", parse_source(source, options))
        except SkipFile as exc:
            reply = ("skip", str(exc))
        except Exception as exc:  # a parser bug costs one file: report it to the parent
            reply = ("error", type(exc).__name__, str(exc), traceback.format_exc())
        conn.send(reply)


_WORKER_CODE = "import sys; from parsers.guard import serve; serve(int(sys.argv[1]))"


class _Worker:
    def __init__(self) -> None:
        ours, theirs = socket.socketpair()
        package_root = str(Path(__file__).resolve().parent.parent)  # works without an install too
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH")) if p),
        }
        self.process = subprocess.Popen(
            [sys.executable, "-c", _WORKER_CODE, str(theirs.fileno())],
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
            env=env,
        )
        theirs.close()
        self.conn = Connection(ours.detach())
        self.files = 0
        if not self.conn.poll(_START_TIMEOUT):
            self.kill()
            raise ParserCrashed(f"parse worker did not start within {_START_TIMEOUT:g} s")
        self.conn.recv()

    def parse(self, source: SourceFile, options: ParseOptions) -> list[ParsedDocument]:
        self.files += 1
        try:
            self.conn.send((source, options))
            if not self.conn.poll(options.seconds_per_file):
                raise _Timeout
            reply = self.conn.recv()
        except (EOFError, OSError):  # the worker died before or while answering
            raise ParserCrashed(f"parser process died (exit code {self.exit_code()})") from None
        if reply[0] == "ok":
            docs: list[ParsedDocument] = reply[1]
            return docs
        if reply[0] == "skip":
            raise SkipFile(reply[1])
        raise ParserCrashed(f"{reply[1]}: {reply[2]}", reply[3])

    def alive(self) -> bool:
        return self.process.poll() is None

    def exit_code(self) -> int | None:
        try:
            return self.process.wait(5)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()
        self.conn.close()


_idle: list[_Worker] = []
_idle_lock = threading.Lock()


def _acquire() -> _Worker:
    with _idle_lock:
        while _idle:
            worker = _idle.pop()
            if worker.alive():
                return worker
            worker.kill()
    return _Worker()


def _release(worker: _Worker) -> None:
    if worker.files >= FILES_PER_WORKER:
        worker.kill()
        return
    with _idle_lock:
        _idle.append(worker)


@atexit.register
def shutdown_workers() -> None:
    """Stop the idle workers (they would also exit on their own: their socket closes with us)."""
    with _idle_lock:
        workers, _idle[:] = list(_idle), []
    for worker in workers:
        worker.kill()


def parse_with_limits(source: SourceFile, options: ParseOptions | None = None) -> list[ParsedDocument]:
    """``parse_source`` under a hard ``options.seconds_per_file`` wall-clock limit.

    Raises SkipFile (the parser's own reasons, or "time limit: ..."), or ParserCrashed when the
    parser raised something else or its process died; the pipeline records either as a skip."""
    options = options or ParseOptions()
    worker = _acquire()
    started = time.monotonic()
    try:
        docs = worker.parse(source, options)
    except _Timeout:
        worker.kill()
        raise SkipFile(_timeout_reason(options, time.monotonic() - started)) from None
    except ParserCrashed:
        if worker.alive():
            _release(worker)  # it raised but is healthy
        else:
            worker.kill()
        raise
    except SkipFile:
        _release(worker)
        raise
    except BaseException:  # e.g. KeyboardInterrupt while waiting: the worker may be mid-parse
        worker.kill()
        raise
    _release(worker)
    return docs


def _timeout_reason(options: ParseOptions, elapsed: float) -> str:
    return (
        f"time limit: parsing took longer than {options.seconds_per_file:g} s (seconds_per_file); "
        f"stopped after {elapsed:.1f} s"
    )
