"""The ``genmcp`` commands that look a server over: resources, prompts, completion, inspect.

* ``genmcp resources URL``: resources and resource templates; ``genmcp read URL URI``: one
  resource's contents (text as it is, a blob as its size).
* ``genmcp prompts URL``; ``genmcp prompt URL NAME -a KEY=VALUE``: the prompt's messages.
* ``genmcp complete URL (--prompt NAME | --resource URI) ARGUMENT [VALUE]``: completions.
* ``genmcp inspect URL``: the protocol era, server info, capabilities and instructions,
  then every tool, prompt, resource and template with its schema (``--json``: one object).

Each takes ``HTTPClient`` from :mod:`genmcp.cli`, which probes the era (2026-07-28 first, a
2025 session as the fallback). Output goes to stdout, problems to stderr.

Imports the command line's client only.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

from genmcp.cli.client import HTTPClient, RPCFailure
from genmcp.protocol.methods import (
    COMPLETION_COMPLETE,
    PROMPTS_GET,
    PROMPTS_LIST,
    RESOURCES_LIST,
    RESOURCES_READ,
    RESOURCES_TEMPLATES_LIST,
)

__all__ = ["complete", "inspect_server", "prompt", "prompts", "read", "resources"]

Factory = Callable[[argparse.Namespace], HTTPClient]


def _dump(value: Any) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False))


def _table(rows: list[tuple[str, str]]) -> None:
    width = max((len(left) for left, _ in rows), default=0)
    for left, right in rows:
        print(f"{left:<{width}}  {right}".rstrip())


def _about(item: dict[str, Any]) -> str:
    lines = (item.get("title") or item.get("description") or "").strip().splitlines()
    return lines[0] if lines else ""


def _optional(client: HTTPClient, method: str, key: str) -> list[dict[str, Any]]:
    """A list the server may not serve at all (-32601): empty then."""
    try:
        return client.list_all(method, key)
    except RPCFailure as exc:
        if exc.code == -32601:
            return []
        raise


def resources(args: argparse.Namespace, client: HTTPClient) -> int:
    found = _optional(client, RESOURCES_LIST, "resources")
    templates = _optional(client, RESOURCES_TEMPLATES_LIST, "resourceTemplates")
    if args.json:
        _dump({"resources": found, "resourceTemplates": templates})
        return 0
    rows = [(r["uri"], _about(r) or r.get("name", "")) for r in found]
    rows += [(t["uriTemplate"], f"(template) {_about(t) or t.get('name', '')}") for t in templates]
    _table(rows)
    return 0


def read(args: argparse.Namespace, client: HTTPClient) -> int:
    result = client.request(RESOURCES_READ, {"uri": args.uri})
    if args.json:
        _dump(result)
        return 0
    for contents in result.get("contents") or []:
        if "text" in contents:
            print(contents["text"])
        else:
            size = len(contents.get("blob", "")) * 3 // 4
            print(f"[{contents.get('mimeType', 'blob')} {contents.get('uri')}, about {size} bytes]")
    return 0


def prompts(args: argparse.Namespace, client: HTTPClient) -> int:
    found = client.list_all(PROMPTS_LIST, "prompts")
    if args.json:
        _dump(found)
        return 0
    rows = []
    for item in found:
        names = [
            a["name"] + ("" if a.get("required") else "?") for a in item.get("arguments") or []
        ]
        rows.append((item["name"], f"({', '.join(names)}) {_about(item)}".strip()))
    _table(rows)
    return 0


def prompt(args: argparse.Namespace, client: HTTPClient, arguments: dict[str, Any]) -> int:
    text = {k: v if isinstance(v, str) else json.dumps(v) for k, v in arguments.items()}
    result = client.request(PROMPTS_GET, {"name": args.name, "arguments": text})
    if args.json:
        _dump(result)
        return 0
    for message in result.get("messages") or []:
        content = message.get("content") or {}
        body = content.get("text") if content.get("type") == "text" else json.dumps(content)
        print(f"[{message.get('role')}] {body}")
    return 0


def complete(args: argparse.Namespace, client: HTTPClient, context: dict[str, Any]) -> int:
    if args.prompt:
        ref = {"type": "ref/prompt", "name": args.prompt}
    else:
        ref = {"type": "ref/resource", "uri": args.resource}
    params: dict[str, Any] = {"ref": ref, "argument": {"name": args.argument, "value": args.value}}
    if context:
        params["context"] = {"arguments": {k: str(v) for k, v in context.items()}}
    completion = client.request(COMPLETION_COMPLETE, params).get("completion") or {}
    if args.json:
        _dump(completion)
        return 0
    for value in completion.get("values") or []:
        print(value)
    return 0


def inspect_server(args: argparse.Namespace, client: HTTPClient) -> int:
    server = client.probe()
    capabilities = server.get("capabilities") or {}
    report: dict[str, Any] = {
        "url": client.url,
        "protocolVersion": client.era,
        "serverInfo": server.get("serverInfo")
        or (server.get("_meta") or {}).get("io.modelcontextprotocol/serverInfo"),
        "capabilities": capabilities,
        "instructions": server.get("instructions"),
        "tools": client.list_tools() if "tools" in capabilities else [],
        "prompts": _optional(client, PROMPTS_LIST, "prompts") if "prompts" in capabilities else [],
    }
    if "resources" in capabilities:
        report["resources"] = _optional(client, RESOURCES_LIST, "resources")
        report["resourceTemplates"] = _optional(
            client, RESOURCES_TEMPLATES_LIST, "resourceTemplates"
        )
    if args.json:
        _dump(report)
        return 0
    info = report["serverInfo"] or {}
    print(f"{info.get('name', '?')} {info.get('version', '')} at {client.url}".rstrip())
    print(f"protocol  {client.era}" + ("  (2025 session fallback)" if client.session else ""))
    print(f"capabilities  {', '.join(sorted(capabilities)) or 'none'}")
    if report["instructions"]:
        print(f"instructions  {report['instructions']}")
    for tool in report["tools"]:
        print(f"\ntool {tool['name']}  {_about(tool)}".rstrip())
        print(_indented("input", tool.get("inputSchema")))
        if tool.get("outputSchema"):
            print(_indented("output", tool["outputSchema"]))
    for item in report["prompts"]:
        names = ", ".join(a["name"] for a in item.get("arguments") or [])
        print(f"\nprompt {item['name']}({names})  {_about(item)}".rstrip())
    for item in report.get("resources", []):
        print(f"\nresource {item['uri']}  {_about(item) or item.get('name', '')}".rstrip())
    for item in report.get("resourceTemplates", []):
        print(f"\ntemplate {item['uriTemplate']}  {_about(item) or item.get('name', '')}".rstrip())
    return 0


def _indented(label: str, schema: Any) -> str:
    text = json.dumps(schema, indent=2, ensure_ascii=False)
    return "\n".join(f"  {label}: " + line if i == 0 else "  " + line
                     for i, line in enumerate(text.splitlines()))  # fmt: skip


def register(
    commands: Any,
    command: Callable[..., argparse.ArgumentParser],
    client_of: Factory,
    arguments_of: Callable[[list[str]], dict[str, Any]],
) -> None:
    """Add this module's subcommands; ``command(commands, name, handler, about)`` makes one
    with the shared URL/--json/--header/--timeout options, ``client_of`` makes the client,
    ``arguments_of`` parses ``KEY=VALUE`` pairs."""

    def run(fn: Callable[..., int], *extra: Callable[[argparse.Namespace], Any]) -> Any:
        def handler(args: argparse.Namespace) -> int:
            client = client_of(args)
            try:
                return fn(args, client, *(get(args) for get in extra))
            finally:
                client.close()

        return handler

    command(commands, "resources", run(resources), "list the resources and templates")
    reading = command(commands, "read", run(read), "read one resource")
    reading.add_argument("uri", metavar="URI")
    command(commands, "prompts", run(prompts), "list the prompts")
    getting = command(
        commands, "prompt", run(prompt, lambda a: arguments_of(a.arg)), "get one prompt"
    )
    getting.add_argument("name", metavar="NAME")
    getting.add_argument("-a", "--arg", action="append", default=[], metavar="KEY=VALUE")
    completing = command(
        commands,
        "complete",
        run(complete, lambda a: arguments_of(a.context)),
        "complete a prompt or resource template argument",
    )
    which = completing.add_mutually_exclusive_group(required=True)
    which.add_argument("--prompt", metavar="NAME", help="complete an argument of this prompt")
    which.add_argument("--resource", metavar="URI_TEMPLATE", help="... of this template")
    completing.add_argument("argument", metavar="ARGUMENT")
    completing.add_argument("value", metavar="VALUE", nargs="?", default="")
    completing.add_argument(
        "-c", "--context", action="append", default=[], metavar="KEY=VALUE",
        help="an argument already chosen",
    )  # fmt: skip
    inspecting = command(commands, "inspect", run(inspect_server), "look a server over")
    inspecting.epilog = "Server info, capabilities, and every tool, prompt and resource."
