"""Reading an OpenAPI document: sources, servers, references, OpenAPI-only schema fields."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from genmcp.openapi.document import json_schema, load
from genmcp.routes_as_tools import BuildError
from support import inventory
from support.server import LiveServers


def doc(**extra: Any) -> dict[str, Any]:
    return {"openapi": "3.0.3", "info": {"title": "T", "version": "1"}, "paths": {}, **extra}


@pytest.fixture(scope="module")
def api() -> Iterator[str]:
    live = LiveServers()
    try:
        yield live(inventory.make_app()[0])
    finally:
        live.stop_all()


def test_a_url_is_fetched_and_its_relative_server_resolved_against_it(api: str) -> None:
    document = load(api + "/openapi.json")
    assert document.base_url(None) == api
    assert document.base_url("http://elsewhere/v2/") == "http://elsewhere/v2"


def test_a_url_that_fails_is_a_build_error(api: str) -> None:
    with pytest.raises(BuildError, match="cannot fetch"):
        load(api + "/nothing.json")


def test_server_variables_take_their_defaults() -> None:
    servers = [{"url": "https://{region}.example.com/{v}",
                "variables": {"region": {"default": "eu"}, "v": {"default": "v2"}}}]
    assert load(doc(servers=servers)).base_url(None) == "https://eu.example.com/v2"


def test_no_server_and_no_base_url_is_refused() -> None:
    with pytest.raises(BuildError, match="names no server"):
        load(doc()).base_url(None)


@pytest.mark.parametrize("bad", [{"swagger": "2.0", "paths": {}}, {"openapi": "3.0.0"}, []])
def test_what_is_no_openapi_3_document_is_refused(bad: Any, tmp_path: Path) -> None:
    with pytest.raises(BuildError, match="OpenAPI"):
        load(bad if isinstance(bad, dict) else str(tmp_path / "absent.json"))


def test_yaml_and_json_files_read_alike(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("openapi: 3.1.0\npaths: {}\ninfo: {title: Y}\n")
    assert load(tmp_path / "a.yaml").title == "Y"
    (tmp_path / "b.json").write_text('{"openapi": "3.1.0", "paths": {}}')
    assert load(str(tmp_path / "b.json")).content["openapi"] == "3.1.0"


def test_references_are_followed_and_path_parameters_merged() -> None:
    document = load(doc(
        paths={"/pets/{id}": {
            "parameters": [{"$ref": "#/components/parameters/Id"},
                           {"name": "q", "in": "query", "schema": {"type": "string"}}],
            "get": {"operationId": "getPet",
                    "parameters": [{"name": "q", "in": "query", "schema": {"type": "integer"}}],
                    "responses": {"200": {"$ref": "#/components/responses/Pet"}}},
            "post": {"requestBody": {"$ref": "#/components/requestBodies/Pet"},
                     "responses": {}},
        }},
        components={
            "parameters": {"Id": {"name": "id", "in": "path", "required": True,
                                  "schema": {"type": "integer", "nullable": True}}},
            "responses": {"Pet": {"content": {"application/json": {"schema": {"type": "object"}}}}},
            "requestBodies": {"Pet": {"content": {"application/json": {
                "schema": {"type": "object", "xml": {"name": "pet"}}}}}},
        },
    ))
    get, post = list(document.operations())
    assert (get.method, get.operation_id) == ("GET", "getPet")
    params = {p["name"]: p for p in get.operation["parameters"]}
    assert params["id"]["schema"] == {"type": ["integer", "null"]}  # 3.0 nullable
    assert params["q"]["schema"] == {"type": "integer"}  # the operation's own wins
    assert get.operation["responses"]["200"]["content"]["application/json"]["schema"] == {
        "type": "object"}
    assert post.operation_id == "post_pets_id"  # no operationId: method and path
    assert post.operation["requestBody"]["content"]["application/json"]["schema"] == {
        "type": "object"}


def test_a_reference_to_nothing_or_a_cycle_is_refused() -> None:
    with pytest.raises(BuildError, match="points at nothing"):
        list(load(doc(paths={"/a": {"$ref": "#/components/pathItems/A"}})).operations())
    looped = load(doc(paths={"/a": {"$ref": "#/x"}}, x={"$ref": "#/x"}))
    with pytest.raises(BuildError, match="cannot be followed"):
        list(looped.operations())


def test_json_schema_keeps_property_names_that_look_like_openapi_fields() -> None:
    schema = {"type": "object", "example": {"xml": 1}, "discriminator": {"propertyName": "k"},
              "properties": {"xml": {"type": "string", "xml": {"attribute": True}}}}
    assert json_schema(schema) == {"type": "object",
                                   "properties": {"xml": {"type": "string"}}}
