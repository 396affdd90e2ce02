"""Seeded randomness derived from (seed, item keys), never from global state or execution order."""

from __future__ import annotations

import hashlib
import random


def derive_seed(seed: int, *keys: object) -> int:
    """A 64-bit seed for one item: stable across processes, executors and Python versions."""
    material = "\x1f".join([str(seed), *map(str, keys)]).encode()
    return int.from_bytes(hashlib.blake2b(material, digest_size=8).digest(), "big")


def derive_rng(seed: int, *keys: object) -> random.Random:
    """A private ``random.Random`` for one item; pass it down, never share it across items."""
    return random.Random(derive_seed(seed, *keys))
