"""Stage 3, alarms: the rules that decide what is said, when, and what became of each alert.

`desk` holds `policy` (with `flood` and the `queue`, most urgent first) behind one lock,
`health` the alarm system's own faults, `history` the record of what became of every alarm,
`kpi` and `figures` the ISA-18.2 figures from it; `snapshot` is the daemon's state and what
is shown of it.
"""
