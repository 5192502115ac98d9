"""The endpoint's interactive page in a real headless Chromium, on the shop and tenants examples.

Each example is served by a real uvicorn with the page on (``GENMCP_DOCS=1`` while its module
is imported: the examples leave it off). ``support/docsui_browser.mjs`` (playwright-core,
Debian's ``/usr/bin/chromium``) runs every flow of an example in one browser, reading the
DOM and saving a screenshot per flow under ``$GENMCP_ARTIFACTS`` (default:
``tmp/artifacts/docsui``, gitignored); each test below checks one flow's readings. The page
is driven by keyboard where a user would (the connect form, the navigation, submitting a
form, the elicitation's checkbox) and every visible control must have a label. Skipped
without node, npm or chromium; a failure when ``CI`` is set.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any, Final

import pytest

from genmcp.docsui import DOCS_ENV
from support.browser import ARTIFACTS, run_docs_page
from support.docsui_probe import REPORT_TEXT, REPORT_URI, Probe, Remote
from support.examples import EXAMPLES
from support.server import LiveServers

# a real browser: about 15 s a launch, 50-80 s on a loaded machine (the shop's and the
# tenants' flows each in the first test's setup); 240 s, above run_docs_page's 180 s, only
# bounds a hang (pytest's 60 s default cut a loaded run short)
pytestmark = [pytest.mark.long, pytest.mark.timeout(240)]


def load_with_docs(name: str, **env: str) -> ModuleType:
    """A fresh import of ``examples/<name>.py`` with the page on (and ``env`` set meanwhile)."""
    saved = {key: os.environ.get(key) for key in (DOCS_ENV, *env)}
    os.environ.update({DOCS_ENV: "1", **env})
    sys.path.insert(0, str(EXAMPLES))  # tenants imports everything_server
    try:
        spec = importlib.util.spec_from_file_location(
            f"examples_{name}_docs", EXAMPLES / f"{name}.py"
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        if "TENANTS_CONFORMANCE" in env:
            importlib.import_module("everything_server")  # imported when acme is first built
        return module
    finally:
        sys.path.remove(str(EXAMPLES))
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def drive(example: str, base: str) -> dict[str, Any]:
    """Run every flow of ``example`` in one browser; the readings per flow."""
    return run_docs_page({"example": example, "base": base})


def flow(flows: dict[str, Any], name: str, shot: bool = True) -> dict[str, Any]:
    readings: dict[str, Any] = flows[name]
    assert "failure" not in readings, readings.get("failure")
    if shot:
        taken = ARTIFACTS / f"{flows['_example']}-{name}.png"
        assert taken.stat().st_size > 1000, taken  # the screenshot was taken
    return readings


@pytest.fixture(scope="module")
def shop() -> Iterator[dict[str, Any]]:
    live = LiveServers()
    try:
        flows = drive("shop", live(load_with_docs("shop").app))
        yield {**flows, "_example": "shop"}
    finally:
        live.stop_all()


@pytest.fixture(scope="module")
def tenants() -> Iterator[dict[str, Any]]:
    live = LiveServers()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TENANTS_CONFORMANCE", "1")  # read when a tenant's Suite is built
        try:
            module = load_with_docs("tenants", TENANTS_CONFORMANCE="1")
            flows = drive("tenants", live(module.app))
            yield {**flows, "_example": "tenants"}
        finally:
            live.stop_all()


@pytest.fixture(scope="module")
def apps_and_probe() -> Iterator[tuple[dict[str, Any], Probe, Remote]]:
    """The apps example's flows and the probe app's (support/docsui_probe.py), one browser."""
    live = LiveServers()
    try:
        remote = Remote()
        probe = Probe(live(remote, lifespan="off"))
        also = [{"example": "probe", "base": live(probe.app)}]
        flows = run_docs_page(
            {"example": "apps", "base": live(load_with_docs("apps").app), "also": also}
        )
        yield flows, probe, remote
    finally:
        live.stop_all()


@pytest.fixture(scope="module")
def apps(apps_and_probe: tuple[dict[str, Any], Probe, Remote]) -> dict[str, Any]:
    return {**apps_and_probe[0], "_example": "apps"}


@pytest.fixture(scope="module")
def probe(apps_and_probe: tuple[dict[str, Any], Probe, Remote]) -> dict[str, Any]:
    flows, app, remote = apps_and_probe
    return {**flows, "_example": "probe", "_app": app, "_remote": remote}


SHOP_TOOLS: Final = ["create_order", "hash_text", "export_orders", "delete_order", "customer_city"]


def test_the_page_lists_what_the_server_serves(shop: dict[str, Any]) -> None:
    readings = flow(shop, "list")
    assert readings["server"] == "shop"
    assert readings["title"].strip() == "shop 1.0.0"
    assert readings["protocol"] == "2026-07-28"
    assert "tools" in readings["capabilities"]
    assert sorted(readings["tools"]) == sorted(SHOP_TOOLS)
    assert readings["templates"] == ["shop://customers/{name}"]
    assert readings["prompts"] == ["follow_up"]
    # completions from the server, in the template's field
    assert sorted(readings["completions"]) == ["ada", "alan"]
    # the prompt's arguments: a text field and the enum as a select, each labelled
    assert readings["promptFields"][:2] == ["customer", "tone"]
    assert readings["unlabeled"] == readings["promptUnlabeled"] == []
    # Tab walks from the token field through the connect form to the navigation
    assert "select#log-level" in readings["tabbing"]
    assert "button#connect-button" in readings["tabbing"]
    assert any(stop.startswith("button:tools") for stop in readings["tabbing"])


def test_a_form_call_shows_structured_results_progress_and_the_timeline(
    shop: dict[str, Any],
) -> None:
    readings = flow(shop, "call")
    assert readings["quantityDefault"] == "1"  # the schema's default, filled in
    assert readings["unlabeled"] == []
    first, second = (order["structured"] for order in readings["orders"])
    assert (first["customer"], first["item"], first["quantity"], first["by"]) == (
        "ada",
        "tea",
        1,
        "alice",
    )
    assert (second["customer"], second["item"], second["id"]) == ("alan", "scones", first["id"] + 1)
    assert [o["check"] for o in readings["orders"]] == ["Matches the output schema."] * 2
    assert readings["export"].splitlines()[1:] == [
        f"{first['id']},ada,tea,1",
        f"{second['id']},alan,scones,1",
    ]
    assert readings["progress"] == [2, 2]
    assert readings["progressText"].startswith("2 / 2")
    assert readings["timeline"].count("notifications/progress") == 2
    assert readings["timeline"].count("tools/call") == 3
    assert readings["timings"] >= 3 + 1  # each answered request shows its time (and discover)


def test_an_elicitation_is_answered_in_the_page(shop: dict[str, Any]) -> None:
    readings = flow(shop, "elicitation")
    assert readings["message"] == "Delete order 1?"
    assert readings["focused"] is True  # focus moves to the question
    assert readings["unlabeled"] == []
    assert readings["result"] == "Order 1 deleted."
    # 2026-07-28: an input_required result, then the call again with the answer
    assert readings["timeline"].count("tools/call") == 3


def test_the_era_switch_serves_a_2025_session(shop: dict[str, Any]) -> None:
    readings = flow(shop, "era")
    assert "2025-11-25 · session" in readings["status"]
    assert sorted(readings["tools"]) == sorted(SHOP_TOOLS)
    assert readings["message"] == f"Delete order {readings['created']['id']}?"
    assert readings["result"] == f"Order {readings['created']['id']} kept."
    for method in ("initialize", "notifications/initialized", "elicitation/create"):
        assert method in readings["timeline"]
    since = readings["timeline"][: readings["timeline"].index("initialize")]  # newest first
    assert "server/discover" not in since and "tools/call" in since
    assert "2026-07-28" in readings["back"] and "session" not in readings["back"]
    # the session the switch replaced was ended (DELETE): the server no longer knows it
    assert (readings["sessions"], readings["live"]) == (1, [])


def test_a_late_answer_to_an_earlier_connection_changes_nothing(shop: dict[str, Any]) -> None:
    readings = flow(shop, "late")
    # the first connection's 401 (no token yet), answered after the 2025 session was up
    assert readings["newest"].startswith("←error of server/discover"), readings["newest"]
    assert readings["status"] == "connected · 2025-11-25 · session"
    assert sorted(readings["tools"]) == sorted(SHOP_TOOLS)
    assert readings["detail"] == "Server"  # not the refusal
    # a 2025 initialize answered after the switch back: its session is not taken up
    assert readings["back"] == "connected · 2026-07-28"
    assert (readings["protocol"], readings["session"]) == ("2026-07-28", 0)
    assert '"item": "toast"' in readings["called"], readings["called"]  # and calls work
    # the session the switch replaced and the one opened late were both ended (DELETE)
    assert (readings["sessions"], readings["live"]) == (2, [])


def test_without_a_token_the_page_says_so_and_lists_nothing(shop: dict[str, Any]) -> None:
    readings = flow(shop, "auth")
    assert readings["without"] == "unauthorized: paste a bearer token"
    assert readings["toolsWithout"] == []
    assert sorted(readings["toolsWith"]) == sorted(SHOP_TOOLS)


def test_the_page_sees_only_the_tools_the_caller_may_see(tenants: dict[str, Any]) -> None:
    readings = flow(tenants, "auth")
    admin_only = {"delete_ticket", "export_data"}
    assert admin_only <= set(readings["alice-acme"])
    assert not admin_only & set(readings["bob-acme"])
    assert not admin_only & set(readings["guest"])
    assert set(readings["bob-acme"]) < set(readings["alice-acme"])
    assert "failed" in readings["otherTenant"]  # another tenant's token: a 404 there


def test_lists_read_for_an_earlier_token_are_not_shown(tenants: dict[str, Any]) -> None:
    readings = flow(tenants, "late", shot=False)
    admin_only = {"delete_ticket", "export_data"}
    assert readings["last"].endswith("/list")  # alice's last list, answered after bob connected
    assert not admin_only & set(readings["bob"])
    assert readings["after"] == readings["bob"]  # not alice's
    assert readings["status"].startswith("connected")


def test_results_render_images_audio_and_embedded_resources(tenants: dict[str, Any]) -> None:
    readings = flow(tenants, "results")
    mixed = readings["test_multiple_content_types"]
    assert mixed["blocks"] == ["text", "image", "resource"]
    assert mixed["images"] == [["image (image/png)", True]]  # decoded and drawn
    assert json.loads(mixed["texts"][1]) == {"test": "data", "value": 123}
    assert readings["test_audio_content"]["audio"] == ["audio (audio/wav)"]
    assert readings["test_embedded_resource"]["texts"] == ["This is an embedded resource content."]


def test_the_form_nests_objects_and_offers_enums(tenants: dict[str, Any]) -> None:
    readings = flow(tenants, "form")
    assert readings["legends"] == ["address"]  # the $ref'd object is a fieldset
    assert readings["choices"] == ["—", "phone", "email"]  # optional: a blank first
    assert readings["unlabeled"] == []
    sent = json.loads(readings["result"].removeprefix("contact: "))
    assert sent == {"name": "Ada", "address": {"street": "1 Main St", "city": "Paris"},
                    "contactMethod": "email", "email": "ada@example.com"}  # fmt: skip


def test_an_elicitation_form_has_every_enum_form_and_arrays(tenants: dict[str, Any]) -> None:
    readings = flow(tenants, "enums")
    assert readings["legends"] == ["untitledMulti (list)", "titledMulti (list)"]
    assert readings["unlabeled"] == []
    answered = json.loads(readings["result"].split("content=", 1)[1])
    assert answered == {
        "untitledSingle": "option2", "titledSingle": "value2", "legacyEnum": "opt2",
        "untitledMulti": ["option1", "option3"], "titledMulti": ["value3"],
    }  # fmt: skip


def test_a_sampling_request_is_shown_and_answered_in_the_page(tenants: dict[str, Any]) -> None:
    readings = flow(tenants, "sampling", shot=False)
    assert readings["asked"] == "The server asks for a completion (sampling)"
    assert "What is the capital of France?" in readings["shown"]
    assert readings["unlabeled"] == []
    assert readings["result"] == "Model said: Paris"


def test_a_call_is_cancelled_from_the_page(tenants: dict[str, Any]) -> None:
    readings = flow(tenants, "cancel")
    assert readings["seconds"] == "30"
    assert "of 300" in readings["progressText"]
    assert readings["after"] == "Cancelled."
    assert readings["callEnabled"] is True


def test_an_apps_view_runs_in_a_sandboxed_iframe_and_calls_through_the_page(
    apps: dict[str, Any],
) -> None:
    readings = flow(apps, "view")
    assert readings["sandbox"] == "allow-scripts"  # scripts only: an opaque origin
    assert readings["title"] == "View of sales_chart"
    assert readings["heading"] == "Sales, north"
    assert readings["bars"] == len(readings["structured"]["sales"])
    april = next(s["amount"] for s in readings["structured"]["sales"] if s["month"] == "apr")
    assert readings["after"] == str(april + 15)  # the view's record_sale, relayed by the page
    assert readings["timeline"].count("tools/call") == 2


REMOTE_BLUE: Final = "rgb(11, 87, 208)"  # the remote stylesheet's colour for the view's h1


def test_a_view_that_declares_no_csp_loads_nothing_from_another_origin(
    probe: dict[str, Any],
) -> None:
    readings = flow(probe, "csp", shot=False)["strict_view"]
    assert (ARTIFACTS / "probe-csp-strict_view.png").is_file()
    assert readings["sandbox"] == "allow-scripts"
    assert (readings["fetch"], readings["image"]) == ("refused", "refused")
    assert readings["color"] != REMOTE_BLUE  # the stylesheet linked first in its head too
    assert readings["violations"] == ["connect-src", "img-src", "style-src-elem"]
    assert "connect-src 'none';" in readings["policy"].splitlines()
    assert "img-src 'self' data:;" in readings["policy"].splitlines()
    assert not [asked for asked in probe["_remote"].asked if "view=strict" in asked]


def test_a_view_gets_the_origins_its_csp_declares(probe: dict[str, Any]) -> None:
    readings = flow(probe, "csp", shot=False)["declared_view"]
    assert (ARTIFACTS / "probe-csp-declared_view.png").is_file()
    assert (readings["fetch"], readings["image"]) == ("loaded", "loaded")
    assert readings["color"] == REMOTE_BLUE
    assert readings["violations"] == []
    remote = probe["_remote"]
    declared = sorted(asked for asked in remote.asked if "view=declared" in asked)
    assert declared == ["/data?view=declared", "/pixel.svg?view=declared",
                        "/style.css?view=declared"]  # fmt: skip
    origin = probe["_app"].remote
    lines = readings["policy"].splitlines()
    assert f"connect-src {origin};" in lines
    assert f"img-src 'self' data: {origin};" in lines
    assert "frame-src 'none';" in lines  # what it does not declare stays shut


def test_a_resource_link_in_a_result_is_followed(probe: dict[str, Any]) -> None:
    readings = flow(probe, "link")
    assert readings["blocks"] == ["text", "resource_link"]
    assert REPORT_URI in readings["link"] and "report-7" in readings["link"]
    assert (readings["uri"], readings["contents"]) == (REPORT_URI, REPORT_TEXT)
    newest = readings["timeline"]  # newest first: the read answered after the call
    assert newest.index("resources/read") < newest.index("tools/call")


def test_cancel_in_a_2025_session_sends_notifications_cancelled(probe: dict[str, Any]) -> None:
    readings = flow(probe, "cancel2025")
    assert readings["before"] == {"started": True, "cancelled": False, "cancels": []}
    assert readings["after"] == "Cancelled."
    sent = readings["notification"]
    assert sent["method"] == "notifications/cancelled"
    assert sent["params"]["requestId"] == readings["call"]["id"]
    # the server got the notification for that call, and the tool's task was cancelled
    call = readings["call"]["id"]
    assert readings["server"] == {"started": True, "cancelled": True, "cancels": [call]}
    assert readings["callEnabled"] is True


def test_the_page_keeps_to_accessibility_basics(probe: dict[str, Any]) -> None:
    readings = flow(probe, "a11y")
    for state in ("server", "tool"):
        found = readings[state]
        assert found["lang"] == "en"
        assert found["landmarks"] == ["main", "nav"]
        assert found["levels"][0] == 1 and found["skips"] == [], found["levels"]
        assert found["unnamed"] == found["unlabeled"] == []
        assert found["noAlt"] == 0
        assert found["stops"] >= 10  # the bar, the navigation, the timeline's entries
        assert found["unringed"] == [], found["unringed"]  # every stop shows its focus
