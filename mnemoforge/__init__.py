"""mnemoforge: build frozen, versioned benchmarks for long-term multimodal agent memory."""

__version__ = "0.1.0"
