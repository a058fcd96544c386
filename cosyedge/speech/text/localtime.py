"""A timestamp written in UTC, said in the site's local time when the site asks for it
(`local_time_zone`): `2024-05-01T23:30:00Z` in Asia/Shanghai is said as 2024-05-02 07:30:00,
which each language then reads as any date and time.

Only a timestamp with its date is converted: its local time is fixed by the date and the
zone's rules, so a phrase always reads the same (and its cached audio stays right). A time
in UTC without a date is said as UTC ("U T C", 协调世界时): what hour it is here would
depend on the day it is said, as daylight saving time comes and goes.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from cosyedge.speech import rx
from cosyedge.speech.text.plant import COMPACT_TIMESTAMP, compact_timestamp
from cosyedge.speech.text.zones import WORD_OFFSET, is_range_end, offset_minutes

# The zone is UTC written as Z or as the word (`08:30 UTC`), or a numeric offset from it
# (`+08:00`, `-0500`): the time converted is the written one less the offset.
TIMESTAMP = rx.compile(
    r"(?<![\d.])(\d{4})-(\d{1,2})-(\d{1,2})([T ])(\d{1,2}):(\d{2})(?::(\d{2})(\.\d+)?)?"
    rf"(Z|{WORD_OFFSET}|[+-]\d{{2}}:?\d{{2}})(?![A-Za-z0-9]|:\d)"
)


def _offset(zone: str) -> timedelta:
    """`+08:00` → eight hours, `-0530` → minus five and a half, `UTC+8` → eight hours, Z or
    UTC → none; ValueError for an offset no clock has (`+23:99`)."""
    minutes = offset_minutes(zone)
    if minutes is None:
        raise ValueError(f"no such offset: {zone}")
    return timedelta(minutes=minutes)


def _local(m: re.Match[str], zone: ZoneInfo) -> str:
    """The timestamp in `zone`'s local time; one that cannot be converted (no such date, a
    leap second `23:59:60Z`, a local time past the last year a date can hold) is left as
    written, so it is read in UTC, never raised."""
    year, month, day, joint, hours, minutes, seconds, fraction, written_zone = m.groups()
    stamp = m.group(0)[: m.start(9) - m.start()]
    if is_range_end(stamp, written_zone[0], written_zone):
        return m.group(0)  # 2026-11-30 08:00-09:30: a range of times (zones.py), not converted
    try:
        written = datetime(
            int(year), int(month), int(day), int(hours), int(minutes), int(seconds or 0), tzinfo=UTC
        )
        local = (written - _offset(written_zone)).astimezone(zone)
    except (ValueError, OverflowError):
        return m.group(0)  # left for the rules to read as written, in UTC
    # The year padded by hand: strftime writes year 1 as "1", which no date rule reads.
    said = f"{local.year:04d}-{local:%m-%d}{joint}{local:%H:%M}"
    return said + (f":{local:%S}{fraction or ''}" if seconds else "")


def in_local_time(text: str, zone: str | None) -> str:
    """`text` with every dated timestamp in UTC or with an offset from it (`Z`, `UTC`,
    `+08:00`, `UTC+8`) in `zone`'s local time (none: as it is); a
    compact one (`20261130T074500Z`) is given its separators first, as the rules read it.
    Never raises for any text: a timestamp that cannot be converted stays in UTC."""
    if zone is None:
        return text
    found = ZoneInfo(zone)  # the configuration has checked it (cached by zoneinfo)
    text = COMPACT_TIMESTAMP.sub(compact_timestamp, text)
    return TIMESTAMP.sub(lambda m: _local(m, found), text)
