"""``completion/complete``: a completion request routed to the prompt or template it names.

A ``ref/prompt`` goes to the prompt catalog (``PromptCatalog.complete``), a ``ref/resource``
to the repository serving the template (``ResourceCatalog.complete``); each checks the
argument and calls the behaviour's ``complete`` hook with the request's channel (``state``,
``assigns``). The method is served while some prompt
or repository completes (the ``completions`` capability), else it is -32601.

Imports genmcp's catalogs and protocol shapes; never a web framework.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from genmcp.call.job import Handlers, HookJob, Job, require
from genmcp.catalogs.prompts import PromptCatalog
from genmcp.catalogs.resources import ResourceCatalog
from genmcp.channel import Channel
from genmcp.protocol.jsonrpc import Request
from genmcp.protocol.methods import COMPLETION_COMPLETE
from genmcp.protocol.prompts import parse_complete_params

__all__ = ["completion_handlers"]


def completion_handlers(
    prompts: PromptCatalog, resources: ResourceCatalog, result_meta: Mapping[str, Any]
) -> Handlers:
    """The ``completion/complete`` handler over ``prompts`` and ``resources``."""

    def complete(request: Request, meta: dict[str, Any], assigns: Any) -> Job:
        require(prompts.completes or resources.completes, request)
        kind, target, argument, value, context = parse_complete_params(request.params)

        async def answer(channel: Channel) -> dict[str, Any]:
            if kind == "ref/prompt":
                result = await prompts.complete(target, argument, value, context, channel)
            else:
                result = await resources.complete(target, argument, value, context, channel)
            return {**result, "resultType": "complete", "_meta": result_meta}

        return HookJob(request.method, answer)

    return {COMPLETION_COMPLETE: complete}
