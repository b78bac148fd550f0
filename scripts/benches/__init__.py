"""The benchmark groups of scripts/bench.py, one module per area."""
