"""Response sizes on the medlit bundle: the book's 2-hop walk from desmopressin, as served.

    PYTHONPATH=. python bench/medlit_sizes.py                   # print, update bench/RESULTS.md
    PYTHONPATH=. python bench/medlit_sizes.py --output /tmp/r.md
    PYTHONPATH=. python bench/medlit_sizes.py --no-write

A size is what the HTTP surface sends: ``len(result.model_dump_json(exclude_none=True))``,
in characters. The walk is ``bfs_query(seeds=["RxNorm:3251"], max_hops=2)``; the book's
figures (84 nodes, 99 edges, ~14,000 characters topology-only, ~110,000 with full
metadata) cross every relationship, so all five truth statuses are listed. The issue's
targets are checked beside each size. The section "Medlit response sizes" of the output
file is replaced (or appended); nothing else in the file is touched.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.report import write_section
from gateway import Gateway
from gateway.models import TRUTH_STATUSES
from gateway.importers.bundle import import_bundle

HERE = Path(__file__).resolve().parent
BUNDLE = HERE.parent.parent / "shared" / "data" / "medlit"
SECTION = "## Medlit response sizes"
SEED = "RxNorm:3251"


@dataclass
class Row:
    name: str
    arguments: dict[str, Any]
    nodes: int
    edges: int
    characters: int
    target: int | None
    hidden: dict[str, int]


ALL_STATUSES = list(TRUTH_STATUSES)
VARIANTS: list[tuple[str, dict[str, Any], int | None]] = [
    ("topology only, default layout", {"topology_only": True, "truth_status": ALL_STATUSES}, 14_000),
    ("topology only, compact layout (labelled)", {"topology_only": True, "truth_status": ALL_STATUSES, "layout": "compact"},
     10_000),
    ("full metadata, default layout", {"truth_status": ALL_STATUSES}, 110_000),
    ("full metadata, compact layout", {"truth_status": ALL_STATUSES, "layout": "compact"}, None),
    ("topology only, default truth_status", {"topology_only": True}, None),
    ("topology only, default truth_status, compact", {"topology_only": True, "layout": "compact"}, None),
]


def measure(gateway: Gateway) -> list[Row]:
    rows = []
    for name, extra, target in VARIANTS:
        arguments = {"seeds": [SEED], "max_hops": 2, **extra}
        result = gateway.bfs_query(**arguments)
        rows.append(Row(name, arguments, result.node_count, result.edge_count,
                        len(result.model_dump_json(exclude_none=True)), target, dict(result.hidden_by_filter)))
    return rows


def where_the_characters_go(gateway: Gateway) -> list[str]:
    """What the topology-only default layout spends its characters on."""
    result = gateway.bfs_query(seeds=[SEED], max_hops=2, topology_only=True, truth_status=ALL_STATUSES)
    text = result.model_dump_json(exclude_none=True)
    keys = sum(text.count(f'"{k}":') * (len(k) + 3) for k in ("id", "entity_type", "subject", "predicate", "object"))
    prefixed = re.findall(r'"medlit:[A-Za-z_]+"', text)
    data = json.loads(text)
    header = len(json.dumps({k: v for k, v in data.items() if k not in ("nodes", "edges")}, separators=(",", ":")))
    id_chars = sum(len(e["subject"]) + len(e["object"]) for e in data["edges"])
    return [
        f"- JSON keys `id`, `entity_type`, `subject`, `predicate`, `object` repeated per node and edge: {keys:,} characters",
        f"- the `medlit:` prefix on the {len(prefixed)} type and predicate names: {7 * len(prefixed):,} characters",
        f"- node IDs repeated inside the edges: {id_chars:,} characters",
        f"- everything but `nodes` and `edges`: {header:,} characters",
        "", "With full metadata:", "", *_full_notes(gateway),
    ]


def _full_notes(gateway: Gateway) -> list[str]:
    """What full metadata repeats: in both layouts, and in the compact one."""
    def size(value: object) -> int:
        return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False))

    full = json.loads(gateway.bfs_query(seeds=[SEED], max_hops=2, truth_status=ALL_STATUSES)
                      .model_dump_json(exclude_none=True))
    compact = json.loads(gateway.bfs_query(seeds=[SEED], max_hops=2, truth_status=ALL_STATUSES, layout="compact")
                         .model_dump_json(exclude_none=True))
    types = sum(size(n["types"]) + 9 for n in full["nodes"] if n.get("types") == [n["entity_type"]])
    singles = sum(2 for item in (*full["nodes"], *full["edges"])
                  for values in (item.get("properties") or item.get("provenance") or {}).values() if len(values) == 1)
    return [
        f"- `types` equal to `[entity_type]` on every node: {types:,} characters",
        f"- the brackets of one-item lists in `properties` and `provenance`: {singles:,} characters",
        (f"- compact layout with full data: each item is listed once (full ones only in `node_details` / "
         f"`edge_details`): {size(compact):,} characters against {size(full):,} in the default layout"),
    ]


def markdown(rows: Sequence[Row], notes: Sequence[str], description: str) -> str:
    lines = [
        SECTION, "",
        (f"`bfs_query(seeds=[\"{SEED}\"], max_hops=2, ...)` on `shared/data/medlit` imported by "
         "`gateway.importers.bundle` (`bench/medlit_sizes.py`). Characters are "
         "`len(result.model_dump_json(exclude_none=True))`, what the HTTP surface sends. "
         "\"all statuses\" lists the five truth statuses (the book's walk crosses every relationship)."),
        "", f"Graph: {description}", "",
        "| variant | nodes | edges | characters | target | met | hidden_by_filter |",
        "|---|---:|---:|---:|---:|---|---|",
    ]
    for row in rows:
        target = f"{row.target:,}" if row.target else "—"
        met = "—" if row.target is None else ("yes" if row.characters <= row.target else "**no**")
        hidden = ", ".join(f"{k} {v}" for k, v in row.hidden.items()) or "—"
        lines.append(f"| {row.name} | {row.nodes} | {row.edges} | {row.characters:,} | {target} | {met} | {hidden} |")
    lines += ["", "Where the topology-only default layout spends its characters:", "", *notes, ""]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--bundle", type=Path, default=BUNDLE, help="the medlit bundle directory")
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS.md", help="the Markdown file to update")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    if not args.bundle.is_dir():
        print(f"medlit_sizes: {args.bundle} is absent", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as scratch:
        report = import_bundle(args.bundle, Path(scratch) / "medlit.trig")
        gateway = Gateway.open(report.out)
    rows = measure(gateway)
    section = markdown(rows, where_the_characters_go(gateway), report.description)
    print(section)
    if not args.no_write:
        write_section(args.output, SECTION, section)
        print(f"\nupdated {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
