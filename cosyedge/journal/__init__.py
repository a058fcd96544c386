"""The journal: an append-only, fsynced record of accepted messages and their outcomes.

A message is acknowledged to the broker only once it is on disk, so after `kill -9` every
alert is either still queued at the broker (not yet acknowledged) or in the journal (accepted,
no outcome yet), and is handled again at the next start. A writer thread commits in groups:
paho's network thread never waits for the disk, and one fsync covers a burst of messages.

Lines are JSON: `in` (a message accepted, with what reading it decided: `said`), `out` (its
outcome and the reports that tell it), `sent` (the broker confirmed those reports), `seen`
(an id recently handled, to recognise a redelivery), `heard` (the last payloads heard on a
topic, to recognise a retained message replayed by the broker), `try` (messages the
announcer began to speak) and `next` (the next sequence number). Alarm state that must
outlive a restart is kept too: `shelf` (a source shelved until a time, or no longer) and
`alarm` (a spoken alarm still unacknowledged: its message and when it is due again, or `end`
once it is settled). When the file grows past a limit it is rewritten with only what is
still open.

Nothing read back is trusted: every line is checked against its record type, and a damaged
one is kept aside in `quarantine.jsonl` beside the journal, reported, and passed over, so one
bad line never stops a start. A last line torn by a crash mid-write is damage like any other:
the message whose `in` line it was (its seq read from the line's start) ends `failed`.

When a write or fsync fails, the writer keeps the records in memory, says so through
its observer, and tries again with backoff by rewriting the whole file (a fresh file, so
pages a failed fsync may have dropped do not matter); the broker acks wait until then.
A file removed or replaced under the open journal is
noticed at the next write or within a second, and is the same trouble: the file is made again
from memory. Sequence numbers are reserved in blocks in `journal.seq`, so losing the journal
never numbers messages from 1 again.
"""

from cosyedge.journal.records import Pending, Recovered, check_record
from cosyedge.journal.store import MAX_TRIES, Journal

__all__ = ["MAX_TRIES", "Journal", "Pending", "Recovered", "check_record"]
