"""Evaluate memory systems on a frozen release (see runner.evaluate)."""
