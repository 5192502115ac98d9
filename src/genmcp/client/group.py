"""``ClientGroup``: N MCP servers behind one client, their names namespaced.

    async with ClientGroup({"weather": "http://127.0.0.1:8001/mcp",
                            "files": ["python", "-m", "files_server"]}) as group:
        tools = await group.list_tools()        # weather_get_forecast, files_read, ...
        await group.call_tool("weather_get_forecast", {"city": "Paris"})

Each member is a :class:`~genmcp.client.Client` (HTTP or stdio, either era, probed on its
own). A tool or prompt ``name`` of member ``server`` is ``server + separator + name``
(``"_"`` by default; a server's name may not contain the separator, so the first one splits
it). Resources keep their URIs; a read goes to the member that listed the URI.

Failures stay with their member: a listing asks every member at once and returns what the
healthy ones answered, the others' errors in ``Listing.errors`` (a member down never fails
the group's list); a call to a member raises that member's ``ClientError``/``RPCError``, as
its own client would. :meth:`ClientGroup.listen` follows every member's changes as
``(server, notification)`` pairs; a member whose stream fails is reported in
``GroupSubscription.errors`` and the others go on.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from genmcp.client.client import Client
from genmcp.client.errors import ClientError
from genmcp.client.listen import Subscription

__all__ = ["ClientGroup", "GroupSubscription", "Listing"]

Member = str | Sequence[str] | Client
Lister = Callable[[Client], Awaitable[list[dict[str, Any]]]]
"""How a listing asks one member."""


class Listing(list[dict[str, Any]]):
    """A group's listing: the items of the members that answered, and the others' errors."""

    def __init__(self, items: list[dict[str, Any]], errors: dict[str, Exception]) -> None:
        super().__init__(items)
        self.errors = errors
        """Member name -> the error that kept its items out (empty: every member answered)."""


class ClientGroup:
    """Several servers as one client (see the module docstring).

    Args:
        servers: member name -> an endpoint URL, a stdio command (a list), or a ``Client``.
        separator: what joins a member's name and a tool's or prompt's name.
        options: ``Client`` keyword arguments for the members made here (``timeout``,
            ``cache``, ``sampling``...).
    """

    def __init__(
        self, servers: Mapping[str, Member], *, separator: str = "_", **options: Any
    ) -> None:
        if not servers:
            raise ValueError("ClientGroup needs at least one server")
        if not separator:
            raise ValueError("ClientGroup(separator=...) must not be empty")
        for name in servers:
            if not name or separator in name:
                raise ValueError(
                    f"server name {name!r}: not empty and without the separator {separator!r}"
                )
        self.separator = separator
        self.clients: dict[str, Client] = {
            name: member if isinstance(member, Client) else Client(member, **options)
            for name, member in servers.items()
        }
        """Member name -> its ``Client``."""
        self._uris: dict[str, str] = {}

    async def __aenter__(self) -> ClientGroup:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close every member (a member's failure to close does not stop the others)."""
        await asyncio.gather(*(client.aclose() for client in self.clients.values()),
                             return_exceptions=True)  # fmt: skip

    # -- names --------------------------------------------------------------------------

    def qualified(self, server: str, name: str) -> str:
        """The group's name of member ``server``'s tool or prompt ``name``."""
        return server + self.separator + name

    def split(self, qualified: str) -> tuple[str, str]:
        """``(server, name)`` of a group name; ``ClientError`` when no member has it."""
        server, found, name = qualified.partition(self.separator)
        if not found or server not in self.clients or not name:
            known = ", ".join(sorted(self.clients))
            raise ClientError(
                f"{qualified!r} names no member of the group: a name is "
                f"<server>{self.separator}<name>, the servers are {known}"
            )
        return server, name

    # -- listings ------------------------------------------------------------------------

    async def _gather(
        self, ask: Lister
    ) -> tuple[dict[str, list[dict[str, Any]]], dict[str, Exception]]:
        names = list(self.clients)
        answers = await asyncio.gather(
            *(ask(self.clients[name]) for name in names), return_exceptions=True
        )
        found: dict[str, list[dict[str, Any]]] = {}
        errors: dict[str, Exception] = {}
        for name, answer in zip(names, answers, strict=True):
            if isinstance(answer, ClientError | OSError):
                errors[name] = answer
            elif isinstance(answer, BaseException):
                raise answer  # a bug or a cancel: not a member's failure
            else:
                found[name] = answer
        return found, errors

    async def _named(self, ask: Lister) -> Listing:
        found, errors = await self._gather(ask)
        items = [
            {**item, "name": self.qualified(server, str(item.get("name")))}
            for server, listed in found.items()
            for item in listed
        ]
        return Listing(items, errors)

    async def list_tools(self, *, cache: bool = True) -> Listing:
        """Every member's tools, named ``server<sep>tool``; the members down in ``errors``."""
        return await self._named(lambda client: client.list_tools(cache=cache))

    async def list_prompts(self, *, cache: bool = True) -> Listing:
        """Every member's prompts (of those that declare prompts), namespaced."""
        ask = _declaring("prompts", lambda client: client.list_prompts(cache=cache))
        return await self._named(ask)

    async def list_resources(self, *, cache: bool = True) -> Listing:
        """Every member's resources, URIs as they are (a read goes to the one that listed it)."""
        ask = _declaring("resources", lambda client: client.list_resources(cache=cache))
        found, errors = await self._gather(ask)
        items = []
        for server, listed in found.items():
            for item in listed:
                self._uris[str(item.get("uri"))] = server
                items.append(item)
        return Listing(items, errors)

    async def list_resource_templates(self, *, cache: bool = True) -> Listing:
        """Every member's resource templates, as they are (a read needs ``server=``)."""
        ask = _declaring("resources", lambda client: client.list_resource_templates(cache=cache))
        found, errors = await self._gather(ask)
        return Listing([item for listed in found.values() for item in listed], errors)

    # -- requests -----------------------------------------------------------------------

    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None,
                        **options: Any) -> dict[str, Any]:  # fmt: skip
        """Call ``server<sep>tool`` on its member (``Client.call_tool``'s options)."""
        server, tool = self.split(name)
        return await self.clients[server].call_tool(tool, arguments, **options)

    async def get_prompt(self, name: str, arguments: Mapping[str, str] | None = None,
                         **options: Any) -> dict[str, Any]:  # fmt: skip
        """Get ``server<sep>prompt`` from its member."""
        server, prompt = self.split(name)
        return await self.clients[server].get_prompt(prompt, arguments, **options)

    async def read_resource(self, uri: str, *, server: str | None = None,
                            **options: Any) -> dict[str, Any]:  # fmt: skip
        """Read ``uri`` from ``server``, or from the member whose listing had it."""
        owner = server or self._uris.get(uri)
        if owner is None or owner not in self.clients:
            raise ClientError(f"{uri!r}: no member listed it; list_resources() first, or "
                              "read_resource(uri, server=...)")  # fmt: skip
        return await self.clients[owner].read_resource(uri, **options)

    # -- listening ----------------------------------------------------------------------

    def listen(self, **filters: Any) -> GroupSubscription:
        """Every member's change notifications (``Client.listen``'s filters):
        ``async with group.listen() as changes: async for server, note in changes: ...``."""
        return GroupSubscription(self, filters)


def _declaring(capability: str, lister: Lister) -> Lister:
    """``lister`` asked of a member whose server declares ``capability`` (after connecting,
    to know); a member that does not has none to list."""

    async def ask(client: Client) -> list[dict[str, Any]]:
        await client.connect()
        if capability not in client.server_capabilities:
            return []
        return await lister(client)

    return ask


class GroupSubscription:
    """The members' subscriptions merged: ``(server, notification)`` in arrival order."""

    def __init__(self, group: ClientGroup, filters: Mapping[str, Any]) -> None:
        self.group, self.filters = group, dict(filters)
        self.errors: dict[str, Exception] = {}
        """Member name -> why its subscription failed or ended with an error."""
        self._queue: asyncio.Queue[tuple[str, dict[str, Any]] | None] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self._open: dict[str, Subscription] = {}

    async def __aenter__(self) -> GroupSubscription:
        names = list(self.group.clients)
        subscriptions = [self.group.clients[name].listen(**self.filters) for name in names]
        entered = await asyncio.gather(*(s.__aenter__() for s in subscriptions),
                                       return_exceptions=True)  # fmt: skip
        for name, subscription, outcome in zip(names, subscriptions, entered, strict=True):
            if isinstance(outcome, ClientError | OSError):
                self.errors[name] = outcome
                continue
            if isinstance(outcome, BaseException):
                await self.close()
                raise outcome
            self._open[name] = subscription
            self._tasks.append(asyncio.create_task(self._pump(name, subscription),
                                                   name=f"group listen {name}"))  # fmt: skip
        if not self._tasks:
            self._queue.put_nowait(None)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def __aiter__(self) -> GroupSubscription:
        return self

    async def __anext__(self) -> tuple[str, dict[str, Any]]:
        item = await self._queue.get()
        if item is None:
            self._queue.put_nowait(None)  # stays ended
            raise StopAsyncIteration
        return item

    @property
    def acknowledged(self) -> dict[str, dict[str, Any]]:
        """Member name -> what its server agreed to send (the members listening)."""
        return {name: dict(s.acknowledged) for name, s in self._open.items()}

    async def _pump(self, name: str, subscription: Subscription) -> None:
        try:
            async for message in subscription:
                await self._queue.put((name, dict(message)))
        except (ClientError, OSError) as exc:
            self.errors[name] = exc
        finally:
            if all(task.done() or task is asyncio.current_task() for task in self._tasks):
                self._queue.put_nowait(None)

    async def close(self) -> None:
        """End every member's subscription."""
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for subscription in self._open.values():
            with contextlib.suppress(ClientError, OSError):
                await subscription.close()
        self._queue.put_nowait(None)
