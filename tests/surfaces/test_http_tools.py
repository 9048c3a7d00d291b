"""The HTTP tool API over a real `bfsql serve`: answers equal the Python API's, schemas are
the models', every error is a problem document naming the field, and the guards hold."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from jsonschema import Draft202012Validator

from gateway import Gateway
from gateway.errors import (
    BackendError,
    EndpointTimeout,
    Forbidden,
    GatewayError,
    InvalidInput,
    NotFound,
    RateLimited,
    TooLarge,
    Truncated,
    Unauthorized,
    UpstreamError,
)
from gateway.surfaces.problems import to_problem
from gateway.tools import TOOLS
from tests.surfaces.conftest import EXAMPLES, REFUSED, Served

CASES = [(name, arguments) for name, examples in EXAMPLES.items() for arguments in examples]


def assert_problem(response: httpx2.Response, status: int, field: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["status"] == status
    assert problem["type"].endswith(problem["code"])
    assert problem["title"] and problem["detail"]
    if field is not None:
        assert problem.get("field") == field, problem
    return problem


def test_every_tool_has_examples() -> None:
    assert set(EXAMPLES) == set(TOOLS)


@pytest.mark.parametrize(("name", "arguments"), CASES, ids=[f"{n}-{i}" for n, e in EXAMPLES.items() for i in range(len(e))])
def test_a_tool_over_http_answers_as_the_python_api(
    client: httpx2.Client, demo_gateway: Gateway, name: str, arguments: dict[str, Any]
) -> None:
    response = client.post(f"/v1/tools/{name}", json=arguments)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    result = demo_gateway.call(name, arguments)
    assert response.json() == result.model_dump(mode="json", exclude_none=True)
    assert response.content == result.model_dump_json(exclude_none=True).encode()  # compact, byte for byte


def test_a_scan_pages_with_its_cursor(client: httpx2.Client, demo_gateway: Gateway) -> None:
    first = client.post("/v1/tools/scan_query", json={"node_types": ["sh:Person"], "limit": 2}).json()
    assert first["next_cursor"]
    second = client.post("/v1/tools/scan_query", json={"node_types": ["sh:Person"], "limit": 2, "cursor": first["next_cursor"]})
    expected = demo_gateway.scan_query(node_types=["sh:Person"], limit=2, cursor=first["next_cursor"])
    assert second.json() == expected.model_dump(mode="json", exclude_none=True)


def test_an_empty_body_is_no_arguments(client: httpx2.Client, demo_gateway: Gateway) -> None:
    response = client.post("/v1/tools/describe_schema")
    assert response.json() == demo_gateway.describe_schema().model_dump(mode="json", exclude_none=True)


# -- the tool list -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def listing(server: Served) -> dict[str, Any]:
    response = httpx2.get(f"{server.url}/v1/tools")
    assert response.status_code == 200
    return response.json()


def test_the_tool_list_has_every_tool_in_both_formats(listing: dict[str, Any]) -> None:
    from gateway.tools.json_schemas import light

    assert [tool["function"]["name"] for tool in listing["openai"]] == list(TOOLS)
    assert [tool["name"] for tool in listing["mcp"]] == list(TOOLS)
    for openai, mcp in zip(listing["openai"], listing["mcp"]):
        assert openai["type"] == "function"
        assert openai["function"]["description"] == mcp["description"] == TOOLS[mcp["name"]].description
        assert light(openai["function"]["parameters"]) == mcp["inputSchema"]  # less what the server checks anyway
        assert mcp["annotations"] == {"readOnlyHint": True}
        assert mcp["inputSchema"]["type"] == "object" and mcp["outputSchema"]["type"] == "object"
        assert "$ref" not in json.dumps(mcp)  # self-contained: clients need not resolve references
        Draft202012Validator.check_schema(mcp["inputSchema"])
        Draft202012Validator.check_schema(mcp["outputSchema"])


@pytest.fixture(scope="module")
def strict_listing(server: Served) -> list[dict[str, Any]]:
    response = httpx2.get(f"{server.url}/v1/tools", params={"strict": "true"})
    assert response.status_code == 200
    return response.json()["openai"]


def _objects(schema: Any) -> Iterator[dict[str, Any]]:
    if isinstance(schema, dict):
        if "properties" in schema:
            yield schema
        for value in schema.values():
            yield from _objects(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _objects(value)


def test_the_strict_tool_list_passes_openais_own_strict_conversion(strict_listing: list[dict[str, Any]]) -> None:
    """`?strict=true`: openai's converter leaves every schema as it is (nothing to fix), and
    it holds none of the keywords strict mode refuses."""
    import copy

    from openai.lib._pydantic import _ensure_strict_json_schema

    from gateway.tools.json_schemas import STRICT_UNLISTED, STRICT_UNSUPPORTED

    assert [tool["function"]["name"] for tool in strict_listing] == [n for n in TOOLS if n not in STRICT_UNLISTED]
    for tool in strict_listing:
        function = tool["function"]
        assert tool["type"] == "function" and function["strict"] is True
        parameters = function["parameters"]
        Draft202012Validator.check_schema(parameters)
        assert _ensure_strict_json_schema(copy.deepcopy(parameters), path=(), root=copy.deepcopy(parameters)) == parameters
        for part in _objects(parameters):
            assert part["additionalProperties"] is False and part["required"] == list(part["properties"])
        text = json.dumps(parameters)
        assert not [word for word in STRICT_UNSUPPORTED if f'"{word}":' in text], function["name"]


def _all_fields(schema: dict[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments as a strict-mode model sends them: every field, null where not given."""
    return {name: arguments.get(name) for name in schema["properties"]}


@pytest.mark.parametrize(("name", "arguments"), CASES)
def test_strict_arguments_with_nulls_answer_as_the_arguments_do(
    strict_listing: list[dict[str, Any]], client: httpx2.Client, name: str, arguments: dict[str, Any]
) -> None:
    from gateway.tools.json_schemas import STRICT_UNLISTED

    if name in STRICT_UNLISTED:
        pytest.skip(f"{name} is not in the strict list (maps keyed by the caller's names)")
    schema = next(tool["function"]["parameters"] for tool in strict_listing if tool["function"]["name"] == name)
    sent = _all_fields(schema, arguments)
    assert [error.message for error in Draft202012Validator(schema).iter_errors(sent)] == []
    plain = client.post(f"/v1/tools/{name}", json=arguments)
    assert client.post(f"/v1/tools/{name}", json=sent).json() == plain.json()


@pytest.mark.parametrize(("name", "arguments"), CASES)
def test_the_listed_input_schema_accepts_what_the_python_api_accepts(
    listing: dict[str, Any], name: str, arguments: dict[str, Any]
) -> None:
    schema = next(tool["inputSchema"] for tool in listing["mcp"] if tool["name"] == name)
    errors = [error.message for error in Draft202012Validator(schema).iter_errors(arguments)]
    assert errors == []


@pytest.mark.parametrize(("name", "arguments"), REFUSED)
def test_the_listed_input_schema_refuses_what_the_python_api_refuses(
    listing: dict[str, Any], demo_gateway: Gateway, name: str, arguments: dict[str, Any]
) -> None:
    with pytest.raises(InvalidInput):
        demo_gateway.call(name, arguments)
    schema = next(tool["function"]["parameters"] for tool in listing["openai"] if tool["function"]["name"] == name)
    assert not Draft202012Validator(schema).is_valid(arguments)


def test_the_listed_output_schemas_describe_the_answers(
    listing: dict[str, Any], client: httpx2.Client
) -> None:
    schemas = {tool["name"]: tool["outputSchema"] for tool in listing["mcp"]}
    for name, arguments in CASES:
        answer = client.post(f"/v1/tools/{name}", json=arguments).json()
        errors = [f"{list(e.path)}: {e.message}" for e in Draft202012Validator(schemas[name]).iter_errors(answer)]
        assert errors == [], name


# -- OpenAPI ---------------------------------------------------------------------------------
def test_openapi_documents_each_tool_with_its_models(client: httpx2.Client) -> None:
    document = client.get("/openapi.json").json()
    components = document["components"]["schemas"]
    for name, tool in TOOLS.items():
        operation = document["paths"][f"/v1/tools/{name}"]["post"]
        assert operation["operationId"] == name
        body = operation["requestBody"]["content"]["application/json"]["schema"]
        assert body == {"$ref": f"#/components/schemas/{tool.input.__name__}"}
        assert set(components[tool.input.__name__]["properties"]) == set(tool.input.model_fields)
        answer = json.dumps(operation["responses"]["200"]["content"]["application/json"]["schema"])
        assert "#/components/schemas/" in answer
        assert operation["responses"]["422"]["content"]["application/problem+json"]
    refs = set(re.findall(r'"\$ref": "#/components/schemas/([^"]+)"', json.dumps(document)))
    assert refs <= set(components), refs - set(components)
    assert {"/healthz", "/v1/tools", "/sparql"} <= set(document["paths"])


def test_healthz(client: httpx2.Client) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}


# -- problems ----------------------------------------------------------------------------------
def test_malformed_json_is_400(client: httpx2.Client) -> None:
    response = client.post("/v1/tools/bfs_query", content=b'{"seeds": [', headers={"content-type": "application/json"})
    assert "not valid JSON" in assert_problem(response, 400)["detail"]


def test_a_body_that_is_not_an_object_is_400(client: httpx2.Client) -> None:
    assert_problem(client.post("/v1/tools/bfs_query", json=["wiki:Irene_Adler"]), 400)
    assert_problem(client.post("/v1/tools/describe_schema", content=b"null"), 400)


@pytest.mark.parametrize(("name", "arguments", "field"), [
    ("bfs_query", {"seeds": ["wiki:Irene_Adler"], "bogus": 1}, "bogus"),
    ("bfs_query", {"seeds": ["wiki:Irene_Adler"], "max_hops": "two"}, "max_hops"),
    ("bfs_query", {"seeds": ["wiki:Irene_Adler"], "max_hops": "2"}, "max_hops"),  # JSON types are the schema's
    ("bfs_query", {"seeds": [1]}, "seeds.0"),
    ("bfs_query", {"seeds": ["wiki:Irene_Adler"], "node_filter": {"entity_types": "sh:Person"}}, "node_filter.entity_types"),
    ("bfs_query", {}, "seeds"),
    ("search_entities", {"query": ""}, "query"),
    ("communities", {"resolution": 0}, "resolution"),
])
def test_an_invalid_argument_is_422_naming_the_field(
    client: httpx2.Client, name: str, arguments: dict[str, Any], field: str
) -> None:
    problem = assert_problem(client.post(f"/v1/tools/{name}", json=arguments), 422, field)
    assert problem["code"] == "invalid_input"
    assert problem["errors"][0]["field"] == field


def test_a_predicate_the_core_refuses_is_422_naming_the_field(client: httpx2.Client) -> None:
    problem = assert_problem(client.post("/v1/tools/bfs_query", json={
        "seeds": ["wiki:Irene_Adler"], "edge_filter": {"predicates": ["rel:Knows <x>"]}}), 422)
    assert problem["field"].startswith("edge_filter.predicates")


def test_a_seed_that_cannot_be_an_id_is_unresolved_with_a_pointer(client: httpx2.Client) -> None:
    response = client.post("/v1/tools/bfs_query", json={"seeds": ["wiki:Irene Adler <x>", "wiki:Irene_Adler"]})
    assert response.status_code == 200
    answer = response.json()
    assert answer["unresolved_seeds"] == ["wiki:Irene Adler <x>"] and answer["node_count"] > 1
    assert any("did you mean wiki:Irene_Adler" in warning for warning in answer["warnings"])


def test_an_unknown_tool_is_404(client: httpx2.Client) -> None:
    problem = assert_problem(client.post("/v1/tools/drop_everything", json={}), 404, "name")
    assert "bfs_query" in problem["detail"]


def test_an_absent_entity_is_404(client: httpx2.Client) -> None:
    assert_problem(client.post("/v1/tools/describe_entity", json={"id": "wiki:Moriarty"}), 404, "id")


def test_a_wrong_method_is_405(client: httpx2.Client) -> None:
    assert_problem(client.get("/v1/tools/bfs_query"), 405)


# -- guards ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["/v1/tools/describe_schema", "/sparql?query=ASK%7B%7D", "/mcp", "/v1/tools"])
def test_a_foreign_origin_is_403(client: httpx2.Client, path: str) -> None:
    method = "POST" if path.startswith("/v1/tools/") else "GET"
    response = client.request(method, path, headers={"Origin": "http://evil.example"})
    assert assert_problem(response, 403)["code"] == "foreign_origin"


def test_the_servers_own_origin_and_no_origin_are_allowed(server: Served, client: httpx2.Client) -> None:
    assert client.post("/v1/tools/describe_schema", headers={"Origin": server.url}).status_code == 200
    assert client.post("/v1/tools/describe_schema", headers={"Origin": f"http://localhost:{server.port}"}).status_code == 200
    assert client.post("/v1/tools/describe_schema").status_code == 200
    # Another port of this host is another origin.
    assert client.post("/v1/tools/describe_schema", headers={"Origin": "http://127.0.0.1:1"}).status_code == 403


@pytest.mark.parametrize("path", ["/v1/tools/describe_schema", "/sparql?query=ASK%7B%7D", "/healthz"])
def test_a_foreign_host_is_refused(client: httpx2.Client, path: str) -> None:
    method = "POST" if path.startswith("/v1/tools/") else "GET"
    response = client.request(method, path, headers={"Host": "rebound.example"})
    assert assert_problem(response, 421)["code"] == "foreign_host"


def test_the_loopback_names_on_the_servers_port_are_hosts(server: Served, client: httpx2.Client) -> None:
    assert client.get("/healthz", headers={"Host": f"localhost:{server.port}"}).status_code == 200
    assert client.get("/healthz", headers={"Host": f"[::1]:{server.port}"}).status_code == 200
    assert client.get("/healthz", headers={"Host": "localhost:1"}).status_code == 421


def test_a_body_over_the_bound_is_413(client: httpx2.Client) -> None:
    big = {"ids": ["wiki:Irene_Adler"] * 80_000}  # ~1.5 MB
    assert_problem(client.post("/v1/tools/describe_entities", json=big), 413)


def test_a_chunked_body_over_the_bound_is_413(client: httpx2.Client) -> None:
    def chunks() -> Iterator[bytes]:  # no Content-Length: the bound is counted as the body arrives
        yield b'{"ids": ['
        for _ in range(16):
            yield b'"wiki:Irene_Adler",' * 5_000
        yield b'"x"]}'

    response = client.post("/v1/tools/describe_entities", content=chunks(), headers={"content-type": "application/json"})
    assert_problem(response, 413)


def test_one_log_line_per_request(server: Served, client: httpx2.Client) -> None:
    client.post("/v1/tools/search_entities", json={"query": "log line probe"})
    client.post("/v1/tools/search_entities", json={"query": ""})
    log = server.log_text()
    assert re.search(r"gateway\.http: POST /v1/tools/search_entities 200 \d+\.\dms", log)
    assert re.search(r"gateway\.http: POST /v1/tools/search_entities 422 \d+\.\dms", log)


# -- the one mapping ---------------------------------------------------------------------------
@pytest.mark.parametrize(("error", "status"), [
    (InvalidInput("x", field="seeds"), 422), (NotFound("x"), 404), (Unauthorized("x"), 401), (Forbidden("x"), 403),
    (TooLarge("x"), 413), (RateLimited("x", retry_after=2.5), 429), (EndpointTimeout("x"), 504),
    (UpstreamError("x"), 502), (Truncated("x"), 502), (BackendError("x"), 503), (GatewayError("x"), 500),
])
def test_each_gateway_error_has_its_status(error: GatewayError, status: int) -> None:
    problem = to_problem(error)
    assert problem.status == status and problem.code == error.code
    if isinstance(error, RateLimited):
        assert problem.headers["Retry-After"] == "3"
    if isinstance(error, Unauthorized):
        assert problem.headers["WWW-Authenticate"].startswith("Bearer")


def test_an_unexpected_error_is_a_bare_500() -> None:
    problem = to_problem(RuntimeError("/secret/path/store.db is locked"))
    assert problem.status == 500 and "secret" not in json.dumps(problem.body())


def test_pictures_by_query_or_accept(server: Served) -> None:
    """`?format=` (or an Accept header naming a picture's media type) draws the answer;
    anything else is a 422 naming the field."""
    import xml.etree.ElementTree as ET

    body = {"seeds": ["wiki:Irene_Adler"], "max_hops": 1}
    with server.client() as client:
        svg = client.post("/v1/tools/bfs_query?format=svg", json=body)
        by_accept = client.post("/v1/tools/bfs_query", json=body, headers={"Accept": "text/vnd.graphviz"})
        as_json = client.post("/v1/tools/bfs_query?format=json", json=body)
        refused = client.post("/v1/tools/bfs_query?format=png", json=body)
        not_drawn = client.post("/v1/tools/describe_schema?format=dot", json={})
        preferred = client.post("/v1/tools/describe_schema", json={}, headers={"Accept": "image/svg+xml, application/json"})
    walk = as_json.json()
    assert svg.headers["content-type"].startswith("image/svg+xml")
    nodes = [e for e in ET.fromstring(svg.text).iter() if e.get("class") == "node"]
    assert len(nodes) == len(walk["nodes"])
    assert by_accept.headers["content-type"].startswith("text/vnd.graphviz") and by_accept.text.startswith("digraph")
    assert_problem(refused, 422, "format")
    assert_problem(not_drawn, 422, "format")
    # Accept is a preference: an answer that is not drawn comes as JSON.
    assert preferred.status_code == 200 and preferred.headers["content-type"] == "application/json"
    assert "predicates" in preferred.json()
