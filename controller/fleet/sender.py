"""What the table publishes next: the outbox rows after what it sent, within a window.

No I/O of its own: `due(now_ns, ...)` returns the records to publish now and
`confirmed(...)` takes the café's confirmation, so the logic is tested on a
`FakeClock` with a real outbox and no broker.

The broker's PUBACK only says the broker has a message; the table's outbox
moves on only when the café confirms it holds the record (`Acks` on the café
side). Whatever is published and not confirmed within `resend_after_s`
(doubling while nothing moves, while the café is online), or in flight when
the connection drops, is published again from the last confirmed position:
a message the broker lost in a crash is sent again, and a duplicate is one
the café ignores.

Each record goes out signed with the table's key. A record that holds hidden
information (`controller.fleet.seal`) goes out sealed while its match or room
runs; once the stream is over, its full records are queued in the outbox's
``reveals`` source and published like any other.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from controller.clock import NS_PER_S, Clock
from controller.fleet.outbox import Outbox
from controller.fleet.seal import hides, seal
from controller.fleet.summaries import stream_over
from controller.fleet.wire import SOURCES, RecordSigner, WireRecord

MAX_BACKOFF = 16  # times resend_after_s


class Sender:
    """The table's publishing state over its outbox.

    Args:
        outbox: the table's outbox.
        signer: the table's key (every record goes out signed).
        clock: the table's clock.
        wall: the table's wall clock (seconds), stamped on each record.
        window: records published and not yet confirmed, at most.
        resend_after_s: publish again from the confirmed position after this long
            without a confirmation.
    """

    def __init__(self, outbox: Outbox, *, signer: RecordSigner, clock: Clock,
                 wall: Callable[[], float], window: int = 500,
                 resend_after_s: float = 30.0) -> None:
        self.outbox = outbox
        self.signer = signer
        self.clock = clock
        self.wall = wall
        self.window = window
        self.resend_after_ns = round(resend_after_s * NS_PER_S)
        self.confirmed_pos = outbox.confirmed()
        self.sent = dict(self.confirmed_pos)
        self._in_flight: dict[str, list[int]] = {s: [] for s in SOURCES}
        self._since_ns = clock.now_ns()
        self._backoff = 1
        self.resends = 0

    @property
    def in_flight(self) -> int:
        """Records published and not yet confirmed."""
        return sum(len(v) for v in self._in_flight.values())

    def backlog(self) -> int:
        """Records the café has not confirmed yet (published or not)."""
        return sum(self.outbox.count_after(s, self.confirmed_pos[s]) for s in SOURCES)

    def restart(self) -> None:
        """Publish again from the confirmed positions (the connection dropped, or a resend)."""
        self.sent = dict(self.confirmed_pos)
        self._in_flight = {s: [] for s in SOURCES}
        self._since_ns = self.clock.now_ns()

    def due(self, *, cafe_online: bool = True) -> list[WireRecord]:
        """The records to publish now, oldest first within each source."""
        now = self.clock.now_ns()
        if (self.in_flight and cafe_online
                and now - self._since_ns >= self.resend_after_ns * self._backoff):
            self.resends += 1
            self._backoff = min(MAX_BACKOFF, self._backoff * 2)
            self.restart()
        room = self.window - self.in_flight
        out: list[WireRecord] = []
        over: dict[str, bool] = {}  # per stream, asked once per call
        touched: set[tuple[str, str]] = set()
        # The table's health first (a few records), so a long backlog of matches never
        # holds back what the staff page shows of the table now.
        for source in ("health", "room_events", "events", "reveals"):
            if room <= 0:
                break
            rows = self.outbox.read(source, self.sent[source], room)
            after = self.sent[source]
            for row in rows:
                body, sealed = row.body, False
                if source in ("events", "room_events"):
                    touched.add((source, row.stream))
                    if hides(row.stream, row.kind) and not self._over(source, row.stream,
                                                                      over):
                        self.outbox.note_sealed(source, row.stream)  # before it goes out
                        body, sealed = seal(row.stream, row.kind, row.body) or body, True
                out.append(WireRecord(
                    table=self.outbox.table_id, epoch=self.outbox.epoch, source=source,
                    pos=row.pos, after=after, stream=row.stream, seq=row.seq, kind=row.kind,
                    body=body, prev=row.prev, hash=row.hash, sent=round(self.wall(), 3),
                    sealed=sealed).signed_by(self.signer))
                after = row.pos
                self._in_flight[source].append(row.pos)
            if rows:
                if not any(self._in_flight[s] for s in SOURCES if s != source) and \
                        len(self._in_flight[source]) == len(rows):
                    self._since_ns = now  # the resend clock starts at the first unconfirmed
                self.sent[source] = after
            room -= len(rows)
        self._reveal_ended(touched, over)
        return out

    def _over(self, source: str, stream: str, cache: dict[str, bool],
              rows: list[tuple[int, str, str, str]] | None = None) -> bool:
        if stream not in cache:
            rows = self.outbox.stream_rows(source, stream) if rows is None else rows
            cache[stream] = stream_over(stream, [b for _p, _k, b, _h in rows])
        return cache[stream]

    def _reveal_ended(self, touched: set[tuple[str, str]], cache: dict[str, bool]) -> None:
        """Queue the full records of every sealed stream this call saw end."""
        sealed = self.outbox.sealed_streams()
        for source, stream in sorted(touched & sealed):
            rows = self.outbox.stream_rows(source, stream)
            cache.pop(stream, None)  # what was read above may be older than `rows`
            if not self._over(source, stream, cache, rows):
                continue
            self.outbox.reveal(source, stream, [(p, h) for p, k, _b, h in rows
                                                if hides(stream, k)])

    def confirmed(self, epoch: str, upto: Mapping[str, int]) -> bool:
        """Take the café's confirmation; True when it moved anything."""
        if epoch != self.outbox.epoch:
            return False
        moved: dict[str, int] = {}
        for source in SOURCES:
            pos = upto.get(source, 0)
            if isinstance(pos, int) and pos > self.confirmed_pos[source] \
                    and pos <= self.outbox.last_pos(source):
                moved[source] = pos
        if not moved:
            return False
        self.outbox.confirm(moved)
        for source, pos in moved.items():
            self.confirmed_pos[source] = pos
            self._in_flight[source] = [p for p in self._in_flight[source] if p > pos]
            self.sent[source] = max(self.sent[source], pos)
        self._since_ns = self.clock.now_ns()
        self._backoff = 1
        return True
