"""The benchmark suite B1-B11: one module per benchmark, each against a baseline in the same run (`python -m bench`; B11 on its own)."""
