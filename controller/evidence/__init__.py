"""Evidence: photo-finish bundles, dispute bundles, and how long bundles are kept.

- `bundles`: `write_bundle` and `verify_bundle` (one decided grab, hash-checked).
- `disputes`: `export_dispute` and `verify_dispute` (a match's chained records
  plus its bundles, checkable anywhere).
- `retention`: deleting old bundles, pinning disputed ones, the full-disk check.
- `clips`: each settled round as a labelled clip (video plus the truth the log
  gives), what `knapp vision eval` measures a table's own camera on; kept by
  the same retention rules.
- `signing`: the table's Ed25519 key, which signs an exported match's record
  count and head hash.

The camera (`controller.vision`) knows nothing of this package: it only keeps
the recent frames (`controller.vision.ring.FrameRing`); this package turns
them into files and ties them to the event store. Nothing is imported here,
so `controller.evidence.retention` loads without OpenCV.
"""
