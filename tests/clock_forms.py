"""Generators of the clock times, lengths of time and day-first dates of en-9 (the classes of
cosyedge/speech/text/clocks.py and daydates.py), each drawing a written form and its parts;
the expected reading is made from the parts by the reference verbalizer (reference_en.py),
never by the normalizer."""

from __future__ import annotations

from hypothesis import assume
from hypothesis import strategies as st
from reading_forms import DAYS_IN_MONTH, Form

# Words that say a time of day follows, as written before the time (never a year's word:
# a year there is left as written).
TIME_CUES = ("at ", "Trip at ", "ETA ", "Time: ", "time: ", "@", "Shift ends ", "until ")
# Marks after four digits that say they are a time, and what is said for each.
TIME_MARKS = {" hrs": " hours", "hrs": " hours", " hours": " hours", "Z": " U T C"}
TIME_MARKS |= {" UTC": " U T C", " CET": " Central European Time"}
LENGTH_WORDS = ("offline for ", "elapsed ", "Downtime: ", "uptime ", "duration ", "Wait ")
LENGTH_WORDS += ("runtime=", "idle ", "for ", "Elapsed: ")


@st.composite
def military_times(draw) -> Form:
    """Four digits, a time: after a word of time, or with a mark after (`at 1900`, `1405Z`,
    `Shift ends 1400 hrs`), or two of them as a range (`from 0600 to 1400`). Parts: (the
    cue, [(hours, minutes), ...], the joint's word, the mark's words)."""
    times = draw(
        st.lists(st.tuples(st.integers(0, 23), st.integers(0, 59)), min_size=1, max_size=2)
    )
    cue = draw(st.sampled_from(["", *TIME_CUES]))
    mark = draw(st.sampled_from(["", *TIME_MARKS]))
    assume(cue or mark)
    # After a word that may start a year (until), a year is left as written (since 2020).
    years = all(1900 <= h * 100 + mi <= 2059 for h, mi in times)
    assume(not (cue == "until " and not mark and years))
    joint = draw(st.sampled_from(["-", " to ", " until "]))
    written = (" " + joint.strip() + " " if joint != "-" else "-").join(
        f"{h:02d}{mi:02d}" for h, mi in times
    )
    said_joint = "to" if joint == "-" else joint.strip()
    return Form(cue + written + mark, (cue, times, said_joint, TIME_MARKS.get(mark, "")))


@st.composite
def clock_lengths(draw) -> Form:
    """A length of time in clock notation after a word of length (`offline for 00:05:30`,
    `Wait 05:30 min`), or with more hours than a day has (`123:45:00`). Parts: (the word,
    [(amount, unit word), ...])."""
    kind = draw(st.sampled_from(["hms", "hm", "ms", "long"]))
    hours, minutes, seconds = (
        draw(st.integers(0, 99)),
        draw(st.integers(0, 59)),
        draw(st.integers(0, 59)),
    )
    if kind == "long":
        hours = draw(st.integers(25, 999))
        written = f"{hours}:{minutes:02d}:{seconds:02d}"
        return Form(
            written,
            ("", [(str(hours), "hour"), (str(minutes), "minute"), (str(seconds), "second")]),
        )
    word = draw(st.sampled_from(LENGTH_WORDS))
    pad = draw(st.sampled_from(["{:d}", "{:02d}"]))
    if kind == "hms":
        written = f"{pad.format(hours)}:{minutes:02d}:{seconds:02d}"
        parts = [(str(hours), "hour"), (str(minutes), "minute"), (str(seconds), "second")]
    elif kind == "hm":
        written = f"{pad.format(hours)}:{minutes:02d}"
        parts = [(str(hours), "hour"), (str(minutes), "minute")]
    else:
        written = f"{pad.format(minutes)}:{seconds:02d} " + draw(st.sampled_from(["min", "mins"]))
        parts = [(str(minutes), "minute"), (str(seconds), "second")]
    return Form(word + written, (word, parts))


@st.composite
def minutes_written_m(draw) -> Form:
    """A small m after a number after a word of length, or before ago (`Downtime: 45m`,
    `Stopped 5m ago`). Parts: (before, amount, after)."""
    amount = str(draw(st.integers(0, 999)))
    space = draw(st.sampled_from(["", " "]))
    if draw(st.booleans()):
        word = draw(st.sampled_from(["Downtime: ", "idle ", "ran ", "elapsed ", "wait ", "for "]))
        return Form(f"{word}{amount}{space}m", (word, amount, ""))
    return Form(f"Stopped {amount}{space}m ago", ("Stopped ", amount, " ago"))


_ISO_DATE = (("Y", "year"), ("M", "month"), ("W", "week"), ("D", "day"))
_ISO_TIME = (("H", "hour"), ("M", "minute"), ("S", "second"))


@st.composite
def iso_durations(draw) -> Form:
    """An ISO 8601 duration with its time part (`PT5M`, `PT1H30M`, `P1DT2H`) or two date
    parts (`P1Y2M`). Parts: [(amount, unit word), ...]."""
    date_units = draw(st.lists(st.sampled_from(_ISO_DATE), unique=True, max_size=2))
    time_units = draw(st.lists(st.sampled_from(_ISO_TIME), unique=True, max_size=3))
    assume(time_units or len(date_units) > 1)
    date_units.sort(key=_ISO_DATE.index)
    time_units.sort(key=_ISO_TIME.index)
    amounts = draw(st.lists(st.integers(0, 99), min_size=5, max_size=5))
    written, parts = "P", []
    for (letter, word), amount in zip(date_units, amounts, strict=False):
        written += f"{amount}{letter}"
        parts.append((str(amount), word))
    written += "T" if time_units else ""
    for (letter, word), amount in zip(time_units, amounts[2:], strict=False):
        written += f"{amount}{letter}"
        parts.append((str(amount), word))
    return Form(written, tuple(parts))


@st.composite
def dotted_short_years(draw) -> Form:
    """A date day first with dots and a two-digit year (`31.12.26`, `1.1.27`). Parts: (year,
    month, day)."""
    month = draw(st.integers(1, 12))
    day = draw(st.integers(1, DAYS_IN_MONTH[month - 1]))
    short = draw(st.integers(0, 99))
    assume(not (month == 2 and day == 29 and short % 4))
    pad = draw(st.sampled_from(["{:d}", "{:02d}"]))
    return Form(f"{pad.format(day)}.{pad.format(month)}.{short:02d}", (2000 + short, month, day))


@st.composite
def shares_after_on(draw) -> Form:
    """A pair after "on" that can be a share (`Trip on 2/3 voting`, `open on 3/4`): a count
    of a whole, no date. Parts: (numerator, denominator)."""
    bottom = draw(st.sampled_from([2, 3, 4, 8]))
    top = draw(st.integers(1, bottom - 1))
    return Form(f"on {top}/{bottom}", (top, bottom))
