"""arena-gen: generate, verify, freeze, run and score hidden-rule agent benchmarks."""

__version__ = "0.1.0"
