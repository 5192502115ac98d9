"""protocol.icons: Icon objects checked when built, each refusal naming its owner and place."""

from __future__ import annotations

from typing import Any

import pytest

from genmcp.protocol.icons import checked_icons

PNG = "data:image/png;base64,iVBORw0KGgo="


def test_none_stays_none_and_good_icons_are_copied() -> None:
    assert checked_icons(None, "T") is None
    sizes = ("48x48", "any")
    icons = [
        {"src": "https://cdn.example/i.png", "mimeType": "image/png", "sizes": sizes},
        {"src": "data:image/PNG;base64,iVBORw0KGgo=", "mimeType": "image/png", "theme": "dark"},
        {"src": "data:image/svg+xml;charset=utf-8;base64,PHN2Zy8+"},
    ]
    checked = checked_icons(icons, "T")
    assert checked == [{**icons[0], "sizes": ["48x48", "any"]}, icons[1], icons[2]]
    assert checked is not None and checked[1] is not icons[1]  # copies


@pytest.mark.parametrize(
    ("icons", "message"),
    [
        ("https://x.example/i.png", "T: icons must be a list of Icon objects"),
        ({"src": "https://x"}, "T: icons must be a list"),
        (["https://x.example/i.png"], r"T: icons\[0\] must be an object with src"),
        ([{"src": "https://x.example/a", "size": "1x1"}], r"icons\[0\] has unknown key\(s\) size"),
        ([{}], r"T: icons\[0\] needs src"),
        ([{"src": ""}], "needs src"),
        ([{"src": "http://x.example/i.png"}], "must use https: .with a host. or data:"),
        ([{"src": "https:///i.png"}], "must use https:"),
        ([{"src": "javascript:alert(1)"}], "must use https:"),
        ([{"src": "https://x.example/a b"}], "must not contain whitespace"),
        ([{"src": "data:text/html;base64,PGI+"}], "a data: URI must be data:image/<type>;base64"),
        ([{"src": "data:image/png,raw"}], "a data: URI must be"),
        ([{"src": "data:image/png;base64,!!"}], "base64 does not decode"),
        ([{"src": PNG, "mimeType": "image/gif"}], "'image/gif' contradicts its data: URI"),
        ([{"src": "https://x.example/a", "mimeType": "text/plain"}], "image/<subtype>"),
        ([{"src": "https://x.example/a", "mimeType": "IMAGE/PNG"}], "image/<subtype>"),
        ([{"src": "https://x.example/a", "sizes": "48x48"}], "sizes must be a list"),
        ([{"src": "https://x.example/a", "sizes": ["48"]}], "'48' is neither WxH nor 'any'"),
        ([{"src": "https://x.example/a", "sizes": ["0x48"]}], "neither WxH"),
        ([{"src": "https://x.example/a", "sizes": ["123456x1"]}], "neither WxH"),
        ([{"src": "https://x.example/a", "theme": "blue"}], "theme must be 'light' or 'dark'"),
        ([{"src": "https://x.example/a"}, {"src": 5}], r"T: icons\[1\] needs src"),
    ],
)
def test_bad_icons_are_refused_naming_the_place(icons: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        checked_icons(icons, "T")
