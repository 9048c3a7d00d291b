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
from tests.surfaces.conftest import ROOT, start_server
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
