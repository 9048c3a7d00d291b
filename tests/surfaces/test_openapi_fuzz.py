"""Schemathesis against a real `bfsql serve` and its /openapi.json.

Every operation gets `BFSQL_FUZZ_EXAMPLES` generated requests per phase (300 by default),
valid and invalid, under three checks: no server error, every answer conforms to its
documented schema, and every request that breaks the schema is refused. The seed is fixed
(`BFSQL_FUZZ_SEED`) so a CI failure can be replayed. It takes two to three minutes, so it
is marked `fuzz`: the default run leaves it out; `.ci/run` runs it on its own (`pytest -m fuzz`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gateway.tools import TOOLS
from tests.surfaces.conftest import Served

EXAMPLES = int(os.environ.get("BFSQL_FUZZ_EXAMPLES", "300"))
SEED = os.environ.get("BFSQL_FUZZ_SEED", "20261129")
CHECKS = "not_a_server_error,response_schema_conformance,negative_data_rejection"


@pytest.mark.fuzz
def test_schemathesis_finds_no_server_error_and_no_schema_violation(server: Served, tmp_path: Path) -> None:
    report = tmp_path / "schemathesis.json"
    # A body over the server's limit (tabulate's 1,000 IDs of 4,096 characters) is refused
    # whole with 413, which schemathesis does not count as a refusal by default.
    (tmp_path / "schemathesis.toml").write_text(
        '[checks.negative_data_rejection]\nexpected-statuses = ["400", "401", "403", "404", "405", "406", "409", '
        '"413", "415", "422", "428", "429"]\n')
    ran = subprocess.run(
        [
            sys.executable, "-m", "schemathesis.cli", "run", f"{server.url}/openapi.json",
            "--checks", CHECKS, "--max-examples", str(EXAMPLES), "--seed", SEED,
            "--phases", "coverage,fuzzing", "--no-shrink", "--workers", "1",
            "--report", "json", "--report-json-path", str(report),
        ],
        check=False, capture_output=True, text=True, cwd=tmp_path, timeout=900,
    )
    assert report.is_file(), ran.stdout + ran.stderr
    result = json.loads(report.read_text())
    summary = f"{result['test_cases']}; failures: {result['failures']}; errors: {result['errors']}"
    assert ran.returncode == 0, ran.stdout[-5000:] + summary
    assert result["operations"]["tested"] == result["operations"]["total"] >= len(TOOLS)
    assert result["test_cases"]["with_failures"] == 0 and result["test_cases"]["errored"] == 0, summary
    assert result["failures"] == [] and result["errors"] == [], summary
    assert " 500 " not in server.log_text()
