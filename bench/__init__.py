"""Benchmarks. `python -m bench` (or `scripts/bench`): speech, cosyedge's voices side by side
with each engine family's own runtime; `python -m bench.cache`: the phrase cache. Speed goals
are ratios measured interleaved in one run, so a busy machine slows both sides alike.
"""
