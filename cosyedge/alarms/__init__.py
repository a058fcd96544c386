"""Stage 3, alarms: the rules that decide what is said, when, and what became of each alert.

`journal` keeps every accepted message on disk before the broker is acknowledged, `desk`
holds `policy` (with `flood` and the `queue`, most urgent first) behind one lock, `health`
holds the alarm system's own faults.
"""
