"""The start's wait for a load it cannot cut short: judged on the loading thread's own work as
the kernel counts it, with real threads that sleep, read and compute."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from cosyedge.faults import read_slowly
from cosyedge.service.loadwait import LoadWait, Work, thread_work

WINDOW_S = 0.4


def spin(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def loading(work: Callable[[], None]) -> threading.Thread:
    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    return thread


def wait_for(thread: threading.Thread, by_in_s: float, limit_s: float = 60.0) -> LoadWait:
    assert thread.native_id is not None
    now = time.monotonic()
    return LoadWait(thread.native_id, now, now + by_in_s, WINDOW_S, limit_s)


def judged(wait: LoadWait, until_s: float) -> tuple[str | None, list[float]]:
    """Ticks `wait` every 50 ms until it gives up or `until_s` pass: the reason and the
    extensions it gave."""
    end, extended = time.monotonic() + until_s, []
    while time.monotonic() < end:
        why = wait.check(time.monotonic())
        extended += [wait.extended] if wait.extended else []
        if why is not None:
            return why, extended
        time.sleep(0.05)
    return None, extended


def test_the_kernel_counts_a_threads_cpu_and_reads_as_its_own():
    stop = threading.Event()
    idle = loading(stop.wait)
    assert idle.native_id is not None
    before = thread_work(idle.native_id)
    spin(0.3)  # this thread's work, not the idle one's
    read_slowly(0.2)
    after = thread_work(idle.native_id)
    assert before is not None and after is not None
    assert not after.since(before).worked(), after.since(before)
    mine = thread_work(threading.get_native_id())
    assert mine is not None and mine.cpu_s >= 0.3 and mine.read_bytes >= 64 * 1024
    stop.set()
    assert thread_work(0) is None  # no such thread: the kernel does not say


def test_a_hung_load_is_given_up_on_at_its_deadline():
    hung = loading(lambda: time.sleep(30))  # blocked, as in a read of hung storage
    why, extended = judged(wait_for(hung, 0.6), 5)
    assert why is not None and "the load hangs" in why and not extended


@pytest.mark.parametrize(
    "work",
    [lambda: read_slowly(3), lambda: spin(1.5)],
    ids=["reading-slowly", "computing"],
)
def test_a_working_load_is_waited_for_a_window_at_a_time(work):
    thread = loading(work)
    wait = wait_for(thread, 0.6)
    why, extended = judged(wait, 1.2)
    assert why is None, why
    assert extended and all(e == WINDOW_S for e in extended)
    assert wait.by > time.monotonic() - 0.1  # still waited for


def test_a_load_that_stops_working_is_given_up_on_one_window_later():
    def work_then_hang() -> None:
        read_slowly(1.0)
        time.sleep(30)

    why, extended = judged(wait_for(loading(work_then_hang), 0.4), 8)
    assert extended, "it was working at first"
    assert why is not None and "the load hangs" in why


def test_the_limit_ends_even_a_working_load():
    wait = wait_for(loading(lambda: read_slowly(5)), 0.4, limit_s=1.5)
    why, extended = judged(wait, 4)
    assert why is not None and "still working" in why and extended
    assert time.monotonic() - wait.began < 2.5


def test_a_deadline_already_over_leaves_a_whole_window_to_judge_by():
    """The last good configuration shares the file's deadline: its own load, started after
    that deadline, is still judged over a window of its own, not at once."""
    thread = loading(lambda: read_slowly(2))
    assert thread.native_id is not None
    now = time.monotonic()
    wait = LoadWait(thread.native_id, now, now - 5, WINDOW_S, 60)
    assert wait.check(time.monotonic()) is None
    why, extended = judged(wait, 1.0)
    assert why is None and extended


def test_work_counts_cpu_or_reading():
    assert Work(0.06, 0).worked() and Work(0.0, 65536).worked()
    assert not Work(0.01, 1000).worked()
