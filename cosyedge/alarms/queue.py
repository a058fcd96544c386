"""The announcement queue: most urgent first, first come first within a priority.

Items can be withdrawn (acknowledged, cleared, shelved, expired, gathered into a flood
summary) and change priority while they wait, so the heap holds (rank, order) keys and the
dict holds the truth; stale heap keys are skipped when they reach the top.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from typing import Generic, Protocol, TypeVar


class Queueable(Protocol):
    @property
    def rank(self) -> int: ...  # 0 is the most urgent

    @property
    def order(self) -> int: ...  # unique; lower came first


T = TypeVar("T", bound=Queueable)


class AnnounceQueue(Generic[T]):
    def __init__(self) -> None:
        self._heap: list[tuple[int, int]] = []
        self._items: dict[int, T] = {}

    def push(self, item: T) -> None:
        self._items[item.order] = item
        heapq.heappush(self._heap, (item.rank, item.order))

    def reranked(self, item: T) -> None:
        """Call after an item's rank changed while it waits."""
        if item.order in self._items:
            heapq.heappush(self._heap, (item.rank, item.order))

    def remove(self, item: T) -> None:
        self._items.pop(item.order, None)
        if len(self._heap) > 64 and len(self._heap) > 4 * len(self._items):
            self._heap = [(i.rank, i.order) for i in self._items.values()]
            heapq.heapify(self._heap)

    def __contains__(self, item: T) -> bool:
        return self._items.get(item.order) is item

    def peek(self) -> T | None:
        heap = self._heap
        while heap:
            rank, order = heap[0]
            item = self._items.get(order)
            if item is not None and item.rank == rank:
                return item
            heapq.heappop(heap)
        return None

    def pop(self) -> T | None:
        item = self.peek()
        if item is not None:
            heapq.heappop(self._heap)
            del self._items[item.order]
        return item

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[T]:
        return iter(list(self._items.values()))
