"""Reading a long text takes time in proportion to its length, whatever it is made of: a run
of single digits joined by dashes or slashes (a bit pattern or a path cut short) once took
seconds for 200 characters and minutes for 400."""

from __future__ import annotations

import time

import pytest
from sizes import sized

from cosyedge.speech.lang import split_runs
from cosyedge.speech.text.english import normalize
from cosyedge.speech.voices.hibari import MAX_JOINTS, unjoined

ORDINARY = "Pump P-101 tripped at 14:05, pressure 5.5 bar, level 80 % in tank T-3, see ticket 7. "
# Runs an alert made by a program can hold, each repeated to the length tested.
SHAPES = [
    "1-", "1/", "1-0-", "1.", "1:", "1,", "- 1 ", "1 ", "12 ", "1-1 ", "a-", "ab-", "A/",
    "1+", "1x", "0.", "1;", "(", "1%", "$1", "1e", "a.",
    "T1 ", "1~", "1..", "0b1", "SN1", "1.000.", "14:05+", "20261130 ", "T-1 ",
    "0x", "x1", '3/4" ', "1A ", "3h40m ", "1:2:", "Pump 3 ", "H2S ", "5k ", "PM2.5 ",
]  # fmt: skip
# How much slower than an ordinary text of the same length a run may read (it reads in a few
# hundredths of a second at 1,000 characters; a super-linear path takes seconds).
SLOWER = 20
# The lengths read: the suite's show each property (a path that grows as the square of the
# length reads 16 times slower at four times the length, past any limit below); scripts/prove
# reads twice as much (tests/sizes.py).
RUN = sized(1_000, 2_000)
LONG = sized(5_000, 10_000)


def _seconds(read, text: str, clock=time.thread_time, under: float = 0.0, times: int = 3) -> float:
    """The best of `times` readings of `text`, timed by `clock`: by default the CPU time of
    this thread, which other processes on a busy machine do not add to as they do to wall
    time. Stops at the first reading under `under`: whether the best of them all is under it
    is then known, and a reading checked against a limit rarely needs the others."""
    best = float("inf")
    for _ in range(times):
        start = clock()
        read(text)
        best = min(best, clock() - start)
        if best < under:
            break
    return best


def _within(read, text: str, limit: float, clock=time.thread_time) -> bool:
    """Whether the best of three readings of `text` takes less than `limit` seconds."""
    return _seconds(read, text, clock, under=limit) < limit


def _long(piece: str, length: int) -> str:
    return (piece * (length // len(piece) + 1))[:length]


@pytest.mark.parametrize("prefix", ["", "Bits "])
def test_runs_read_about_as_fast_as_ordinary_text(prefix):
    ordinary = _seconds(normalize, _long(ORDINARY, RUN))
    for shape in SHAPES:
        text, limit = prefix + _long(shape, RUN), SLOWER * ordinary + 0.05
        assert _within(normalize, text, limit), shape
        assert _within(lambda t: split_runs(t, "en"), text, limit), shape


def test_long_runs_read_in_proportion_to_their_length():
    ordinary = _seconds(normalize, _long(ORDINARY, LONG))
    for shape in ("1-", "1/", "1-0-", "a-", "ab-", "- 1 ", "1:"):
        assert _within(normalize, _long(shape, LONG), SLOWER * ordinary), shape


# Runs whose reading once grew as the square of their length: an inch mark after a fraction
# counted the quotes from the text's start to decide whether a quotation was open.
SQUARED = ['3/4" ', '1" ', "0x", "x1", "1A ", "3h40m ", "1:2:3:4:5 "]


@pytest.mark.parametrize("shape", SQUARED)
def test_four_times_the_run_reads_in_about_four_times_the_time(shape):
    """CPU time, best of three each: LONG / 2 characters, then twice LONG (a square is 16
    times)."""
    short = _seconds(normalize, _long(shape, LONG // 2), time.process_time)
    long = _seconds(normalize, _long(shape, 2 * LONG), time.process_time, 8 * short + 0.05)
    assert long < 8 * short + 0.05, (shape, short, long)


def test_a_word_of_many_joined_pieces_is_given_to_the_g2p_as_its_pieces():
    assert unjoined("one-one-one") == "one-one-one"  # a compound or a code: as written
    ones = ["one"] * (MAX_JOINTS + 2)
    assert unjoined(f"bits {'-'.join(ones)}- end") == f"bits {' '.join(ones)} end"
    assert unjoined("a/b/c/d/e/f/g/h/i") == "a b c d e f g h i"
    markup = "[x-x-x-x-x-x-x-x-x](/ɛks/)"
    assert unjoined(markup) == markup  # a site lexicon's entry is left whole
    assert unjoined(f"a {markup}b") == f"a {markup}b"
    # Runs of letters, digits and marks: a word of more than MAX_RUNS of them as its runs.
    assert unjoined("hash 9f86d081") == "hash 9f86d081"
    assert unjoined("x " + "1e" * 9) == "x " + " ".join(["1", "e"] * 9)
    assert unjoined("(" * 9 + "one" + ")" * 9) == " ".join(["("] * 9 + ["one"] + [")"] * 9)
    assert unjoined(f"{'(' * 20}{markup}") == "( " * 19 + "(" + markup


@pytest.fixture(scope="module")
def phonemes():
    """The voice's G2P reading a text to phonemes, made once for the file's tests (hibari's
    lexicons read in half a second of CPU each time one is made)."""
    from hibari.g2p import G2P

    from cosyedge.speech.lexicon import NO_LEXICON
    from cosyedge.speech.voices.hibari import HibariG2P

    g2p = HibariG2P(G2P(oov=False))

    def read(text: str) -> None:
        list(g2p.units(normalize(text), NO_LEXICON, []))

    return read


def test_hibaris_g2p_reads_a_long_joined_run_about_as_fast_as_ordinary_text(phonemes):
    ordinary = _seconds(phonemes, _long(ORDINARY, RUN // 5))
    for shape in ("1-", "1/", "1-0-", "a-", "1:"):
        assert _within(phonemes, _long(shape, RUN // 5), SLOWER * ordinary), shape


# Runs whose words once took the voice's G2P time growing as a power of their length: a word
# of many runs of letters and digits (`1e1e…`, a hex checksum, brackets nested), and a long
# sentence of short words (digits, a dotted run, an address repeated), whose cut into steps
# counted the pieces left from every space anew.
GROWING = [
    ("", "1e", 100), ("Checksum mismatch: ", "3e5e", 100), ("", "(", 1000), ("", "1", 2000),
    ("", "1.", 2000), ("", "192.168.1.", 1000), ("0x", "F", 2000), ("Bits ", "a(b", 300),
]  # fmt: skip


@pytest.mark.parametrize(("prefix", "shape", "length"), GROWING)
def test_hibaris_g2p_reads_four_times_the_text_in_about_four_times_the_time(
    phonemes, prefix, shape, length
):
    # The best of three runs of each, timed by this thread's CPU: other work on the machine
    # (tests run in parallel) does not add to it as it does to wall time.
    length = sized(length // 2, length)
    short = _seconds(phonemes, prefix + _long(shape, length))
    long = _seconds(phonemes, prefix + _long(shape, 4 * length), under=8 * short + 0.02)
    # In proportion: about 4 times; a square would be 16, a cube 64. The constant allows for
    # the clock's grain on a short text.
    assert long < 8 * short + 0.02, (shape, short, long)


# Runs of Chinese punctuation, as a phrase of nothing else or padding may hold them.
CJK_MARKS = ["\uff0c", "\u3002", "\u3001", "\uff1a", "\uff01", "\uff1f", "\uff1b"]
CJK_MARKS += ["\uff08\uff09", "\u3010\u3011", "\u62a5\u8b66\uff0c"]


@pytest.mark.parametrize("marks", CJK_MARKS)
def test_a_run_of_chinese_punctuation_splits_in_proportion_to_its_length(marks):
    """Four times the run in about four times the time (it was sixteen: every mark of the run
    scanned the rest of it for a Chinese character)."""

    def split(text: str, under: float = 0.0) -> float:
        # The best of six: the machine is shared, and one slow pass is no trend.
        return _seconds(lambda t: split_runs(t, "zh"), text, under=under, times=6)

    short = split(_long(marks, RUN * 2))
    long = split(_long(marks, RUN * 8), 8 * short + 0.5)
    # A quadratic split took seconds at 16,000 marks; half a second absorbs a busy machine.
    assert long < 8 * short + 0.5, marks


def test_a_long_text_of_clock_forms_reads_about_as_fast_as_ordinary_text():
    """Each clock form repeated to LONG characters reads within a small multiple of the time
    an ordinary alert of that length takes (a rule backtracking over the text takes many
    times more): CPU time, best of two, as other work shares the machine."""
    ordinary = _seconds(normalize, _long(ORDINARY, LONG), time.process_time)
    for piece in ("at 1400 ", "1400-", "for 1:30:00 ", "PT1H", "P1D", "01.12.", "on 1/2 ", "45m "):
        assert _within(normalize, _long(piece, LONG), 20 * ordinary, time.process_time), piece
