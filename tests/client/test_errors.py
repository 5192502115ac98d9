"""client.errors: the exceptions a client raises, and the JSON-RPC error they carry back."""

from __future__ import annotations

import pytest

from genmcp import testing
from genmcp.client import ClientError, RPCError


def test_an_rpc_error_keeps_code_message_and_data_unchanged() -> None:
    error = {"code": -32021, "message": "Missing capability", "data": {"required": ["x"]}}
    raised = RPCError.from_error(error, status=400)

    assert (raised.code, raised.message, raised.data, raised.status) == (
        -32021, "Missing capability", {"required": ["x"]}, 400,
    )  # fmt: skip
    assert str(raised) == "Missing capability (-32021)"
    assert raised.to_error() == error
    assert isinstance(raised, ClientError)


def test_an_rpc_error_keeps_the_notifications_before_it_as_its_own_list() -> None:
    note = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}}
    given = (note,)
    raised = RPCError(-32603, "broke", notifications=given)
    assert raised.notifications == [note] and str(raised) == "broke (-32603)"
    assert RPCError.from_error({"code": 1, "message": "m"}).notifications == []
    assert RPCError is testing.RPCError  # one class, whichever client raised it


@pytest.mark.parametrize("error", [None, "boom", {"code": True}, {"code": "x", "message": 3}])
def test_a_malformed_error_still_becomes_an_rpc_error(error: object) -> None:
    raised = RPCError.from_error(error)
    assert raised.code == -32603 and isinstance(raised.message, str)
    assert "data" not in raised.to_error()


def test_a_client_error_carries_the_status_and_the_challenge() -> None:
    raised = ClientError("no", status=401, www_authenticate='Bearer realm="x"')
    assert (str(raised), raised.status, raised.www_authenticate) == ("no", 401, 'Bearer realm="x"')
