"""Tests of the agents' emulated tools (a package: test_codex.py also exists under tests/collectors)."""
