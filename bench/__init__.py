"""Benchmarks: numbers measured side by side in one run, printed and written to bench/results/."""
