"""Frame and event numbers from the pad board: repeats, losses, and numbers that lie.

`LinkSession` (controller/pads/link.py) asks `FrameSequence` whether a frame's
`seq` is new, and `EventNumbers` where an EVENT's `n` (or a HEARTBEAT's
`last_n`) stands. A good CRC only says the bytes arrived as sent: a board bug
or a corruption the CRC missed can still carry a number the board never
counted. So a number is only believed as far as it is plausible:

- a frame's `seq` may jump ahead by the frames that can have been lost in the
  time since the last one (`SEQ_SLACK` plus `MAX_FRAME_RATE` per second); a
  bigger jump is a bad frame until the next frame follows on from it;
- an event number may jump ahead only by the events that can have gone missing:
  one per lost frame (a skipped `seq`) plus those a HELLO announced; a bigger
  jump (an EVENT's `n` or a HEARTBEAT's `last_n`) is a bad frame, never a
  reason to wait for events that may not exist. Since a forged frame may also
  have hidden a real loss (by taking the lost frame's `seq`), the board is
  asked once, with a RESEND from the next number, for what it really has: its
  answers (flagged resent, within its ring of the number asked for) count;
- a repeat is dropped only if it is the same frame (or the same event) again:
  a different frame under a number already seen is kept, so a forged number
  cannot make the real frame or event that later carries it vanish;
- a number marked missing stays missing until an event with it arrives: it is
  never given up on because another (perhaps forged) number says so; a
  missing number holds nothing else up, and the board's NOTICE says when it
  no longer holds one (its ring keeps the last `protocol.RING` events).

Every count here is of numbers, never of time on a clock that could be wrong:
the only time used is the host time each frame was read at.
"""

from __future__ import annotations

from collections import OrderedDict

from controller.pads import protocol as wire
from controller.pads.events import Item, PadStatus

EVENT_SPACE = 0xFFFF  # board event numbers run 1..65535
HALF_SPACE = EVENT_SPACE // 2
SEQ_SPACE = 0x10000
SEQ_SLACK = 64  # frames a burst can hold: a RESEND answer (32 events), LEVELS, pongs
MAX_FRAME_RATE = 2_000  # frames per second the board can send (it sends a few)
SEQ_MEMORY = 256  # recent frames kept to tell a repeat from a different frame
EVENT_MEMORY = 1024  # recent events kept to tell a resend from a different event

EventContent = tuple[int, int, int, int]  # pad, kind, tick, level


def newest(next_n: int) -> int:
    """The event number before `next_n` (wrapping 1..65535)."""
    return (next_n - 2) % EVENT_SPACE + 1


def following(n: int, k: int = 1) -> int:
    """The event number `k` after `n` (wrapping 1..65535)."""
    return (n - 1 + k) % EVENT_SPACE + 1


class FrameSequence:
    """The `seq` numbers of the frames from one board on one connection.

    Args:
        stats: the link's counters (`duplicate_frames`, `lost_frames` are kept here).
    """

    def __init__(self, stats: dict[str, int]) -> None:
        self.stats = stats
        self.last: int | None = None
        self._recent: OrderedDict[int, tuple[int, bytes]] = OrderedDict()
        self._at = 0  # host ns the last accepted frame was read at
        self._candidate: int | None = None

    def restart(self, frame: wire.Frame | None = None, now_ns: int = 0) -> None:
        """Start over: a new connection (None) or a HELLO that numbers on from its seq."""
        self._recent.clear()
        self._candidate = None
        self.last = None
        if frame is not None:
            self._accept(frame, now_ns)

    def check(self, frame: wire.Frame, now_ns: int, out: list[Item]) -> int | None:
        """Return how many frames `frame` is after the one before it (1: none lost), or None
        (and a status) when it must be dropped: a repeat, or a jump that cannot be true."""
        seq, key = frame.seq, (frame.type, frame.body)
        seen = self._recent.get(seq)
        if seen == key:
            self.stats["duplicate_frames"] += 1
            what = ("arrived twice" if seq == self.last
                    else f"arrived again after frame {self.last}")
            out.append(PadStatus("duplicate", f"frame {seq} {what}; dropped the copy"))
            return None
        if seen is not None:
            out.append(PadStatus("bad_frame", f"frame {seq} arrived twice with different "
                                              "contents (one of them is not the board's); "
                                              "kept both"))
        gap = self._gap(seq)
        allowed = SEQ_SLACK + (now_ns - self._at) * MAX_FRAME_RATE // 1_000_000_000
        if gap is None or gap > allowed:
            if self._candidate is not None and seq == (self._candidate + 1) % SEQ_SPACE:
                # Two frames agree on the new numbering: the board really jumped.
                gap = SEQ_SLACK
            else:
                self._candidate = seq
                out.append(PadStatus("bad_frame", f"frame {seq} jumps too far from frame "
                                                  f"{self.last}; not trusted unless the next "
                                                  "frame follows on from it"))
                return None
        if gap > 1:
            self.stats["lost_frames"] += gap - 1
            out.append(PadStatus("lost_frames",
                                 f"{gap - 1} frame(s) lost between seq {self.last} and {seq}"))
        self._accept(frame, now_ns)
        return gap

    def _gap(self, seq: int) -> int | None:
        """Frames from the nearest frame accepted before `seq` (None: none near)."""
        if self.last is None:
            return 1
        ahead = (seq - self.last) % SEQ_SPACE
        if 0 < ahead < SEQ_SPACE // 2:
            return ahead
        # Behind the last one: after a frame whose seq jumped ahead falsely, the
        # real frames go on from before it. Count from the nearest one behind.
        behind = [d for s in self._recent if s != seq
                  and 0 < (d := (seq - s) % SEQ_SPACE) <= SEQ_MEMORY]
        return min(behind) if behind else None

    def _accept(self, frame: wire.Frame, now_ns: int) -> None:
        self._recent[frame.seq] = (frame.type, frame.body)
        self._recent.move_to_end(frame.seq)
        while len(self._recent) > SEQ_MEMORY:
            self._recent.popitem(last=False)
        self.last = frame.seq
        self._at = now_ns
        self._candidate = None


class EventNumbers:
    """Where each board event number stands: next, missing, delivered, or not plausible.

    `room` is how many events the board may have sent that we have neither
    received nor marked missing; it grows by one per lost frame and is set
    from every HELLO and HEARTBEAT, which say the board's newest number.
    """

    def __init__(self, stats: dict[str, int]) -> None:
        self.stats = stats
        self.next_n = 1
        self.missing: set[int] = set()
        self.room = 0
        self.resend_from: int | None = None  # a RESEND the link should send
        # every content delivered under each recent number (a forgery may share one)
        self._delivered: OrderedDict[int, set[EventContent]] = OrderedDict()
        self._none_yet = True  # no event number known on this boot
        self._asked_from: int | None = None  # the last RESEND's from_n

    @property
    def newest_known(self) -> int:
        """The newest event number received or marked missing (0: none this boot)."""
        return 0 if self._none_yet else newest(self.next_n)

    def take_resend(self) -> int | None:
        """Return (and forget) the event number a RESEND should start from, if any.

        The link sends it; the board's answers are then believed.
        """
        from_n, self.resend_from = self.resend_from, None
        if from_n is not None:
            self._asked_from = from_n
        return from_n

    def _answers_a_resend(self, n: int, resent: bool) -> bool:
        """True if event `n` is what the board would send for the last RESEND."""
        asked = self._asked_from
        return resent and asked is not None and (n - asked) % EVENT_SPACE < wire.RING

    def first_contact(self, last_n: int) -> None:
        """What the board did before we listened is history: number on from `last_n`."""
        self.next_n = last_n % EVENT_SPACE + 1
        self._none_yet = last_n == 0
        self.room = 0

    def rebooted(self, last_n: int) -> None:
        """A new boot numbers from 1; `last_n` events happened before its HELLO."""
        self.next_n = 1
        self.missing.clear()
        self._delivered.clear()
        self._none_yet = True
        self._asked_from = None
        self.room = last_n

    def announced(self, last_n: int) -> int:
        """A HELLO of the same boot says its newest is `last_n`; return how many are new."""
        ahead = self._ahead_of_newest(last_n)
        self.room = max(self.room, ahead)
        return ahead

    def event_free_frame(self, gap: int) -> None:
        """A frame that is no event (nor heartbeat) came `gap` after the one before it."""
        self.room += gap - 1

    def event(self, n: int, content: EventContent, resent: bool, gap: int,
              out: list[Item]) -> bool | None:
        """Place event `n`: True in order, False a late one (resent or a conflict), None drop."""
        avail = self.room + gap - 1  # each lost frame may have been an event
        self.room = avail
        ahead = (n - self.next_n) % EVENT_SPACE
        if ahead == 0:
            in_order = True
        elif ahead <= HALF_SPACE:
            if ahead > avail and not self._answers_a_resend(n, resent):
                out.append(PadStatus("bad_frame", f"event {n} is {ahead} past the next "
                                                  f"({self.next_n}), but at most {avail} "
                                                  "can have gone missing; not trusted, "
                                                  "asked the board what it has"))
                if not resent:
                    self.resend_from = self.next_n
                return None
            skipped = [following(self.next_n, k - 1) for k in range(1, ahead + 1)]
            self._mark_missing(skipped)
            self.room = max(0, avail - ahead)
            out.append(PadStatus("lost_frames", f"events {skipped[0]}..{skipped[-1]} missing; "
                                                "asked the board to send them again"))
            self.resend_from = self.next_n
            in_order = True
        elif n in self.missing:
            self.missing.discard(n)
            self.stats["resent_events"] += 1
            in_order = False
        else:
            before = self._delivered.get(n)
            if before is None or content in before:
                self.stats["duplicate_events"] += 1
                if not resent:
                    out.append(PadStatus("duplicate", f"event {n} arrived twice; dropped the copy"))
                return None
            out.append(PadStatus("bad_frame", f"event {n} arrived twice with different "
                                              "contents (one of them is not the board's); "
                                              "kept both"))
            in_order = False
        if in_order:
            self.next_n = following(n)
            self._none_yet = False
        self._remember(n, content)
        return in_order

    def heartbeat(self, last_n: int, gap: int, out: list[Item]) -> bool:
        """Take a HEARTBEAT's `last_n`; False (and a status) if it cannot be true."""
        avail = self.room + gap - 1
        ahead = self._ahead_of_newest(last_n)
        if ahead > avail:
            out.append(PadStatus("bad_frame", f"heartbeat says event {last_n} was sent, but at "
                                              f"most {avail} event(s) can have gone missing "
                                              f"since {self.newest_known}; not trusted, asked "
                                              "the board what it has"))
            self.room = avail
            self.resend_from = self.next_n
            return False
        # Only what the heartbeat names is taken from the room: a heartbeat
        # saying "nothing new" may be forged, and must not make a real gap unaskable.
        self.room = avail - ahead
        if ahead:
            missing = [following(self.next_n, k - 1) for k in range(1, ahead + 1)]
            self._mark_missing(missing)
            out.append(PadStatus("lost_frames", f"heartbeat says event {last_n} was sent; "
                                                f"asking for {len(missing)} missed event(s)"))
            self.next_n = following(last_n)
            self._none_yet = False
            self.resend_from = missing[0]
        return True

    def _ahead_of_newest(self, last_n: int) -> int:
        """How many numbers `last_n` is past the newest known (0: not past it)."""
        if last_n == 0:
            return 0
        ahead = (last_n - self.newest_known) % EVENT_SPACE
        return ahead if ahead <= HALF_SPACE else 0

    def _remember(self, n: int, content: EventContent) -> None:
        self._delivered.setdefault(n, set()).add(content)
        self._delivered.move_to_end(n)
        while len(self._delivered) > EVENT_MEMORY:
            self._delivered.popitem(last=False)

    def _mark_missing(self, numbers: list[int]) -> None:
        self.missing.update(numbers)
        if len(self.missing) > EVENT_MEMORY:  # keep the ones nearest the newest
            top = newest(self.next_n)
            keep = sorted(self.missing, key=lambda m: (top - m) % EVENT_SPACE)[:EVENT_MEMORY]
            self.missing = set(keep)
