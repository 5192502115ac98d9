"""``BM25Index``: words cut as names are written, a name counts most, hidden keys never come
back, and a query sharing no word with any document finds nothing."""

from __future__ import annotations

from genmcp.search.index import BM25Index, tokens

DOCS = [
    ("tool:getInvoice", "getInvoice", "Fetch one invoice by its number.", "invoice_id"),
    ("tool:list_customers", "list_customers", "Every customer of the account.", "page cursor"),
    ("tool:refund", "refund", "Give the money of an invoice back.", "invoice_id amount"),
    ("tool:weather", "weather", "The forecast for a city.", "city days"),
]


def test_words_are_cut_at_case_changes_digits_and_punctuation() -> None:
    assert tokens("getInvoice_v2 HTTPServer") == ["get", "invoice", "v", "2", "http", "server"]
    assert tokens("the invoices of a customer") == ["invoice", "customer"]  # stop words, plural


def test_a_name_match_ranks_first_and_arguments_are_searched() -> None:
    index = BM25Index(DOCS)
    assert next(key for key, _ in index.search("invoice", 10)) == "tool:getInvoice"
    assert {key for key, _ in index.search("invoice", 10)} == {"tool:getInvoice", "tool:refund"}
    assert [key for key, _ in index.search("city", 10)] == ["tool:weather"]  # an argument
    assert index.search("zebra", 10) == []
    assert len(index) == 4


def test_hidden_keys_never_come_back_and_the_limit_holds() -> None:
    index = BM25Index(DOCS)
    hidden = {"tool:getInvoice"}
    assert [key for key, _ in index.search("invoice", 10, hidden)] == ["tool:refund"]
    assert len(index.search("invoice customer city", 2)) == 2


def test_an_empty_index_finds_nothing() -> None:
    assert BM25Index([]).search("anything", 5) == []
