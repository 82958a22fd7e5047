"""The café fleet: tables publish their records to an MQTT broker, a café service keeps them.

Each table stays the source of truth for its own matches and rooms (its
SQLite file). The table side (`controller.fleet.table`) tails that file's
hash-chained logs and publishes every record at QoS 1, in order, to the
café's Mosquitto broker; the café side (`controller.fleet.cafe`, started by
`knapp fleet serve`) verifies each record against its chain, ingests it into
PostgreSQL exactly once, and serves the staff pages. docs/fleet.md has the
whole design.

This package's `__init__` imports nothing: `controller.config` reads the
`[fleet]` section through `controller.fleet.config`, and neither paho-mqtt
nor psycopg may load unless a fleet link is actually started.
"""
