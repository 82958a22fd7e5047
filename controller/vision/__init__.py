"""The table camera: frames, calibration, detection and tracking as pure functions on arrays."""
