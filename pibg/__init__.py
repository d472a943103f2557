"""pibg: a Raspberry Pi and a camera as a referee for backgammon on a real board."""

__version__ = "0.1.0"
