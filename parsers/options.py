"""Parser settings; they check themselves so a bad value fails at construction, not mid-ingest."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any


@dataclass(frozen=True)
class ParseOptions:
    max_file_bytes: int = 200 * 1024 * 1024
    pdf_max_pages: int = 2000
    pdf_seconds_per_file: float = 600.0
    ocr: bool = True
    ocr_dpi: int = 200

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool):
                continue
            if value <= 0:
                raise ValueError(f"ParseOptions.{f.name} must be positive, got {value!r}")

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> ParseOptions:
        known = {f.name for f in fields(cls)}
        unknown = set(values) - known
        if unknown:
            raise ValueError(f"unknown parse option(s): {', '.join(sorted(unknown))}; expected: {', '.join(sorted(known))}")
        return cls(**dict(values))
