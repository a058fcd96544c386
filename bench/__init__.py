"""Benchmarks: numbers measured side by side in one run, printed and written to bench/results/.

`python -m bench` (or `scripts/bench`): speech, cosyedge's voices next to each engine family's
own runtime. `python -m bench.cache`: the phrase cache. `python -m bench.alarms`: alarm
handling.
"""
