"""Import a JSON-lines property-graph bundle as RDF 1.2 TriG the gateway reads.

A bundle (such as ``../shared/data/medlit``) is a directory of:

    manifest.json         domain, label, file names, metadata (per-paper study design)
    entities.jsonl        one entity a line: entity_id, entity_type, name, canonical_url,
                          properties.synonyms, supporting_documents, mention counts ...
    relationships.jsonl   one relationship a line: subject_id, predicate, object_id,
                          confidence, source_documents, properties.linguistic_trust,
                          properties.provenance, strongest_evidence_quote ...
    evidence.jsonl        one evidence span a line, keyed by relationship_key
                          ``subject:PREDICATE:object``

`import_bundle` writes one TriG file, all or nothing (a temporary file, parsed back
by Oxigraph, then renamed). The mapping, field by field, is in data/README.md
("medlit"); in short:

- An entity is its ID's IRI (RxNorm, MeSH, DBPedia, ... through vocab/prefixes.json,
  so `RxNorm:3251` stays `RxNorm:3251`), typed ``<domain>:<entity_type>``, labelled
  with `name`, `skos:altLabel` per synonym, `bfs:supportingDocument` per document,
  `bfs:urlSynonym <canonical_url>`, every other field a ``bundle:<field>`` literal.
- A relationship is a reifier ``stmt:<hash>``: ``s p o ~ r {| ... |}`` when
  `linguistic_trust` is asserted or absent (asserted_true), ``<< s p o ~ r >>`` only
  when it is suggested or speculative (hypothetical). It carries `bfs:confidence`,
  `bfs:sourceDocument`, its provenance items and evidence spans as IRI nodes under its
  own IRI, and every other field as a ``bundle:<field>`` literal.
- Each distinct evidence text of a paper is a passage ``passage:<paper>-<i>`` (`i` from
  0 in file order): `bfs:passageOf` the paper (a relationship walked only when named),
  `bfs:passageIndex`, `bfs:passageText`; each statement links the passages of its
  evidence with `bfs:evidencePassage` (read them in order with fetch_slice).

Every failure is an `InvalidInput` naming the file and line; with ``lenient=True`` the
bad row is skipped and listed in the report instead (rows that name a skipped row are
skipped in turn, each listed).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from gateway.api import Gateway
from gateway.backends.load_report import LoadReport
from gateway.errors import GatewayError, InvalidInput
from gateway.importers.bundle_model import BundleReport
from gateway.importers.bundle_read import description_of, read_bundle
from gateway.importers.bundle_write import prefixes_of, render_trig, write_atomically


# -- the API ---------------------------------------------------------------------------------
def import_bundle(
    directory: Path, out: Path | None = None, *, lenient: bool = False, description: str | None = None,
) -> BundleReport:
    """Convert the bundle in `directory` to RDF 1.2 TriG at `out` (default: ./<dir>.trig).

    Strict by default: the first bad row raises `InvalidInput` naming file and line, and
    nothing is written. `lenient=True` skips bad rows (and rows naming them) and lists
    each in `BundleReport.skipped`. `description` replaces the graph description made
    from the manifest.
    """
    bundle, skipped = read_bundle(directory, lenient=lenient)
    out = Path(out) if out is not None else Path.cwd() / f"{Path(directory).resolve().name}.trig"
    text = description or description_of(bundle)
    quads = write_atomically(out, render_trig(bundle, text))
    statements = list(bundle.statements.values())
    return BundleReport(
        out=str(out), domain=bundle.domain, description=text,
        entities=len(bundle.entities), statements=len(statements),
        asserted=sum(s.asserted for s in statements), hypothetical=sum(not s.asserted for s in statements),
        evidence=sum(s.evidence for s in statements),
        provenance=sum(len(s.parts) - s.evidence for s in statements),
        passages=sum(len(spans) for spans in bundle.passages.values()),
        quads=quads, prefixes=prefixes_of(bundle), local_schemes=dict(bundle.ids.local), skipped=skipped,
    )


def load_into_store(trig: Path, store: ox.Store | None = None) -> ox.Store:
    """The TriG in a pyoxigraph Store (a new in-memory one unless given). Open it with
    `Gateway.open(store, prefixes=bundle_prefixes(trig))` so IDs come back as CURIEs."""
    store = store if store is not None else ox.Store()
    store.bulk_load(path=str(trig), format=ox.RdfFormat.TRIG)
    return store


def bundle_prefixes(trig: Path) -> dict[str, str]:
    """The @prefix lines of an imported TriG (its own schemes, such as prov: and stmt:)."""
    from gateway.backends.embedded import scan_prefixes

    return scan_prefixes(Path(trig))


def load_bundle_store(trig: Path, directory: Path, *, lenient: bool = False, show_progress: bool = False) -> LoadReport:
    """Bulk-load the TriG into the on-disk store at `directory` (prefixes and search index beside it)."""
    from gateway.loading import load_store

    return load_store([Path(trig)], Path(directory), lenient=lenient, show_progress=show_progress)


def is_bundle(path: Path) -> bool:
    path = Path(path)
    return path.is_dir() and ((path / "entities.jsonl").is_file() or (path / "manifest.json").is_file())


def open_bundle(source: Path, *, lenient: bool = False, **options: Any) -> Gateway:
    """A Gateway over a bundle directory (imported to a temporary TriG, loaded into
    memory), or over an RDF file or store directory as `Gateway.open` takes them
    (`options` go to `Gateway.open`: prefixes, settings, in_memory)."""
    source = Path(source)
    if not is_bundle(source):
        return Gateway.open(source, lenient=lenient, **options)
    options.pop("in_memory", None)  # a bundle is read into memory anyway
    with tempfile.TemporaryDirectory(prefix="bfsql-bundle-") as scratch:
        report = import_bundle(source, Path(scratch) / f"{source.resolve().name}.trig", lenient=lenient)
        return Gateway.open(report.out, **options)


def find_medlit(start: Path | None = None) -> Path:
    """The medlit bundle: $BFSQL_MEDLIT, else `shared/data/medlit` in the working directory
    or the nearest folder above it that has one (`../shared/data/medlit` beside a checkout)."""
    configured = os.environ.get("BFSQL_MEDLIT")
    if configured:
        if is_bundle(Path(configured)):
            return Path(configured)
        raise InvalidInput(f"BFSQL_MEDLIT names {configured}, which holds no bundle (no entities.jsonl)", field="bundle")
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "shared" / "data" / "medlit"
        if is_bundle(candidate):
            return candidate
    raise InvalidInput(
        f"the medlit bundle was not found: no shared/data/medlit in {here} or a folder above it; "
        "pass --bundle DIR (or set BFSQL_MEDLIT)", field="bundle",
    )


# -- the command line ---------------------------------------------------------------------
def add_import_bundle_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """`import-bundle DIR --out FILE.trig [--store DIR] [--lenient]`."""
    parser.add_argument("directory", type=Path, help="the bundle directory (manifest.json, entities.jsonl, ...)")
    parser.add_argument("--out", type=Path, default=None, help="the TriG file to write (default ./<DIR name>.trig)")
    parser.add_argument("--store", type=Path, default=None, help="also bulk-load it into this on-disk store directory")
    parser.add_argument("--lenient", action="store_true", help="skip bad rows, listing each, instead of stopping")
    return parser


def import_bundle_command(args: argparse.Namespace | Sequence[str] | None = None) -> int:
    """`bfsql import-bundle`: takes parsed arguments (from `add_import_bundle_arguments`)
    or an argv list. Prints the report as JSON and each skipped row on stderr."""
    if not isinstance(args, argparse.Namespace):
        parser = add_import_bundle_arguments(argparse.ArgumentParser(prog="bfsql import-bundle"))
        args = parser.parse_args(args)
    try:
        report = import_bundle(args.directory, args.out, lenient=args.lenient)
        summary = report.to_dict()
        if args.store is not None:
            loaded = load_bundle_store(Path(report.out), args.store, show_progress=True)
            summary["store"] = {"directory": str(args.store), "quads": loaded.quads}
    except GatewayError as error:
        print(f"bfsql: {error.message}", file=sys.stderr)
        return 2 if error.code == "invalid_input" else 1
    for row in report.skipped:
        print(f"bfsql: skipped {row}", file=sys.stderr)
    summary.pop("skipped")
    summary["skipped"] = len(report.skipped)
    print(json.dumps(summary, indent=2, ensure_ascii=False))
    return 0
