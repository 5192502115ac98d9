"""What a Suite is built of, made from its options and wired to each other.

The sealer of its tokens (``requestState``, cursors), the broker (a shared one carries the
runtime catalog changes, the worker mail and the change notifications to the other
processes), the served catalogs (``catalogs.served``), the change feed and the catalog kept
in step across processes (``sync``), Tasks, the calls in flight and the mail relay; and the
method table built from their handlers. One place makes them, so the Suite's constructor
reads as its options; the Suite keeps each part as its own attribute, which its methods and
its dispatch reach directly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from genmcp.call.in_flight import InFlight
from genmcp.call.job import Handler, Handlers
from genmcp.catalogs.request_state import RequestStates
from genmcp.catalogs.served import Served
from genmcp.protocol.languages import Languages, as_languages
from genmcp.protocol.methods import SERVER_DISCOVER
from genmcp.protocol.versions import META_SERVER_INFO
from genmcp.sealing import Sealer
from genmcp.storage import Broker, TaskOptions, TaskStore
from genmcp.storage.memory import MemoryBroker
from genmcp.sync.catalog import SharedCatalog
from genmcp.sync.interest import Interest
from genmcp.sync.listen import ChangeFeed, Seen, listen_handlers
from genmcp.sync.mail import MailRelay
from genmcp.tasks.service import TaskService
from genmcp.transforms.transform import Transform
from genmcp.visibility import Decide, Visibility, as_visibility

__all__ = ["Wiring"]


class Wiring:
    """The parts of one Suite (see the module docstring); :meth:`methods` makes its table.

    ``server_info`` names the server (the sealer's default audience, every result's
    ``_meta``); the rest are the Suite's options of the same names.
    """

    def __init__(
        self,
        server_info: Mapping[str, Any],
        *,
        page_size: int,
        secret_key: str | bytes | list[str | bytes] | None,
        request_state_max_age_s: float,
        audience: str | None,
        broker: Broker | None,
        visibility: Visibility | Decide | None,
        sep2792: Languages | bool | None,
        schema_options: Mapping[str, Any] | None,
        transforms: Iterable[Transform],
        lazy_schemas: bool,
        task_store: TaskStore | None,
        task_options: TaskOptions | None,
    ) -> None:
        self.sealer = Sealer.from_config(
            secret_key, max_age_s=request_state_max_age_s, audience=audience or server_info["name"]
        )
        if broker is not None and not isinstance(broker, Broker):
            raise TypeError(
                f"Suite(broker=...) takes a genmcp.storage.Broker (subscribe, publish, start), "
                f"not {broker!r}"
            )
        self.shared = broker is not None
        """Whether other processes share the broker (the catalog, mail and changes travel)."""
        self.broker: Broker = MemoryBroker() if broker is None else broker
        self.result_meta = {META_SERVER_INFO: server_info}
        states = RequestStates(self.sealer, self.result_meta)
        self.visibility = as_visibility(visibility)
        self.languages = as_languages(sep2792)
        self.served = Served(sealer=self.sealer, states=states, page_size=page_size,
                             visibility=self.visibility, result_meta=self.result_meta,
                             schema_options=schema_options, transforms=transforms,
                             languages=self.languages, lazy_schemas=lazy_schemas)  # fmt: skip
        self.changes = ChangeFeed(self.broker)
        self.catalog = SharedCatalog(
            self.served.by_kind(), self.changes, self.broker, shared=self.shared
        )
        self.tasks = TaskService(task_store, task_options, self.broker, self.result_meta)
        self.in_flight = InFlight()
        self.mail = MailRelay(self.broker, self.in_flight.workers, shared=self.shared)

    def methods(
        self,
        discover: Handler,
        *,
        capabilities: Callable[[], dict[str, Any]],
        routes: Callable[[str], bool],
        lists: Mapping[str, Seen],
        interest: Interest,
    ) -> Handlers:
        """The method table: ``discover`` (the Suite's own ``server/discover``), every
        catalog's handlers, ``subscriptions/listen`` and the Tasks extension's methods."""
        return {
            SERVER_DISCOVER: discover,
            # only a shared broker brings posts from other processes: start receiving them
            **self.served.handlers(on_call=self.mail.start if self.shared else None),
            **listen_handlers(
                broker=self.broker,
                result_meta=self.result_meta,
                tasks=self.tasks,
                capabilities=capabilities,
                routes=routes,
                lists=lists,
                interest=interest,
            ),
            **self.tasks.handlers(lambda: self.served.tools.serves_tasks),
        }
