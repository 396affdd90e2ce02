"""The identity-centric album family (ICM-Bench style): world, album, render, captions, questions."""
