"""`bfsql serve`: clean shutdown on signals, several workers, bounds from the command line."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

from gateway import Gateway
from support.servers import OxigraphServer
from tests.backends.test_remote_canary import CANARY, IRENE, basic_auth_nginx, leaks, transcript
from tests.surfaces.conftest import ROOT, start_server
from tests.surfaces.test_cli import PASSWORD_VARIABLE, endpoints_file
from tests.surfaces.test_http_tools import assert_problem


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_shuts_the_server_down_cleanly(tmp_path: Path, sig: int) -> None:
    served = start_server(tmp_path)
    assert httpx2.post(f"{served.url}/v1/tools/describe_schema").status_code == 200
    assert served.stop(sig) == 0
    log = served.log_text()
    assert "Shutting down" in log and "Traceback" not in log


def test_several_workers(tmp_path: Path) -> None:
    served = start_server(tmp_path, "--workers", "2")
    with served.client() as client:
        for _ in range(6):
            response = client.post("/v1/tools/bfs_query", json={"seeds": ["wiki:Irene_Adler"]})
            assert response.status_code == 200
    assert served.stop() == 0


def test_an_answer_over_the_bound_is_413_not_truncated(tmp_path: Path) -> None:
    served = start_server(tmp_path, "--max-response-bytes", "2000", "--max-body-bytes", "100")
    try:
        with served.client() as client:
            problem = assert_problem(client.post("/v1/tools/describe_schema"), 413)
            assert problem["code"] == "response_too_large" and "2000" in problem["detail"]
            assert client.post("/v1/tools/search_entities", json={"query": "Irene"}).status_code == 200
            assert_problem(client.post("/v1/tools/search_entities", json={"query": "Irene" * 30}), 413)
    finally:
        assert served.stop() == 0


def test_a_missing_graph_is_a_usage_error(tmp_path: Path) -> None:
    ran = subprocess.run(
        [sys.executable, "-m", "gateway.surfaces.cli", "serve", str(tmp_path / "absent.ttl"), "--port", "1"],
        check=False, capture_output=True, text=True, cwd=ROOT, timeout=120,
    )
    assert ran.returncode == 2
    assert "absent.ttl" in ran.stderr


def test_two_workers_over_a_remote_endpoint_answer_as_the_python_api(tmp_path: Path, oxigraph_server: OxigraphServer) -> None:
    """`bfsql serve --endpoint URL --workers 2`: stateless workers in front of one store."""
    served = start_server(tmp_path, "--endpoint", oxigraph_server.url, "--workers", "2")
    expected = Gateway.connect(oxigraph_server.url).bfs_query(seeds=["wiki:Irene_Adler"], max_hops=2)
    try:
        with served.client() as client:
            for _ in range(4):
                response = client.post("/v1/tools/bfs_query", json={"seeds": ["wiki:Irene_Adler"], "max_hops": 2})
                assert response.status_code == 200
                assert response.json() == expected.model_dump(mode="json", exclude_none=True)
    finally:
        assert served.stop() == 0


def test_workers_serve_a_named_endpoint_behind_basic_auth(
    tmp_path: Path, oxigraph_server: OxigraphServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`bfsql serve --endpoints FILE --endpoint NAME --workers 2`: each worker reads the file
    and the password from the variable it names; no worker's command line holds it; the
    start line names the endpoint and no /sparql, which answers 404 saying why."""
    nginx = basic_auth_nginx(oxigraph_server)
    monkeypatch.setenv(PASSWORD_VARIABLE, CANARY)
    for variable in ("BFSQL_ENDPOINT_USER", "BFSQL_ENDPOINT_PASSWORD", "BFSQL_ENDPOINT_TOKEN"):
        monkeypatch.delenv(variable, raising=False)
    path = endpoints_file(tmp_path, nginx)
    served = start_server(tmp_path, "--endpoints", str(path), "--endpoint", "demo", "--workers", "2")
    expected = Gateway.connect(oxigraph_server.url).bfs_query(seeds=[IRENE], max_hops=2)
    outputs = []
    try:
        with served.client() as client:
            for _ in range(4):
                response = client.post("/v1/tools/bfs_query", json={"seeds": [IRENE], "max_hops": 2})
                assert response.status_code == 200, response.text
                assert response.json() == expected.model_dump(mode="json", exclude_none=True)
                outputs.append(transcript(response))
            for absent in (client.get("/sparql?query=ASK{}"), client.post("/sparql", data={"query": "ASK {}"})):
                problem = assert_problem(absent, 404)
                assert "remote store" in problem["detail"] and "own SPARQL endpoint" in problem["detail"]
            assert "/sparql" not in client.get("/openapi.json").json()["paths"]
        outputs += [_command_lines(served.process.pid)]
    finally:
        nginx.stop()
        assert served.stop() == 0
    log = served.log_text()
    start = next(line for line in log.splitlines() if "serving " in line)
    assert f"serving {nginx.url} (demo in {path}) with 2 workers" in start and "/sparql" not in start.split(" at ")[1]
    assert leaks(log) == [] and leaks("\n".join(outputs)) == []


def _command_lines(pid: int) -> str:
    """The command lines of `pid` and its children (the workers)."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    assert len(children) >= 2
    return "\n".join(Path(f"/proc/{p}/cmdline").read_bytes().decode(errors="replace") for p in [pid, *children])


def test_a_file_and_an_endpoint_together_are_a_usage_error(tmp_path: Path) -> None:
    ran = subprocess.run(
        [sys.executable, "-m", "gateway.surfaces.cli", "serve", "x.ttl", "--endpoint", "http://127.0.0.1:1/q", "--port", "1"],
        check=False, capture_output=True, text=True, cwd=ROOT, timeout=120,
    )
    assert ran.returncode == 2 and "--endpoint" in ran.stderr


def test_two_workers_share_one_on_disk_store(tmp_path: Path) -> None:
    """Workers open the store read-only side by side (`bfsql load` once, `serve DIR --workers 2`)."""
    from gateway.loading import load_store
    from tests.conftest import DEMO

    load_store([DEMO], tmp_path / "store", show_progress=False)
    expected = Gateway.open(tmp_path / "store").bfs_query(seeds=["wiki:Irene_Adler"], max_hops=2)
    served = start_server(tmp_path, str(tmp_path / "store"), "--workers", "2")
    try:
        with served.client() as client:
            for _ in range(4):
                response = client.post("/v1/tools/bfs_query", json={"seeds": ["wiki:Irene_Adler"], "max_hops": 2})
                assert response.json() == expected.model_dump(mode="json", exclude_none=True)
    finally:
        assert served.stop() == 0


def test_languages_choose_the_labels_served(tmp_path: Path) -> None:
    """`--languages` is the label chain: Q42 is "Douglas Adams" in English, another name in Arabic."""
    q42 = str(ROOT.parent / "shared" / "data" / "wikidata" / "Q42.ttl")
    if not Path(q42).is_file():
        pytest.skip("the shared data folder is not beside this checkout")
    labels = {}
    for languages in ("en,mul", "ar"):
        served = start_server(tmp_path, q42, "--profile", "auto", "--languages", languages)
        with served.client() as client:
            labels[languages] = client.post("/v1/tools/describe_entity", json={"id": "wd:Q42"}).json()["label"]
        assert served.stop() == 0
    assert labels == {"en,mul": "Douglas Adams", "ar": "دوغلاس آدمز"}
    refused = subprocess.run([sys.executable, "-m", "gateway.surfaces.cli", "serve", "--languages", "en,x y"],
                             cwd=ROOT, capture_output=True, text=True)
    assert refused.returncode == 2 and "not a language tag: 'x y'" in refused.stderr


def test_answer_uses_the_model_named_by_flags_and_says_when_there_is_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.llm_server import ChatServer, Script

    monkeypatch.delenv("BFSQL_LLM_URL")
    script = Script(wanted=("Irene",))
    chat = ChatServer(script)
    try:
        served = start_server(tmp_path, "--llm-url", chat.url, "--llm-model", "scripted")
        with served.client() as client:
            answered = client.post("/v1/tools/answer", json={"question": "Who is Irene Adler?"}).json()
        assert served.stop() == 0
        assert answered["status"] == "answered" and answered["model_calls"] == len(script.maps) + 1
        assert {r["model"] for r in chat.requests} == {"scripted"}
        bare = start_server(tmp_path)
        with bare.client() as client:
            refused = client.post("/v1/tools/answer", json={"question": "Who is Irene Adler?"})
        assert bare.stop() == 0
        problem = assert_problem(refused, 501)
        assert problem["code"] == "no_model" and "BFSQL_LLM_URL" in problem["detail"]
    finally:
        chat.stop()
