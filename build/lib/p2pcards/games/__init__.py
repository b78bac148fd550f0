"""Game rules: pure, deterministic engines (no crypto, no I/O, no randomness)."""
