"""Speech benchmark: cosyedge's voices side by side with each engine family's own runtime.

Run `python -m bench` (or `scripts/bench`); see bench/__main__.py for options. Speed goals are
ratios measured interleaved in one run, so a busy machine slows both sides alike.
"""
