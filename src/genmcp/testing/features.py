"""The test client's helpers beyond tools: resources, templates, prompts, completion, listen.

``Features`` is a mixin of ``MCPTestClient``: each helper sends one real request (following
``nextCursor`` for lists), returns the result's payload and raises ``RPCError`` for an error
response. ``listen`` holds a ``subscriptions/listen`` stream open (2026-07-28 only).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

from genmcp.testing.exchange import Exchange
from genmcp.testing.results import Reply

__all__ = ["Features", "Listener"]

Message = dict[str, Any]


class Listener:
    """A ``subscriptions/listen`` stream held open (see ``MCPTestClient.listen``).

    ``acknowledged`` holds the params of ``notifications/subscriptions/acknowledged`` (what
    the server honors); ``next()`` waits for the next notification after it.
    """

    def __init__(self, exchange: Exchange, timeout: float) -> None:
        self.acknowledged: dict[str, Any] = {}
        self.notifications: list[Message] = []
        self.response: Message | None = None
        self._exchange, self._timeout = exchange, timeout

    async def next(self) -> Message:
        """The next notification; AssertionError if the stream ends first."""
        try:
            message = await asyncio.wait_for(self._exchange.receive(), self._timeout)
        except TimeoutError:
            raise TimeoutError(f"no notification within {self._timeout}s") from None
        if message is None or "method" not in message:
            self.response = message
            raise AssertionError(f"the listen stream ended: {message}")
        self.notifications.append(message)
        return message


class Features:
    """Resource, prompt, completion and listen helpers over ``request``/``send``/``build``."""

    timeout: float

    async def request(
        self, method: str, params: Mapping[str, Any] | None = None, **options: Any
    ) -> Reply:
        raise TypeError(f"{type(self).__name__}: a mixin of MCPTestClient, which defines request()")

    async def send(self, message: Mapping[str, Any] | bytes, *, wait: bool = True) -> Exchange:
        raise TypeError(f"{type(self).__name__}: a mixin of MCPTestClient, which defines send()")

    build: Callable[..., Message]  # MCPTestClient.build

    async def _pages(self, method: str, key: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        params: dict[str, Any] = {}
        while True:
            page = (await self.request(method, params)).unwrap()
            items.extend(page[key])
            if not page.get("nextCursor"):
                return items
            params = {"cursor": page["nextCursor"]}

    async def list_resources(self) -> list[dict[str, Any]]:
        """Every resource of ``resources/list``."""
        return await self._pages("resources/list", "resources")

    async def list_resource_templates(self) -> list[dict[str, Any]]:
        """Every template of ``resources/templates/list``."""
        return await self._pages("resources/templates/list", "resourceTemplates")

    async def read_resource(self, uri: str) -> list[dict[str, Any]]:
        """The ``contents`` of ``resources/read``."""
        result = (await self.request("resources/read", {"uri": uri})).unwrap()
        contents: list[dict[str, Any]] = result["contents"]
        return contents

    async def list_prompts(self) -> list[dict[str, Any]]:
        """Every prompt of ``prompts/list``."""
        return await self._pages("prompts/list", "prompts")

    async def get_prompt(
        self, name: str, arguments: Mapping[str, str] | None = None
    ) -> dict[str, Any]:
        """The ``prompts/get`` result (``messages``, ``description``)."""
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = dict(arguments)
        result: dict[str, Any] = (await self.request("prompts/get", params)).unwrap()
        return result

    async def complete(
        self,
        ref: Mapping[str, Any] | str,
        argument: str,
        value: str = "",
        context: Mapping[str, str] | None = None,
    ) -> list[str]:
        """The values of ``completion/complete``; ``ref`` is a prompt name, a template URI
        (``"notes://{id}"``) or the spec's ``{"type": "ref/...", ...}``."""
        if isinstance(ref, str):
            ref = (
                {"type": "ref/resource", "uri": ref}
                if "://" in ref
                else {"type": "ref/prompt", "name": ref}
            )
        params: dict[str, Any] = {"ref": dict(ref), "argument": {"name": argument, "value": value}}
        if context is not None:
            params["context"] = {"arguments": dict(context)}
        result = (await self.request("completion/complete", params)).unwrap()
        values: list[str] = result["completion"]["values"]
        return values

    @contextlib.asynccontextmanager
    async def listen(
        self,
        *,
        tools: bool = False,
        prompts: bool = False,
        resources: bool = False,
        uris: list[str] | tuple[str, ...] = (),
    ) -> AsyncIterator[Listener]:
        """Hold a ``subscriptions/listen`` stream open for the block (2026-07-28).

        ``async with client.listen(tools=True) as changes:`` then ``await changes.next()``
        after changing the Suite; the acknowledgement is read before the block starts.
        """
        if getattr(self, "legacy", None) is not None:
            raise TypeError(
                "listen is a 2026-07-28 request: a 2025 session gets changes on "
                "its GET stream; test listen with a 2026-07-28 client"
            )
        wanted: dict[str, Any] = {}
        if tools:
            wanted["toolsListChanged"] = True
        if prompts:
            wanted["promptsListChanged"] = True
        if resources:
            wanted["resourcesListChanged"] = True
        if uris:
            wanted["resourceSubscriptions"] = list(uris)
        exchange = await self.send(self.build("subscriptions/listen", {"notifications": wanted}))
        listener = Listener(exchange, self.timeout)
        try:
            first = await listener.next()
            listener.acknowledged = first.get("params") or {}
            yield listener
        finally:
            await exchange.disconnect()
