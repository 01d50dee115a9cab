"""docmill.live: a live index follows publishes, finishes searches on their build, refuses bad
builds and releases old ones. Real builds (run_ingest with the session model), real FAISS."""

from __future__ import annotations

import json
import logging
import os
import shutil
import threading
from pathlib import Path

import pytest

import docmill
from docmill.live import LiveIndex
from indexers.build.store import IndexStore


def copy_current_build(index: Path, edit=None, source: Path | None = None) -> str:
    """Publish a byte-for-byte copy of the current build (or ``source``), optionally edited, under
    a new name and prune to 3 builds: the cheap way to make many publishes."""
    store = IndexStore(index)
    source = source or store.current_build()
    target = store.new_build_dir()
    shutil.copytree(source, target, dirs_exist_ok=True)
    if edit is not None:
        edit(target)
    with store.lock():
        store.publish(target)
        store.prune(3)
    return target.name


def test_refresh_switches_to_a_new_build_and_reuses_the_model(
    live_index, embedder, publish_generation, marker
):
    live = docmill.open_index(live_index, embedder=embedder, follow=True, check_interval=3600)
    first = live.build_name
    assert live.refresh() is False  # nothing new published
    assert marker(live.search("generation marker quokka", mode="bm25")) == "marker1"
    second = publish_generation(2)
    # check_interval not elapsed: searches stay on the first build until refresh()
    assert marker(live.search("generation marker quokka", mode="bm25")) == "marker1"
    assert live.refresh() is True
    assert live.build_name == second != first
    assert marker(live.search("generation marker quokka")) == "marker2"
    assert live.current.embedder is embedder
    live.close()


def test_follow_picks_up_publishes_without_refresh(live_index, embedder, publish_generation, marker):
    live = docmill.open_index(live_index, embedder=embedder, follow=True, check_interval=0)
    publish_generation(7)
    assert marker(live.search("generation marker quokka", mode="bm25")) == "marker7"
    live.close()


def test_search_in_flight_finishes_on_its_build_even_when_pruned(
    live_index, embedder, publish_generation, marker
):
    live = LiveIndex(live_index, embedder, check_interval=3600)
    with live.acquire() as old:
        for n in (2, 3, 4, 5):  # keep_builds=3: the old build's folder is deleted
            publish_generation(n)
        assert live.refresh() is True
        assert not old.build.exists()
        assert marker(old.search("generation marker quokka")) == "marker1"
        assert marker(live.search("generation marker quokka")) == "marker5"
        assert old.chunks._fd >= 0  # still held
    assert old.chunks._fd == -1  # released with the last lease
    live.close()


def _other_model(build: Path) -> None:
    manifest = json.loads((build / "manifest.json").read_text())
    manifest["embedding"]["model"] = "some-other-model"
    (build / "manifest.json").write_text(json.dumps(manifest))


def _truncate_vectors(build: Path) -> None:
    segment = json.loads((build / "manifest.json").read_text())["segments"][0]["name"]
    with open(build / "segments" / segment / "vectors.faiss", "r+b") as handle:
        handle.truncate(10)


@pytest.mark.parametrize(
    ("edit", "why"), [(_other_model, "some-other-model"), (_truncate_vectors, "vectors.faiss")]
)
def test_a_refused_build_keeps_the_old_one_serving(live_index, embedder, caplog, edit, why, marker):
    live = LiveIndex(live_index, embedder, check_interval=0)
    serving = live.build_name
    with caplog.at_level(logging.WARNING, logger="docmill.live"):
        bad = copy_current_build(live_index, edit)
        assert live.refresh() is False
        assert marker(live.search("generation marker quokka")) == "marker1"
    assert live.build_name == serving
    assert why in live.refused[bad]
    assert any(bad in r.getMessage() and why in r.getMessage() for r in caplog.records)
    caplog.clear()
    assert live.refresh() is False
    assert not caplog.records  # logged once per refused build, not at every check
    good = copy_current_build(live_index, source=live.current.build)  # a later good build is taken
    assert live.refresh() is True
    assert live.build_name == good
    live.close()


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _mapped_files(index: Path) -> int:
    with open("/proc/self/maps") as maps:
        return sum(1 for line in maps if str(index) in line)


def test_no_descriptor_or_mapping_growth_over_100_publishes(live_index, embedder, marker):
    live = LiveIndex(live_index, embedder, check_interval=0)
    live.search("generation marker quokka")  # warm: model, ONNX session, caches
    for _ in range(3):
        copy_current_build(live_index)
        live.search("generation marker quokka")
    fds, maps = _open_fds(), _mapped_files(live_index)
    switched = 0
    for _ in range(100):
        copy_current_build(live_index)
        result = live.search("generation marker quokka", filters={"kind": "text"})
        assert marker(result) == "marker1"
        switched += live.build_name == IndexStore(live_index).current_name()
    assert switched == 100
    assert _open_fds() <= fds, (fds, _open_fds())
    assert _mapped_files(live_index) <= maps, (maps, _mapped_files(live_index))
    live.close()


def test_searches_from_threads_during_publishes_each_see_one_build(
    live_index, embedder, publish_generation, marker
):
    live = LiveIndex(live_index, embedder, check_interval=0)
    errors: list[BaseException] = []
    seen: list[tuple[str, str | None]] = []
    stop = threading.Event()

    def client() -> None:
        while not stop.is_set():
            try:
                with live.acquire() as index:
                    result = index.search("generation marker quokka")
                    # the build's own manifest names what this search ran on
                    seen.append((index.build.name, marker(result)))
            except BaseException as exc:  # collected and asserted below
                errors.append(exc)
                return

    threads = [threading.Thread(target=client) for _ in range(4)]
    for thread in threads:
        thread.start()
    builds = {live.build_name: "marker1"}
    for n in (2, 3, 4):
        builds[publish_generation(n)] = f"marker{n}"
    stop.set()
    for thread in threads:
        thread.join()
    assert not errors, errors
    assert {marker for _, marker in seen} >= {"marker1", "marker4"}
    assert all(builds[build] == marker for build, marker in seen)
    live.close()


def test_closed_live_index_refuses_searches(live_index, embedder):
    live = LiveIndex(live_index, embedder)
    live.close()
    with pytest.raises(RuntimeError, match="closed"):
        live.search("anything")
