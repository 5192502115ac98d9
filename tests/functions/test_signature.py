"""functions/signature.py: which parameters are arguments, which genmcp injects, and refusals."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from fastapi import Depends, Security
from pydantic import BaseModel, Field

from genmcp import Channel, InvalidArguments, ToolRequest
from genmcp.functions.signature import (
    CHANNEL,
    REQUEST,
    dependency_of,
    describe,
    read_signature,
    returns_model,
)


def get_db() -> dict[str, Any]:
    return {}


class Order(BaseModel):
    item: str


def test_parameters_are_sorted_into_arguments_and_injections() -> None:
    async def fn(
        a: int,
        channel: Channel,
        request: ToolRequest,
        db: Annotated[dict[str, Any], Depends(get_db)],
        b: Annotated[int, Field(ge=0)] = 2,
        other: Any = Depends(get_db),
    ) -> None: ...

    signature = read_signature(fn, request_type=ToolRequest)
    assert signature.arguments == ("a", "b")
    assert signature.injected == {"channel": CHANNEL, "request": REQUEST}
    assert set(signature.dependencies) == {"db", "other"}
    assert signature.is_async and not signature.single
    assert signature.model is not None
    schema = signature.model.model_json_schema()
    assert schema["required"] == ["a"]
    assert schema["properties"]["b"]["minimum"] == 0
    assert schema["additionalProperties"] is False


def test_a_single_model_parameter_is_the_whole_arguments_object() -> None:
    def fn(order: Order) -> None: ...

    signature = read_signature(fn, request_type=ToolRequest)
    assert signature.single and signature.model is Order
    assert signature.bind(Order(item="saw"), None, None) == {"order": Order(item="saw")}
    # with flatten=False (prompts, resources) or a default, it stays one property
    assert not read_signature(fn, request_type=ToolRequest, flatten=False).single

    def optional(order: Order | None = None) -> None: ...

    assert not read_signature(optional, request_type=ToolRequest).single


def test_validate_casts_strings_and_reports_pydantic_errors() -> None:
    def fn(count: int) -> None: ...

    signature = read_signature(fn, request_type=ToolRequest, flatten=False)
    assert signature.validate({"count": "3"}).count == 3
    with pytest.raises(InvalidArguments) as caught:
        signature.validate({"count": "many"})
    assert caught.value.errors[0]["loc"] == ["count"]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("def fn(*args): ...", r"\*args cannot be an MCP argument"),
        ("def fn(**kw): ...", r"\*\*kw cannot be an MCP argument"),
        ("def fn(a, /): ...", "positional-only"),
        ("def fn(a: Missing): ...", "an annotation does not resolve"),
        ("def fn(_a: int): ...", "starts with _"),
    ],
)
def test_a_signature_genmcp_cannot_serve_is_refused_naming_the_function(
    source: str, message: str
) -> None:
    namespace: dict[str, Any] = {}
    exec(source, namespace)
    with pytest.raises(TypeError, match=message) as caught:
        read_signature(namespace["fn"], request_type=ToolRequest)
    assert "fn" in str(caught.value)


def test_a_class_is_not_a_function() -> None:
    with pytest.raises(TypeError, match="is not a function"):
        read_signature(Order, request_type=ToolRequest)


def test_dependency_markers_are_recognised_without_importing_fastapi() -> None:
    assert dependency_of(Depends(get_db)) is not None
    assert dependency_of(Security(get_db)) is not None
    assert dependency_of(get_db) is None and dependency_of("Depends") is None


def test_describe_and_returns_model() -> None:
    def documented() -> Order | None:
        """Says what it does."""

    def plain() -> str: ...

    assert describe(documented) == {"name": "documented", "description": "Says what it does."}
    assert describe(plain) == {"name": "plain"}
    assert returns_model(documented) is Order
    assert returns_model(plain) is None


def test_closures_of_one_def_share_an_arguments_model_only_when_it_is_the_same() -> None:
    """Functions generated from one ``def`` with the same annotations and defaults share
    one arguments model (a catalog of them builds one, not one each); a default of another
    type (``True`` is ``1`` to ``==``), another value or an unhashable one gets its own,
    and each validates by its own."""

    def made(default: Any) -> Any:
        def lookup(key: str, limit: Any = default) -> str:
            return key

        return lookup

    def model_of(default: Any) -> Any:
        return read_signature(made(default), request_type=ToolRequest).model

    assert model_of(1) is model_of(1)
    assert model_of(True) is not model_of(1)
    assert model_of(2) is not model_of(1)
    assert model_of([1]) is not model_of([1])
    assert model_of(True)(key="k").limit is True
    assert type(model_of(1)(key="k").limit) is int
    assert model_of([1])(key="k").limit == [1]


def test_returns_model_reads_through_annotated() -> None:
    """The returned model is found through ``Annotated``, at the top or in a union."""

    def annotated() -> Annotated[Order, "note"]: ...

    def in_union() -> Annotated[Order, "note"] | None: ...

    assert returns_model(annotated) is Order
    assert returns_model(in_union) is Order
