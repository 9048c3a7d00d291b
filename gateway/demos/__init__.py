"""Guided sessions: `bfsql demo` (the demo graph) and `bfsql demo medlit` (the book's worked example)."""

from __future__ import annotations

import json
from typing import Any


def show_step(title: str, call: str, lesson: str, payload: Any, *, width: int = 1600) -> None:
    """One step of a demo: the call, what it returned (abridged to `width` characters), what it shows."""
    print(f"\n== {title}\n>>> {call}")
    print(json.dumps(payload, indent=1, ensure_ascii=False)[:width])
    print(f"-- {lesson}")
