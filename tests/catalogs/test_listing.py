"""``catalogs.listing``: list results built once as pages, with cursors sealed for their list.

Pages of a list are built from its items (not per request); ``nextCursor`` is sealed for the
list method and carries a digest of the items, so a cursor of another list, of another key
or from before a change is refused with -32602 instead of a shifted page. ``PageSets`` keeps
the pages of every item and of each set of hidden items; ``merge_cache`` gives one cache
hint for a whole list.
"""

from __future__ import annotations

import pytest

from genmcp.catalogs.listing import (
    MAX_SUBSETS,
    Pages,
    PageSets,
    hidden_keys,
    merge_cache,
    open_cursor,
)
from genmcp.errors import MCPError
from genmcp.sealing import Sealer

SEALER = Sealer([b"k" * 32])
META = {"io.modelcontextprotocol/serverInfo": {"name": "t", "version": "1"}}


def items(*names: str) -> list[dict[str, str]]:
    return [{"name": name} for name in names]


def pages_of(names: list[str], page_size: int = 2, sealer: Sealer = SEALER) -> Pages:
    return Pages("tools/list", "tools", items(*names), ("public", 60_000), page_size, sealer, META)


def walk(pages: Pages) -> list[list[str]]:
    """Every page's item names, following ``nextCursor`` from the first page."""
    seen, page = [], pages.page(None)
    while True:
        seen.append([item["name"] for item in page["tools"]])
        if "nextCursor" not in page:
            return seen
        page = pages.page(page["nextCursor"])


def test_items_are_cut_into_pages_that_link_by_cursor() -> None:
    pages = pages_of(["a", "b", "c", "d", "e"])
    assert walk(pages) == [["a", "b"], ["c", "d"], ["e"]]
    first = pages.page(None)
    assert (first["resultType"], first["ttlMs"], first["cacheScope"]) == (
        "complete",
        60_000,
        "public",
    )
    assert first["_meta"] == META
    assert pages.page(None) is first  # built once, handed out as it is


def test_an_empty_list_is_one_empty_page() -> None:
    assert walk(pages_of([])) == [[]]


def test_a_cursor_from_before_a_change_says_start_again() -> None:
    old = pages_of(["a", "b", "c"]).page(None)["nextCursor"]
    with pytest.raises(MCPError, match="has changed; start again") as refused:
        pages_of(["a", "b", "x"]).page(old)
    assert refused.value.reason == "bad_cursor"


def test_cursors_of_another_list_or_key_or_none_at_all_are_refused() -> None:
    other_list = Pages(
        "prompts/list", "prompts", items("a", "b", "c"), ("public", 0), 1, SEALER, {}
    )
    with pytest.raises(MCPError, match="Invalid cursor"):
        pages_of(["a", "b", "c"]).page(other_list.page(None)["nextCursor"])
    other_key = pages_of(["a", "b", "c"], sealer=Sealer([b"o" * 32])).page(None)["nextCursor"]
    with pytest.raises(MCPError, match="Invalid cursor"):
        pages_of(["a", "b", "c"]).page(other_key)
    for junk in ("not-a-cursor", 7, SEALER.seal("cursor:tools/list", "not a pair")):
        with pytest.raises(MCPError, match="Invalid cursor"):
            pages_of(["a", "b", "c"]).page(junk)


def test_a_cursor_opens_only_for_its_method() -> None:
    cursor = SEALER.seal("cursor:tools/list", ["v", 1])
    assert open_cursor(SEALER, "tools/list", cursor) == ["v", 1]
    with pytest.raises(MCPError) as refused:
        open_cursor(SEALER, "prompts/list", cursor)
    assert refused.value.reason == "bad_cursor"


def test_page_sets_build_once_per_set_of_hidden_items_until_cleared() -> None:
    built: list[frozenset[str]] = []

    def build(hidden: frozenset[str]) -> Pages:
        built.append(hidden)
        return pages_of([n for n in "abc" if n not in hidden], page_size=10)

    sets = PageSets(build)
    assert [i["name"] for i in sets.page(frozenset(), None)["tools"]] == ["a", "b", "c"]
    assert [i["name"] for i in sets.page(frozenset({"b"}), None)["tools"]] == ["a", "c"]
    sets.page(frozenset(), None)
    sets.page(frozenset({"b"}), None)
    assert built == [frozenset(), frozenset({"b"})]
    sets.clear()
    sets.page(frozenset(), None)
    assert built[-1] == frozenset() and len(built) == 3


def test_page_sets_keep_a_bounded_number_of_filtered_sets() -> None:
    built: list[frozenset[str]] = []

    def build(hidden: frozenset[str]) -> Pages:
        built.append(hidden)
        return pages_of(["a"], page_size=10)

    sets = PageSets(build)
    for n in range(MAX_SUBSETS + 1):
        sets.page(frozenset({f"h{n}"}), None)
    sets.page(frozenset({"h1"}), None)  # dropped when the bound was reached: built again
    assert len(built) == MAX_SUBSETS + 2


def test_hidden_keys_are_those_the_check_refuses() -> None:
    entries = {"a": 1, "b": 2, "c": 3}
    assert hidden_keys(entries, None) == frozenset()
    assert hidden_keys(entries, lambda value: value % 2 == 1) == frozenset({"b"})


@pytest.mark.parametrize(
    ("hints", "merged"),
    [
        ([], ("private", 0)),
        ([("public", 500)], ("public", 500)),
        ([("public", 500), ("public", 200)], ("public", 200)),
        ([("public", 500), ("private", 900)], ("private", 500)),
    ],
)
def test_one_cache_hint_for_a_list_public_only_if_every_item_is(
    hints: list[tuple[str, int]], merged: tuple[str, int]
) -> None:
    assert merge_cache(hints) == merged
