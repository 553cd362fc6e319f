"""What the suite and the probes share: run configuration, interleaved timing, child processes, generated docroots, baseline servers."""
