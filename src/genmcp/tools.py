"""The Tool behaviour: a class with GenMCP's callbacks as hooks.

A tool is a subclass of ``Tool`` configured with class keyword options
(``name=``, ``description=``, ``input_schema=`` ...). The options feed the
default hooks, so most tools implement only ``call``. Every hook receives the
provider argument ``arg`` last: ``tools=[(MyTool, arg)]`` (a bare class means
``arg=None``). One instance serves all calls of one provider; per-call state
lives only in ``Stream`` state.

Outcomes of ``call`` and ``handle_message`` are ``Result``, ``Stream``, ``Error`` and
``InputRequired`` (``genmcp.outcomes``); anything else raises ``CallbackReturnError``.

Imports asyncio-free modules only (behaviour, outcomes, schema); never a web framework.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Final

from genmcp.apps import AppView
from genmcp.behaviour import Behaviour
from genmcp.outcomes import CacheControl, HookRequest, Outcome
from genmcp.protocol.apps import tool_ui_meta
from genmcp.schema import ArgumentValidator, SchemaLike, compile_schema, merge_options

if TYPE_CHECKING:
    from genmcp.channel import Channel

__all__ = ["Tool", "ToolRequest"]

NO_ARGUMENTS_SCHEMA: dict[str, Any] = {"type": "object", "additionalProperties": False}
_OPTION_KEYS = (
    "name",
    "title",
    "description",
    "annotations",
    "icons",
    "meta",
    "input_schema",
    "output_schema",
    "cache_control",
    "scopes",
    "schema_options",
    "view",
    "visibility",
    "task_support",
    "error_results",
)


_NO_META: Any = object()
"""``ToolRequest``'s default ``meta``: a new dict each (its field's ``default_factory``)."""


@dataclass(frozen=True, slots=True, init=False)
class ToolRequest(HookRequest):
    """What a tool's hooks receive for one ``tools/call``.

    Attributes:
        name: the tool name the client called.
        arguments: the arguments: a dict, or a pydantic model instance when the
            tool's input schema is a model class.
        meta, input_responses, request_state: ``HookRequest``'s (here by position too).
    """

    name: str
    arguments: Any

    def __init__(
        self,
        name: str,
        arguments: Any,
        meta: Mapping[str, Any] = _NO_META,
        input_responses: dict[str, Any] | None = None,
        request_state: Any = None,
    ) -> None:
        # through the slots' own setters: a frozen dataclass's generated __init__ goes
        # through object.__setattr__ per field (every tools/call makes one: the hot path)
        _set = _TOOL_REQUEST_SETTERS
        _set[0](self, name)
        _set[1](self, arguments)
        _set[2](self, {} if meta is _NO_META else meta)
        _set[3](self, input_responses)
        _set[4](self, request_state)


_TOOL_REQUEST_SETTERS: Final = tuple(
    getattr(ToolRequest, name).__set__  # the slots' descriptors (the last three: HookRequest's)
    for name in ("name", "arguments", "meta", "input_responses", "request_state")
)


class Tool(Behaviour):
    """Base class of every tool; subclass it with keyword options.

    Example::

        class Add(Tool, name="add", description="Adds two numbers.",
                  input_schema={"type": "object", "properties": {
                      "a": {"type": "number"}, "b": {"type": "number"}},
                      "required": ["a", "b"]}):
            async def call(self, request, channel, arg):
                a, b = request.arguments["a"], request.arguments["b"]
                return Result(call_tool_result(text=str(a + b)))

    ``call`` may be a plain ``def``; it then runs in a worker thread.
    """

    __slots__ = ()  # see Behaviour: @tool's classes have no __dict__

    kind: ClassVar[str] = "tool"
    option_keys: ClassVar[tuple[str, ...]] = _OPTION_KEYS

    # -- metadata hooks ---------------------------------------------------------

    def info(self, key: str, arg: Any) -> Any:
        """Return the metadata ``key`` (name, title, description, annotations, icons, _meta).

        Called once per provider when the Suite is built.
        """
        return self.option(key)

    def ui(self, arg: Any) -> Mapping[str, Any] | None:
        """Return the tool's MCP Apps ``_meta.ui`` (``resourceUri``, ``visibility``), or None.

        Defaults to the ``view=`` option (an ``AppView`` class, or a ``ui://`` URI served
        elsewhere) and the ``visibility=`` option (``["model", "app"]`` by default;
        ``["app"]`` for an app-only tool the host hides from the model). Called once per
        provider when the Suite is built; merged into ``_meta``.
        """
        view = self.option("view")
        if isinstance(view, type) and issubclass(view, AppView):
            view = view.view_uri()
        return tool_ui_meta(view, self.option("visibility"), type(self).__qualname__)

    def input_schema(self, arg: Any) -> SchemaLike:
        """Return the input JSON Schema (a dict) or a pydantic model class.

        Called once per provider when the Suite is built. Defaults to the
        ``input_schema=`` option, else a schema that accepts no arguments.
        """
        schema: SchemaLike | None = self.option("input_schema")
        return NO_ARGUMENTS_SCHEMA if schema is None else schema

    def output_schema(self, arg: Any) -> SchemaLike | None:
        """Return the output JSON Schema (or model class) the structured result follows."""
        schema: SchemaLike | None = self.option("output_schema")
        return schema

    def schema_options(self, arg: Any) -> Mapping[str, Any] | None:
        """Return schema build options merged over the Suite's (``formats``, ``check_formats``,
        ``default_dialect``, ``backtracking_patterns``; see docs/guides/tools.md).

        Called once per provider when the Suite is built. Defaults to the
        ``schema_options=`` option. They change validation, never the advertised schema.
        """
        options: Mapping[str, Any] | None = self.option("schema_options")
        return options

    def cache_control(self, arg: Any) -> CacheControl:
        """Return how long ``tools/list`` may be cached: ``("public"|"private", ttl_ms)``."""
        option: CacheControl | None = self.option("cache_control")
        return ("private", 0) if option is None else option

    def required_scopes(self, arg: Any) -> tuple[str, ...]:
        """The OAuth scopes a caller needs for ``tools/call`` (``scopes=`` option)."""
        return tuple(self.option("scopes") or ())

    def task_support(self, arg: Any) -> str:
        """Whether calls may run as tasks (the Tasks extension): ``"none"`` (the default),
        ``"optional"`` or ``"required"`` (clients without the extension get -32021).

        Called once per provider when the Suite is built. Defaults to the
        ``task_support=`` option.
        """
        option: str | None = self.option("task_support")
        return "none" if option is None else option

    def wants_task(self, request: ToolRequest, arg: Any) -> bool:
        """Whether this call runs as a task; asked only when the tool supports tasks and
        the request declares the extension. The arguments are not validated yet.

        Defaults to True. Return False to answer directly, e.g. to finish a multi
        round-trip exchange (``InputRequired``) before the task is created.
        """
        return True

    # -- call hooks ---------------------------------------------------------------

    def validate_request(self, request: ToolRequest, arg: Any) -> ToolRequest:
        """Check the arguments before ``call``; return the request to call with.

        The generated version validates against ``input_schema`` (a pydantic
        model class casts the arguments into an instance) and raises
        ``InvalidArguments``, which the client receives as an ``isError``
        result. Define your own to replace it; the schema then only describes.
        """
        return with_arguments(request, input_validator(self, arg).validate(request.arguments))

    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Outcome:
        """Handle one ``tools/call``. Must be overridden.

        Return ``Result`` to answer, ``Stream(state)`` to wait for mailbox
        messages, ``InputRequired`` to ask the client for input, ``Error`` for a
        protocol error. Raising an exception answers -32603 and logs it.
        """
        raise TypeError(f"{type(self).__qualname__} must implement call()")

    async def handle_message(self, message: Any, channel: Channel, state: Any, arg: Any) -> Outcome:
        """Handle one mailbox message while streaming; return the next outcome.

        Called one message at a time after ``call`` (or a previous
        ``handle_message``) returned ``Stream(state)``.
        """
        raise TypeError(
            f"{type(self).__qualname__} returned Stream but does not implement handle_message()"
        )

    async def handle_close(self, channel: Channel, state: Any, arg: Any) -> None:
        """Called once when the client goes away while the call is streaming."""


def input_validator(tool: Tool, arg: Any) -> ArgumentValidator:
    """The tool's compiled input schema, compiled on first direct use (``tools/call``
    through a Suite validates with the validator its entry built, under the Suite's
    ``schema_options``)."""
    own = getattr(tool, "__dict__", None)  # None for a @tool class's (slotted) instance
    kept = vars(type(tool)) if own is None else own
    validator: ArgumentValidator | None = kept.get("_genmcp_validator")
    if validator is None:
        owner = type(tool).__qualname__
        options = merge_options(None, tool.schema_options(arg), owner=owner)
        validator = compile_schema(tool.input_schema(arg), owner=owner, options=options)
        if own is None:
            type.__setattr__(type(tool), "_genmcp_validator", validator)
        else:
            own["_genmcp_validator"] = validator
    return validator


def with_arguments(request: ToolRequest, arguments: Any) -> ToolRequest:
    """``request`` with validated ``arguments`` (itself when they are the same object)."""
    if arguments is request.arguments:
        return request
    return ToolRequest(
        request.name, arguments, request.meta, request.input_responses, request.request_state
    )
