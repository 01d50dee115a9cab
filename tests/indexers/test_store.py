import os
import subprocess
import sys
import textwrap

import pytest

from indexers.build.store import IndexLocked, IndexStore, NoIndex


def test_publish_switches_current_and_prune_keeps_current(tmp_path):
    store = IndexStore(tmp_path / "idx")
    with pytest.raises(NoIndex, match="docmill ingest"):
        store.current_build()
    builds = []
    for i in range(4):
        with store.lock():
            b = store.new_build_dir()
            (b / "marker").write_text(str(i))
            store.publish(b)
            builds.append(b)
    assert store.current_build() == builds[-1]
    removed = store.prune(keep=2)
    assert [p.name for p in removed] == [b.name for b in builds[:2]]
    assert store.builds() == builds[2:]


def test_lock_excludes_a_second_writer_and_is_released_on_kill(tmp_path):
    root = tmp_path / "idx"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
            import time, sys
            from indexers.build.store import IndexStore
            with IndexStore({str(root)!r}).lock():
                print("locked", flush=True)
                time.sleep(60)
        """),
        ],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(IndexLocked), IndexStore(root).lock(timeout=0.2):
            pass
    finally:
        holder.kill()  # SIGKILL: the OS drops the flock
        holder.wait()
    with IndexStore(root).lock(timeout=2):
        pass


def test_current_naming_a_missing_build_is_refused(tmp_path):
    (tmp_path / "CURRENT").write_text("nope\n")
    with pytest.raises(NoIndex, match="does not exist"):
        IndexStore(tmp_path).current_build()
