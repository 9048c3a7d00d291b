"""Guided sessions: `bfsql demo` (the demo graph) and `bfsql demo medlit` (the book's worked example).

Each step prints a command a person can paste (`bfsql query TOOL 'JSON' ...`), the real
answer of that call, cut visibly when long, and what it shows.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from gateway.api import Gateway


def show_step(
    gateway: Gateway, title: str, tool: str, arguments: dict[str, Any], lesson: str | Callable[[Any], str],
    *, data: str | None = None, width: int = 1200,
) -> Any:
    """Run one tool call and print it as a step: the command, the answer (its first `width`
    characters, and how many more there are), and the lesson (text, or made from the answer)."""
    result: BaseModel = gateway.call(tool, arguments)
    command = f"bfsql query {tool} {shlex.quote(json.dumps(arguments, ensure_ascii=False))}"
    if data is not None:
        command += f" --data {shlex.quote(data)}"
    text = rendered(result.model_dump(mode="json", exclude_none=True))
    if len(text) > width:
        text = f"{text[:width]}\n… [cut here: {len(text) - width:,} more characters; the command prints them all]"
    print(f"\n== {title}\n$ {command}\n{text}")
    print(f"-- {lesson(result) if callable(lesson) else lesson}")
    return result


def rendered(answer: dict[str, Any]) -> str:
    """An answer as a demo prints it: JSON still, a field a line."""
    members = (f" {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}" for key, value in answer.items())
    return "{\n" + ",\n".join(members) + "\n}"


def print_next_steps(data: str | None = None) -> None:
    """The commands after a demo: the page and the HTTP tools, an MCP client, one's own data."""
    served = f"bfsql serve {shlex.quote(data)}" if data else "bfsql serve"
    print(f"""
Next:
  {served}
      then open http://127.0.0.1:8000/ to walk the graph in a browser (the HTTP tools, /mcp and /sparql are there too)
  bfsql mcp{' ' + shlex.quote(data) if data else ''}
      the command an MCP client starts for itself: docs/mcp.md configures Claude Desktop, Cursor and VS Code with it
  bfsql query describe_schema --data YOUR_FILE.ttl
      your own data: RDF files, a folder of them, or a store `bfsql load FILE... --store DIR` makes""")
    note = off_path_note()
    if note:
        print(note)


def off_path_note() -> str | None:
    """How to run `bfsql` where typing it finds none (after the README's set-up, it is in
    .venv/bin and not on the PATH until the environment is activated); None where it is found."""
    found = shutil.which("bfsql")
    script = Path(sys.executable).parent / "bfsql"
    if found or not script.is_file():
        return None
    activate = script.parent / "activate"
    how = f", or first `source {shlex.quote(_near(activate))}`" if activate.is_file() else ""
    return (f"\n(`bfsql` is not on your PATH: type {shlex.quote(_near(script))} where these say bfsql{how}, "
            "or `pipx install .` for good)")


def _near(path: Path) -> str:
    """`path` from the working directory when it is below it (.venv/bin/bfsql), else whole."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
