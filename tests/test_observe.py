"""The one observer interface: a listener added late, while tellers tell from other threads,
catches up on what the start told exactly once, in order."""

from __future__ import annotations

import logging
import threading

from cosyedge.observe import Observer, Observers


class Counting(Observer):
    def __init__(self) -> None:
        self.told: list[str] = []

    def accepted(self, via: str) -> None:
        self.told.append(via)


def tell_from_threads(observers: Observers, tellers: int, each: int) -> list[threading.Thread]:
    threads = [
        threading.Thread(target=lambda n=n: [observers.accepted(f"t{n}-{i}") for i in range(each)])
        for n in range(tellers)
    ]
    for thread in threads:
        thread.start()
    return threads


def test_a_listener_added_while_others_tell_hears_each_telling_once_in_each_teller_s_order():
    observers = Observers(remember=100_000)
    threads = tell_from_threads(observers, tellers=4, each=5_000)
    late = Counting()
    observers.add(late, catch_up=True)  # while the tellers are at it
    for thread in threads:
        thread.join()
    observers.settle()
    told = late.told
    assert sorted(told) == sorted(f"t{n}-{i}" for n in range(4) for i in range(5_000))
    for n in range(4):
        mine = [int(v.split("-")[1]) for v in told if v.startswith(f"t{n}-")]
        assert mine == sorted(mine)


def test_a_listener_added_without_catching_up_or_after_settle_hears_only_what_follows():
    observers = Observers(remember=10)
    observers.accepted("before")
    plain, after = Counting(), Counting()
    observers.add(plain)
    observers.settle()
    observers.add(after, catch_up=True)
    observers.accepted("later")
    assert plain.told == ["later"] and after.told == ["later"]


def test_past_what_it_remembers_it_says_that_late_listeners_missed_some(caplog):
    observers = Observers(remember=3)
    for i in range(5):
        observers.accepted(str(i))
    late = Counting()
    observers.add(late, catch_up=True)
    with caplog.at_level(logging.WARNING, logger="cosyedge.observe"):
        observers.settle()
    assert late.told == ["0", "1", "2"] and observers.forgotten == 2
    assert "2 events of the start came after the first 3 kept" in caplog.text
