"""Knapp daneben table referee.

Importing this package has no side effects and needs no hardware library:
`picamera2`, `lgpio` and friends are imported only where they are used.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
