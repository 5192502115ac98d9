"""``@prompt``: an annotated function made into an ordinary ``Prompt`` subclass.

``name=`` is the function's name, ``description=`` its docstring, and ``arguments=`` its
parameters (``functions.signature``): required without a default, described by
``Annotated[str, Field(description=...)]``. The client sends strings; an argument annotated
otherwise (``int``, a ``Literal``) is cast and checked by pydantic (-32602 when it does not
fit). ``Channel``, ``PromptRequest`` and FastAPI dependencies are injected. The function
returns a ``str`` (one user message), a list of messages (``str``, ``user_message(...)``,
``assistant_message(...)``), ``Result(get_prompt_result(...))`` or ``InputRequired``.
``complete={"argument": completer}`` completes arguments (``functions.completion``).

Imports genmcp's prompt behaviour and the signature reader; never a web framework.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, overload

from pydantic.fields import FieldInfo

from genmcp.channel import Channel
from genmcp.functions.completion import Completers
from genmcp.functions.signature import Function, Signature, describe, make_class, read_signature
from genmcp.prompts import Prompt, PromptRequest

__all__ = ["prompt"]


@overload
def prompt(fn: Function, /, **options: Any) -> type[Prompt]: ...
@overload
def prompt(fn: None = None, /, **options: Any) -> Callable[[Function], type[Prompt]]: ...
def prompt(fn: Function | None = None, /, **options: Any) -> Any:
    """Make ``fn`` a ``Prompt`` subclass: ``@prompt``, ``@prompt(complete={...})``.

    Example::

        @prompt(complete={"language": lambda value: [n for n in LANGUAGES if n.startswith(value)]})
        def review(code: str, language: str = "python") -> str:
            \"\"\"Review some code.\"\"\"
            return f"Review this {language}:\\n{code}"

    Args:
        fn: the function; its parameters are the prompt's arguments, except those
            annotated ``Channel`` or ``PromptRequest`` and FastAPI dependencies.
        options: ``complete=`` (argument -> completer) and any ``Prompt`` class option
            (``name``, ``title``, ``description``, ``icons``, ``meta``, ``scopes`` ...) but
            ``arguments``, which the signature gives.

    Returns:
        The ``Prompt`` subclass, named after the function; ``cls.__wrapped__`` is ``fn``.
    """
    if fn is None:
        return lambda function: prompt(function, **options)
    if "arguments" in options:
        raise TypeError(
            f"{getattr(fn, '__qualname__', fn)}: @prompt reads arguments from the signature"
        )
    signature = read_signature(fn, request_type=PromptRequest, flatten=False)
    completers = Completers(options.pop("complete", None) or {}, signature.owner,
                            signature.arguments)  # fmt: skip
    options = {**describe(fn), "arguments": _arguments(signature), **options}
    body: dict[str, Any] = {
        "validate_request": _validate(signature),
        "get": _get(fn, signature),
    }
    if completers:
        body["complete"] = completers.hook()
    return make_class(fn, body, Prompt, options)


def _arguments(signature: Signature) -> list[dict[str, Any]]:
    """The ``PromptArgument`` list: one per argument, required without a default."""
    if signature.model is None:
        return []
    described = []
    for name in signature.arguments:
        field: FieldInfo = signature.model.model_fields[name]
        argument: dict[str, Any] = {"name": name, "required": field.is_required()}
        if field.title:
            argument["title"] = field.title
        if field.description:
            argument["description"] = field.description
        described.append(argument)
    return described


def _validate(signature: Signature) -> Function:
    def validate_request(self: Prompt, request: PromptRequest, arg: Any) -> PromptRequest:
        request = Prompt.validate_request(self, request, arg)  # strings, required, known
        model = signature.validate(request.arguments)  # then typed by the annotations
        typed = {name: getattr(model, name) for name in signature.arguments}
        return replace(request, arguments=typed)

    return validate_request


def _get(fn: Function, signature: Signature) -> Function:
    async def get(self: Prompt, request: PromptRequest, channel: Channel, arg: Any) -> Any:
        kwargs = signature.bind(None, request, channel)
        kwargs.update(request.arguments)
        return await signature.call(fn, kwargs, channel)

    return get

