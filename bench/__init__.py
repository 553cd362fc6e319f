"""Guide's benchmark suite: `python -m bench` (see BENCHMARKS.md)."""
