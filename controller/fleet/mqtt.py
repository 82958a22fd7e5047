"""One way to build a paho-mqtt client for the fleet: MQTT 5, the VERSION2 callbacks.

paho-mqtt is imported here and in the modules that run a link, never at
`import controller`. The client keeps reconnecting by itself (its network
loop runs in paho's own thread); a broker that is down at start is only a
status until it comes up.
"""

from __future__ import annotations

from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from controller.fleet.config import BrokerConfig

KEEPALIVE_S = 15
RECONNECT_MIN_S = 1
RECONNECT_MAX_S = 15


def make_client(broker: BrokerConfig, client_id: str, *, manual_ack: bool = False,
                will: tuple[str, bytes] | None = None) -> mqtt.Client:
    """A configured client (not connected yet).

    Args:
        broker: where and as whom.
        client_id: the session's name at the broker (one per table, one for the café).
        manual_ack: acknowledge each message only when told (`client.ack`), so the
            broker keeps it until it is safely stored.
        will: a retained message the broker publishes if this client vanishes.
    """
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                         protocol=mqtt.MQTTv5, manual_ack=manual_ack)
    if broker.username:
        client.username_pw_set(broker.username, broker.password())
    if broker.tls:
        client.tls_set(ca_certs=str(broker.ca_file) if broker.ca_file else None,
                       certfile=str(broker.cert_file) if broker.cert_file else None,
                       keyfile=str(broker.key_file) if broker.key_file else None)
    if will is not None:
        client.will_set(will[0], will[1], qos=1, retain=True)
    # paho keeps every QoS 1 message until its PUBACK, across reconnects; the callers
    # bound how many they hand it (the table's window).
    client.reconnect_delay_set(RECONNECT_MIN_S, RECONNECT_MAX_S)
    return client


def connect(client: mqtt.Client, broker: BrokerConfig, *, session_expiry_s: int = 0) -> None:
    """Start connecting in the background (paho retries until the broker answers).

    Args:
        session_expiry_s: how long the broker keeps this client's subscriptions and
            its queued QoS 1 messages while it is away (0: a clean session each time).
    """
    props = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
    if session_expiry_s:
        props.SessionExpiryInterval = session_expiry_s
    client.connect_async(broker.host, broker.port, keepalive=KEEPALIVE_S,
                         clean_start=session_expiry_s == 0, properties=props)
    client.loop_start()


def reason_text(reason_code: Any) -> str:
    """A paho reason code in words ('Not authorized', 'Success')."""
    return str(getattr(reason_code, "getName", lambda: reason_code)())
