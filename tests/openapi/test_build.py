"""``openapi_tools``: selection, naming, schemas and refusals, read from committed documents."""

from __future__ import annotations

import json
import logging

import pytest

from genmcp.openapi import openapi_tools
from genmcp.routes_as_tools import BuildError
from support import inventory, petstore_app

BASE = "http://127.0.0.1:9/v1"


def names(tools: list[type]) -> list[str]:
    return [tool._genmcp_options["name"] for tool in tools]


def test_the_committed_document_is_what_the_inventory_app_serves() -> None:
    committed = json.loads(inventory.SPEC.read_text(encoding="utf-8"))
    assert committed == json.loads(json.dumps(inventory.document()))


def test_every_operation_by_default_in_document_order() -> None:
    assert names(openapi_tools(inventory.SPEC, base_url=BASE)) == [
        "getItem", "deleteItem", "listItems", "createItem", "whoAmI", "boom", "slow"]


@pytest.mark.parametrize(("selection", "expected"), [
    ({"tags": ["items"]}, ["getItem", "listItems", "createItem"]),
    ({"methods": ["post", "delete"]}, ["deleteItem", "createItem"]),
    ({"paths": ["/v1/items/*"]}, ["getItem", "deleteItem"]),
    ({"operations": ["boom", "getItem"]}, ["getItem", "boom"]),
    ({"exclude_tags": ["meta"], "exclude_methods": ["DELETE"]},
     ["getItem", "listItems", "createItem"]),
    ({"tags": ["items"], "exclude_operations": ["listItems"], "exclude_paths": ["/v1/x"]},
     ["getItem", "createItem"]),
])
def test_selection_as_route_tools(selection: dict[str, list[str]], expected: list[str]) -> None:
    assert names(openapi_tools(inventory.SPEC, base_url=BASE, **selection)) == expected  # type: ignore[arg-type]


def test_options_come_from_the_operation() -> None:
    (get, create) = openapi_tools(inventory.SPEC, base_url=BASE,
                                  operations=["getItem", "createItem"],
                                  names={"createItem": "add_item"})
    options = get._genmcp_options
    assert options["title"] == "Read an item"
    assert options["description"] == "Returns one item by its id."
    assert options["annotations"] == {"readOnlyHint": True, "idempotentHint": True}
    assert options["input_schema"]["required"] == ["item_id"]
    assert options["output_schema"]["required"] == ["name", "id"]
    made = create._genmcp_options
    assert made["name"] == "add_item"
    assert made["input_schema"]["required"] == ["name"]  # the body flattened
    dimensions = made["input_schema"]["properties"]["dimensions"]["anyOf"][0]
    assert dimensions["required"] == ["width_cm", "height_cm"]  # $ref inlined
    assert "$ref" not in json.dumps(made["input_schema"])
    assert create.operation.upstream is get.operation.upstream  # one pool for the API


def test_petstore_imports_every_json_operation_and_leaves_the_upload_out(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, "genmcp"):
        tools = openapi_tools(petstore_app.SPEC)
    assert len(tools) == 18 and "uploadFile" not in names(tools)
    assert "uploadFile" in caplog.text and "application/octet-stream" in caplog.text
    assert tools[0].operation.upstream.base_url == "https://petstore3.swagger.io/api/v3"
    pet = next(t for t in tools if t.__name__ == "addPet")._genmcp_options["input_schema"]
    assert "xml" not in json.dumps(pet)  # OpenAPI-only fields are no JSON Schema keywords


def test_an_unfit_operation_named_explicitly_is_refused() -> None:
    with pytest.raises(BuildError, match=r"uploadFile.*only JSON bodies"):
        openapi_tools(petstore_app.SPEC, operations=["uploadFile"])


def test_an_unknown_operation_id_is_refused_listing_the_ids() -> None:
    with pytest.raises(BuildError, match=r"no operation \['getItems'\].*getItem"):
        openapi_tools(inventory.SPEC, base_url=BASE, operations=["getItems"])


def test_a_misspelt_selection_keyword_is_refused_as_python_refuses_one() -> None:
    with pytest.raises(TypeError, match=r"openapi_tools\(\) got an unexpected keyword .*'tag'"):
        openapi_tools(inventory.SPEC, base_url=BASE, tag=["items"])  # type: ignore[call-arg]


def test_a_relative_server_read_from_a_file_needs_base_url() -> None:
    with pytest.raises(BuildError, match="relative: pass base_url="):
        openapi_tools(inventory.SPEC)


def test_two_operations_may_not_become_one_tool() -> None:
    with pytest.raises(BuildError, match="would both be the tool 'same'"):
        openapi_tools(inventory.SPEC, base_url=BASE, names={"getItem": "same", "boom": "same"})
