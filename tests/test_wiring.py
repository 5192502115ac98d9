"""genmcp.wiring: a Suite's parts made from its options, and its method table.

The table holds every 2026-07-28 method a Suite serves and only those; without a broker
the parts stay in the process (a ``MemoryBroker``, nothing to replay), a broker given is the
one every part uses, shared; a broker of the old contract (no ``start``) is refused when
the Suite is built, and the sealer's audience is the server's name unless given.
"""

from __future__ import annotations

from typing import Any, Final

import pytest

from genmcp import Suite
from genmcp.protocol import methods
from genmcp.protocol.jsonrpc import Request
from genmcp.protocol.versions import META_SERVER_INFO
from genmcp.storage.memory import MemoryBroker
from genmcp.sync.interest import Interest
from genmcp.wiring import Wiring

KEY: Final = "s" * 48
INFO: Final = {"name": "s", "version": "1"}
OPTIONS: Final[dict[str, Any]] = {
    "page_size": 10,
    "secret_key": KEY,
    "request_state_max_age_s": 60.0,
    "audience": None,
    "broker": None,
    "visibility": None,
    "sep2792": None,
    "schema_options": None,
    "transforms": (),
    "lazy_schemas": False,
    "task_store": None,
    "task_options": None,
}
"""The Suite's defaults (its own secret key)."""

SERVED: Final = (
    methods.SERVER_DISCOVER,
    methods.TOOLS_LIST,
    methods.TOOLS_CALL,
    methods.PROMPTS_LIST,
    methods.PROMPTS_GET,
    methods.RESOURCES_LIST,
    methods.RESOURCES_TEMPLATES_LIST,
    methods.RESOURCES_READ,
    methods.COMPLETION_COMPLETE,
    methods.SUBSCRIPTIONS_LISTEN,
    methods.TASKS_GET,
    methods.TASKS_UPDATE,
    methods.TASKS_CANCEL,
    methods.SKILLS_LIST,
    methods.SKILLS_GET,
    methods.RESOURCES_DIRECTORY_READ,
)


def parts(**options: Any) -> Wiring:
    return Wiring(INFO, **{**OPTIONS, **options})


def discover(request: Request, meta: dict[str, Any], assigns: Any) -> dict[str, Any]:
    return {"resultType": "complete"}


def test_the_method_table_holds_every_2026_method_and_only_those() -> None:
    built = parts()
    table = built.methods(discover, capabilities=dict, routes=lambda uri: False, lists={},
                          interest=Interest())  # fmt: skip
    assert set(table) == set(SERVED) and table[methods.SERVER_DISCOVER] is discover
    suite = Suite(server_name="s", server_version="1", secret_key=KEY)
    assert set(suite._dispatch.methods) == set(SERVED)  # whatever is served: the rest answer -32601


class Unstartable:
    """A broker of the old contract: subscribe and publish, no ``start``."""

    def subscribe(self, *topics: str) -> Any:
        raise AssertionError("never called")

    async def publish(self, topic: str, message: Any) -> None:
        raise AssertionError("never called")


def test_a_broker_without_start_is_refused_when_the_suite_is_built() -> None:
    with pytest.raises(TypeError, match=r"storage.Broker \(subscribe, publish, start\)"):
        Suite(server_name="s", server_version="1", broker=Unstartable())  # type: ignore[arg-type]


def test_without_a_broker_the_parts_stay_in_the_process() -> None:
    built = parts()
    assert isinstance(built.broker, MemoryBroker) and not built.shared
    assert built.catalog.started  # nothing to replay without other processes
    assert built.result_meta == {META_SERVER_INFO: INFO}
    assert built.sealer.audience == "s"


def test_a_broker_given_is_every_part_s_and_shared() -> None:
    broker = MemoryBroker()
    built = parts(broker=broker, audience="elsewhere")
    assert built.broker is broker and built.shared
    assert not built.catalog.started  # the other processes' changes are replayed at start
    assert built.sealer.audience == "elsewhere"
