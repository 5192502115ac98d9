"""``@resource(uri)``: an annotated function made into an ordinary ``ResourceRepo`` subclass.

With template variables (``"shop://customers/{customer_id}"``) the class serves the template:
each variable is a parameter of the function (a ``TypeError`` when the two differ), cast by
its annotation in pydantic's lax mode (``customer_id: int``); a URI whose values do not fit
is not found. Without variables the function serves that one URI, listed in
``resources/list``. ``name=`` defaults to the function's name and ``description=`` to its
docstring; ``Channel``, ``ResourceRequest`` and FastAPI dependencies are injected.

The function returns what a read may return: ``str`` (text), ``bytes`` (a blob), a pydantic
model (JSON text), ``Result(read_resource_result(...))`` for cache hints or several
contents, ``ResourceNotFound()`` or ``InputRequired``. ``complete={"variable": completer}``
completes template variables (``functions.completion``).

Imports genmcp's resource behaviour and the signature reader; never a web framework.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from genmcp.channel import Channel
from genmcp.functions.completion import Completers
from genmcp.functions.signature import (
    Function,
    Signature,
    describe,
    make_class,
    read_signature,
    returns_model,
)
from genmcp.outcomes import ResourceNotFound
from genmcp.protocol.resources import resource_item
from genmcp.protocol.uri_template import UriTemplate
from genmcp.resources import ListPage, ResourceRepo, ResourceRequest
from genmcp.schema import InvalidArguments

__all__ = ["resource"]


def resource(uri: str, /, **options: Any) -> Callable[[Function], type[ResourceRepo]]:
    """Make the decorated function a ``ResourceRepo`` serving ``uri`` (a level-1 template).

    Example::

        @resource("shop://customers/{customer_id}", mime_type="application/json")
        async def customer(customer_id: int, channel: Channel) -> Customer:
            \"\"\"A customer of the shop.\"\"\"
            return channel.state.db["customers"][customer_id]

    Args:
        uri: the URI template (or, without variables, the one URI).
        options: ``complete=`` (variable -> completer) and any ``ResourceRepo`` class
            option (``name``, ``title``, ``description``, ``mime_type``, ``annotations``,
            ``icons``, ``meta``, ``cache_control``, ``scopes``) but ``prefix``/``template``.

    Returns:
        The decorator; the class it makes is named after the function
        (``cls.__wrapped__`` is the function).
    """
    try:
        variables = UriTemplate.parse(uri).variables
    except ValueError as exc:
        raise ValueError(f"@resource({uri!r}): {exc}") from None
    for key in ("prefix", "template"):
        if key in options:
            raise TypeError(f"@resource({uri!r}): the URI is the {key}; give no {key}=")

    def decorate(fn: Function) -> type[ResourceRepo]:
        signature = read_signature(fn, request_type=ResourceRequest, flatten=False)
        if set(signature.arguments) != set(variables):
            raise TypeError(
                f"{signature.owner}: its parameters ({', '.join(signature.arguments) or 'none'})"
                f" must be the variables of {uri!r} ({', '.join(variables) or 'none'}), "
                "besides a Channel, a ResourceRequest and Depends(...)"
            )
        completers = Completers(options.get("complete") or {}, signature.owner, variables)
        settings = {**describe(fn), **{k: v for k, v in options.items() if k != "complete"}}
        if returns_model(fn):
            settings.setdefault("mime_type", "application/json")
        body: dict[str, Any] = {"read": _read(fn, signature)}
        if completers:
            body["complete"] = completers.hook()
        if variables:
            settings["template"] = uri
        else:
            settings["prefix"] = uri
            body.update(_fixed(uri, settings))
        cls: type[ResourceRepo] = make_class(fn, body, ResourceRepo, settings)
        return cls

    return decorate


def _read(fn: Function, signature: Signature) -> Function:
    async def read(self: ResourceRepo, request: ResourceRequest, channel: Channel, arg: Any) -> Any:
        try:
            values = signature.validate(request.params)
        except InvalidArguments as exc:
            return ResourceNotFound(f"Resource not found: {request.uri} ({exc.describe()})")
        return await signature.call(fn, signature.bind(values, request, channel), channel)

    return read


def _fixed(uri: str, settings: Mapping[str, Any]) -> dict[str, Function]:
    """The hooks of a one-URI resource: listed, and matched exactly (not as a prefix)."""
    item = resource_item(
        uri,
        settings["name"],
        title=settings.get("title"),
        description=settings.get("description"),
        mime_type=settings.get("mime_type"),
        annotations=settings.get("annotations"),
        icons=settings.get("icons"),
        meta=settings.get("meta"),
    )

    async def list(self: ResourceRepo, cursor: Any, channel: Channel, arg: Any) -> ListPage:
        return [item], None

    def parse_uri(self: ResourceRepo, requested: str, arg: Any) -> Mapping[str, Any] | None:
        return {} if requested == uri else None

    return {"list": list, "parse_uri": parse_uri}

