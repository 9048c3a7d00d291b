"""A wheel carries vocab/, queries/ and the demo data, and the package finds them there."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from tests.conftest import ROOT, shared_data

NEEDED = [
    "gateway/_resources/vocab/bfsql.ttl",
    "gateway/_resources/vocab/prefixes.json",
    "gateway/_resources/vocab/authorities.json",
    "gateway/_resources/queries/native/hop.rq",
    "gateway/_resources/data/sherlock.trig",
    "gateway/py.typed",
]


def test_wheel_carries_its_resources_and_uses_them(tmp_path: Path) -> None:
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True, text=True, timeout=300,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = tmp_path.glob("bfsql_gateway-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        assert set(NEEDED) <= names
        assert {n for n in names if n.startswith("gateway/_resources/queries/")} >= {
            "gateway/_resources/queries/native/" + p.name for p in (ROOT / "queries" / "native").glob("*.rq")
        }
        archive.extractall(tmp_path / "site")
    # Run from the unpacked wheel alone, away from the checkout.
    script = (
        "import gateway, gateway.resources as r, importlib, pkgutil;"
        "assert 'site' in gateway.__file__, gateway.__file__;"
        "[importlib.import_module(m.name) for m in pkgutil.walk_packages(gateway.__path__, 'gateway.')];"
        "from gateway.authorities import parse_id; assert parse_id('MSH:D003480').curie == 'MeSH:D003480';"
        "from gateway.surfaces.cli import demo_path;"
        "g = gateway.Gateway.open(demo_path());"
        "print(g.bfs_query(seeds=['wiki:Irene_Adler'], max_hops=1).node_count)"
    )
    ran = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(tmp_path / 'site')!r}); "
         f"sys.path.extend({[p for p in sys.path if 'site-packages' in p]!r}); {script}"],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    assert int(ran.stdout) == 7
    # `bfsql demo medlit` from the wheel, in the checkout: it finds ../shared/data/medlit.
    shared_data("medlit")
    demo = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(tmp_path / 'site')!r}); "
         f"sys.path.extend({[p for p in sys.path if 'site-packages' in p]!r}); "
         "from gateway.surfaces.cli import main; raise SystemExit(main(['demo', 'medlit']))"],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )
    assert demo.returncode == 0, demo.stderr
    assert demo.stdout.count("\n== ") == 6 and "RxNorm:3251" in demo.stdout
