"""`.gitignore`-style ignore files an ingest honours by default (flows.sources.discover).

Every ``.gitignore`` and ``.docmillignore`` inside a source folder applies, as git applies them, to
the paths under the folder holding it: patterns relative to that folder, a deeper file overriding a
shallower one, the last matching line winning (``!pattern`` takes a path back), and nothing under
an ignored folder coming back (the folder is not entered). In one folder ``.docmillignore`` is read
after ``.gitignore``, so it can take back what git ignores (``!docs/generated/``). Matching is
pathspec's ``GitIgnoreSpec`` (git's wildmatch rules). Ignore files above the source folder do not
apply. `docmill ingest --no-ignore-files` (flow parameter ``ignore_files=False``) turns this off.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pathspec

IGNORE_FILES = (".gitignore", ".docmillignore")


@dataclass
class Ignored:
    """How many files and folders (whose files were then not looked at) the ignore files left out."""

    files: int = 0
    folders: int = 0

    def __bool__(self) -> bool:
        return bool(self.files or self.folders)

    def describe(self) -> str:
        parts = [f"{self.files} file(s)"] + ([f"{self.folders} folder(s)"] if self.folders else [])
        return " and ".join(parts) + " ignored by .gitignore/.docmillignore"


class IgnoreRules:
    """The ignore files of one source folder, read folder by folder as a top-down walk enters them."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._specs: dict[str, pathspec.GitIgnoreSpec] = {}  # folder under root ("" = root) -> spec

    def enter(self, folder: str) -> None:
        """Read ``folder``'s ignore files (``folder``: relative to the root, posix, "" for the root)."""
        lines: list[str] = []
        for name in IGNORE_FILES:
            try:
                text = (self.root / folder / name).read_text(encoding="utf-8", errors="replace")
            except OSError:  # absent (or unreadable: nothing to honour)
                continue
            lines.extend(text.splitlines())
        if any(line.strip() and not line.lstrip().startswith("#") for line in lines):
            self._specs[folder] = pathspec.GitIgnoreSpec.from_lines(lines)

    def ignored(self, rel: str, is_dir: bool = False) -> bool:
        """Whether the path ``rel`` (relative to the root) is ignored, deeper ignore files last."""
        if not self._specs:
            return False
        parts = rel.split("/")
        verdict: bool | None = None
        for depth in range(len(parts)):
            folder = "/".join(parts[:depth])
            spec = self._specs.get(folder)
            if spec is None:
                continue
            below = "/".join(parts[depth:]) + ("/" if is_dir else "")
            result = spec.check_file(below).include
            if result is not None:
                verdict = result
        return bool(verdict)
