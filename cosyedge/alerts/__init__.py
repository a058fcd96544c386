"""Stage 2, alerts: payload → alert, and the alarm rules that decide what is said and when.

`alert` decodes and validates payloads, `journal` keeps every accepted message on disk
before the broker is acknowledged, `desk` holds `policy` (with `flood` and operator
`commands`) behind one lock.
"""
