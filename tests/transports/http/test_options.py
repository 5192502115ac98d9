"""``transports/http/options.py``: ``HTTPOptions``, its defaults, its checks, its normal form.

The one definition of the endpoint's HTTP options: each field documented (the reference
page shows it), every default the one ``mcp_router`` serves with, values checked and
normalized when the object is made, the object frozen and hashable.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import itertools
import math
from typing import Any

import pytest

from genmcp import HTTPOptions
from genmcp.transports.http import options as options_module
from genmcp.transports.http.options import OPTION_NAMES
from genmcp.transports.http.rules import LOCAL_HOSTS, MAX_BODY_BYTES, host_allow_list

SEVEN = {
    "allowed_hosts",
    "allowed_origins",
    "max_body_bytes",
    "body_timeout_s",
    "keepalive_s",
    "send_timeout_s",
    "drain_s",
    "shutdown_grace_s",
}


def test_the_defaults_and_a_docstring_per_field() -> None:
    assert OPTION_NAMES == SEVEN == {field.name for field in dataclasses.fields(HTTPOptions)}
    defaults = HTTPOptions()
    assert defaults.allowed_hosts == host_allow_list(LOCAL_HOSTS)
    assert defaults.max_body_bytes == MAX_BODY_BYTES
    assert (defaults.allowed_origins, defaults.body_timeout_s, defaults.keepalive_s) == (
        None,
        30.0,
        15.0,
    )
    assert (defaults.send_timeout_s, defaults.shutdown_grace_s) == (30.0, 2.0)
    assert defaults.drain_s == 30.0  # a rolling restart lets streaming calls finish
    [body] = [node for node in ast.parse(inspect.getsource(options_module)).body
              if isinstance(node, ast.ClassDef) and node.name == "HTTPOptions"]  # fmt: skip
    documented = {
        statement.target.id
        for statement, after in itertools.pairwise(body.body)
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)
        and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
    }  # fmt: skip
    assert documented == SEVEN  # each field has its docstring (the reference page shows it)


def test_values_are_kept_normalized_and_the_object_frozen() -> None:
    options = HTTPOptions(allowed_hosts=["MCP.Example.com", "[::1]", "::1"],
                          allowed_origins=("https://app.example",), keepalive_s=0)  # fmt: skip
    assert options.allowed_hosts == frozenset({"mcp.example.com", "::1"})
    assert options.allowed_origins == frozenset({"https://app.example"})
    assert HTTPOptions(allowed_hosts=None).allowed_hosts is None  # every host
    assert HTTPOptions(allowed_hosts=["*"]).allowed_hosts == frozenset({"*"})
    same = HTTPOptions(
        allowed_hosts=["mcp.example.com", "::1"], allowed_origins=["https://app.example"],
        keepalive_s=0,
    )
    assert options == same
    assert hash(options) == hash(dataclasses.replace(options))
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.max_body_bytes = 11  # type: ignore[misc]
    with pytest.raises(TypeError):
        HTTPOptions(65536)  # type: ignore[misc]  # keywords only: which option is 65536?


@pytest.mark.parametrize(
    ("option", "value", "error", "says"),
    [
        ("allowed_hosts", "localhost", TypeError, "allowed_hosts takes a list of strings"),
        ("allowed_hosts", ["localhost", 8000], TypeError, "allowed_hosts takes strings, not 8000"),
        ("allowed_hosts", ["localhost:8000"], ValueError, "without a port"),
        ("allowed_origins", "https://a.example", TypeError, "allowed_origins takes a list"),
        ("max_body_bytes", 0, ValueError, "max_body_bytes must be at least 1"),
        ("max_body_bytes", 1.5, TypeError, "max_body_bytes must be an int"),
        ("max_body_bytes", True, TypeError, "max_body_bytes must be an int"),
        ("body_timeout_s", 0, ValueError, r"body_timeout_s must be finite and above 0 \(None"),
        ("body_timeout_s", "30", TypeError, "body_timeout_s must be a number of seconds or None"),
        ("keepalive_s", -1, ValueError, "keepalive_s must be finite and at least 0"),
        ("keepalive_s", None, TypeError, "keepalive_s must be a number of seconds, not None"),
        ("send_timeout_s", math.inf, ValueError, "send_timeout_s must be finite"),
        ("send_timeout_s", math.nan, ValueError, "send_timeout_s must be finite"),
        ("shutdown_grace_s", -0.5, ValueError, "shutdown_grace_s must be finite and at least 0"),
        ("drain_s", -1.0, ValueError, "drain_s must be finite and at least 0"),
    ],
)
def test_a_bad_value_fails_where_it_is_written_naming_the_option(
    option: str, value: Any, error: type[Exception], says: str
) -> None:
    with pytest.raises(error, match=says):
        HTTPOptions(**{option: value})


