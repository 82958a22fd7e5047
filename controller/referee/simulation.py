"""The seam for simulated people at a table: what simulation mode plugs into the service.

The referee defines the interface; `controller.sim.table.SimulatedTable`
implements it, and only the commands wire it in, so the product never imports
the simulation.
"""

from __future__ import annotations

from typing import Protocol

from controller.knapp.cards import Figure


class Simulation(Protocol):
    """Simulated people at the table (`controller.sim.table`), wired in by simulation mode."""

    @property
    def seats(self) -> tuple[str, ...]:
        """The seats simulated players take."""
        ...

    @property
    def waiting(self) -> bool:
        """True while no card may come: a person could play and nobody has started."""
        ...

    def start(self) -> None:
        """Someone is at the table (the Start button, a first key press or grab)."""
        ...

    def act(self, now_ns: int) -> None:
        """Do what the simulated people do by now: grab, put figures back."""
        ...

    def grab(self, seat: str, figure: Figure, t_ns: int) -> None:
        """`seat` grabs `figure` at `t_ns` (a person clicking in simulation mode)."""
        ...

    def reseat(self, seats: tuple[str, ...]) -> None:
        """The table's seats changed (setup)."""
        ...
