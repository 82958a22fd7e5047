"""Fusion of sensor reports into grabs for the match referee.

The pads tell which figure left and exactly when; the camera (or the table,
when there is no camera) tells who took it. `Fusion` pairs the two and hands
`grab` calls to the `Match`.
"""

from controller.referee.fusion import Attribution, Fusion, PendingLift

__all__ = ["Attribution", "Fusion", "PendingLift"]
