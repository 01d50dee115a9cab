"""JSON files an open reads in full (a manifest of every file of a tree, a segment's vocabulary),
parsed by orjson; what orjson refuses but Python's json wrote (NaN, integers past 64 bits) by
json, so a file json wrote always reads back."""

from __future__ import annotations

import json
from typing import Any

import orjson


def loads(raw: bytes) -> Any:
    """``raw`` parsed; raises ValueError (json.JSONDecodeError, UnicodeDecodeError) when neither
    orjson nor json reads it."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return json.loads(raw.decode("utf-8"))
