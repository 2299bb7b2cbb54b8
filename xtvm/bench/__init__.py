"""Benchmarks and model reports: ``python -m xtvm.bench.models``."""
