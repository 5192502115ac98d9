"""A BM25 index of short documents (tool and prompt definitions), in Python.

Each document is a key and three fields: its name, its text (title and description) and its
argument names. Words are cut at case changes, digits and punctuation and lowercased
(``getInvoice_v2`` gives ``get``, ``invoice``, ``v``, ``2``), a plural ``s`` dropped, a few
English stop words left out; a word's count in a field is weighted by the field
(:data:`WEIGHTS`: a name counts most). Scores are Okapi BM25 (``k1`` 1.2, ``b`` 0.75),
their per-word part computed once when the index is built, so a query costs one dictionary
look-up per word and one addition per document holding it.

Chosen over SQLite FTS5 (stdlib) by measurement (bench/search.py, bench/RESULTS.md): the
same ranking at a smaller query p99 and memory on 1,000 and 10,000 tools, and a filter of
hidden items that costs nothing (FTS5 has to fetch ``limit + hidden`` rows to drop them).

Pure: no asyncio, no I/O.
"""

from __future__ import annotations

import heapq
import math
import re
from array import array
from collections.abc import Container, Iterable
from typing import Final

__all__ = ["WEIGHTS", "BM25Index", "tokens"]

WEIGHTS: Final = (3.0, 1.0, 2.0)
"""How much a word counts in a document's name, text and argument names."""
_K1: Final = 1.2
_B: Final = 0.75
_WORD: Final = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_STOP: Final = frozenset(
    "a an and are as at be by for from in is it of on or the this that to with".split()
)


def tokens(text: str) -> list[str]:
    """The words of ``text`` the index knows, in order (repeats kept)."""
    words = []
    for word in _WORD.findall(text):
        word = word.lower()
        if word in _STOP:
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        words.append(word)
    return words


class BM25Index:
    """Documents ``(key, name, text, args)``, searched by words; built once, read many times.

    Args:
        documents: each document's key (unique) and its three fields.
    """

    __slots__ = ("_keys", "_postings", "_size")

    def __init__(self, documents: Iterable[tuple[str, str, str, str]]) -> None:
        self._keys: list[str] = []
        lengths = array("d")
        postings: dict[str, tuple[array[int], array[float]]] = {}
        for doc, (key, *texts) in enumerate(documents):  # raw weighted counts first
            count: dict[str, float] = {}
            for weight, text in zip(WEIGHTS, texts, strict=True):
                for word in tokens(text):
                    count[word] = count.get(word, 0.0) + weight
            self._keys.append(key)
            lengths.append(sum(count.values()))
            for word, tf in count.items():
                posting = postings.get(word)
                if posting is None:
                    posting = postings[word] = (array("i"), array("d"))
                posting[0].append(doc)
                posting[1].append(tf)
        size = self._size = len(lengths)
        average = (sum(lengths) / size) if size else 1.0
        norms = array("d", (_K1 * (1 - _B + _B * n / (average or 1.0)) for n in lengths))
        self._postings: dict[str, tuple[float, array[int], array[float]]] = {}
        for word, (docs, parts) in postings.items():  # then each word's part, in place
            for i, doc in enumerate(docs):
                tf = parts[i]
                parts[i] = tf * (_K1 + 1) / (tf + norms[doc])
            idf = math.log(1 + (size - len(docs) + 0.5) / (len(docs) + 0.5))
            self._postings[word] = (idf, docs, parts)

    def __len__(self) -> int:
        return self._size

    def search(
        self, query: str, limit: int, hidden: Container[str] = frozenset()
    ) -> list[tuple[str, float]]:
        """The ``limit`` best ``(key, score)`` for ``query``, best first, none in ``hidden``;
        documents sharing no word with it are not returned."""
        scores: dict[int, float] = {}
        for word in set(tokens(query)):
            found = self._postings.get(word)
            if found is None:
                continue
            idf, docs, parts = found
            for doc, part in zip(docs, parts, strict=True):
                scores[doc] = scores.get(doc, 0.0) + idf * part
        keys = self._keys
        ranked = ((score, -doc) for doc, score in scores.items() if keys[doc] not in hidden)
        return [(keys[-doc], round(score, 4)) for score, doc in heapq.nlargest(limit, ranked)]
