"""A generic search player: single-observer information-set MCTS.

Works for every game over the `GameState` API. Each iteration samples the
hidden information with `state.determinize(seat, rng)` (so the bot uses only
what its seat has seen), descends a tree of actions shared across samples,
choosing by UCB among the children available in this sample (Cowling, Powley &
Whitehouse 2012), plays out with a rollout policy, and backs up each seat's
utility. For perfect-information games `determinize` is a clone and this is
plain UCT. Search stops at a time budget or an iteration cap, whichever comes
first; the cap makes tests deterministic.

A few hundred noisy playouts should not overrule a sound heuristic by chance,
so a bot may be given an `anchor` (typically the game's rule player): the
search then departs from the anchor's choice only when its mean utility is
clearly (`margin`) better.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from controller.errors import IllegalAction
from controller.games.base import Action, Bot, GameState, RandomBot, Seat, action_key
from controller.rng import Rng

RolloutFactory = Callable[[Seat, Rng], Bot]
Utility = Callable[[GameState], list[float]]


class SearchNode:
    """Statistics of one action in the search tree (shared across sampled worlds)."""

    __slots__ = ("avail", "children", "reward", "visits")

    def __init__(self) -> None:
        self.children: dict[tuple[Seat, Action], SearchNode] = {}
        self.visits = 0
        self.avail = 0
        self.reward = 0.0


def utilities(state: GameState) -> list[float]:
    """Map a state's results (or its heuristic value) to [0, 1] per seat."""
    values = state.returns() if state.is_terminal() else _evaluate(state)
    lo, hi = min(values), max(values)
    if hi == lo:
        return [0.5] * len(values)
    return [(v - lo) / (hi - lo) for v in values]


def lead_utilities(scale: float) -> Utility:
    """Utilities from each seat's lead over the best other seat, squashed by `scale`.

    `utilities` gives the leader 1 however far ahead it is, so once a seat leads
    clearly every move looks alike to it; for games won by the best running total
    this keeps a lead worth widening (and a gap worth closing). Values come from
    `returns()`, or `evaluate()` where a playout was cut short.
    """

    def utility(state: GameState) -> list[float]:
        values = state.returns() if state.is_terminal() else _evaluate(state)
        out = []
        for seat, v in enumerate(values):
            best_other = max(values[:seat] + values[seat + 1:], default=v)
            out.append(0.5 + 0.5 * math.tanh((v - best_other) / scale))
        return out

    return utility


def _evaluate(state: GameState) -> list[float]:
    evaluate: Any = getattr(state, "evaluate", None)
    if callable(evaluate):
        return list(evaluate())
    return state.returns()


def pick_actor(state: GameState) -> Seat:
    """The seat to move in search: the lowest when several may act."""
    return min(state.actors())


class SearchBot(Bot):
    """Information-set MCTS within a time budget.

    Args:
        seat: the bot's seat.
        rng: its own generator.
        time_budget_s: wall-clock budget per move.
        max_iterations: iteration cap (deterministic when the budget is ample).
        max_rollout_steps: playouts stop here and use `state.evaluate()` if defined.
        rollout: factory for the playout policy (random by default).
        exploration: the UCB constant.
        anchor: factory for a player whose choice is kept unless the search finds
            one better by more than `margin` (None: always the most visited).
        margin: how much better, in the search's [0, 1] utility.
        utility: maps a playout's end to [0, 1] per seat (default `utilities`).
    """

    name = "search"

    def __init__(self, seat: Seat, rng: Rng, *, time_budget_s: float = 0.5,
                 max_iterations: int = 400, max_rollout_steps: int = 200,
                 rollout: RolloutFactory | None = None, exploration: float = 0.7,
                 anchor: RolloutFactory | None = None, margin: float = 0.0,
                 utility: Utility | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        super().__init__(seat, rng)
        self.time_budget_s = time_budget_s
        self.max_iterations = max_iterations
        self.max_rollout_steps = max_rollout_steps
        self.rollout = rollout or RandomBot
        self.exploration = exploration
        self.anchor = anchor
        self.margin = margin
        self.utility = utility or utilities
        self.clock = clock
        self.last_iterations = 0

    def choose(self, state: GameState) -> Action:
        """Search from `state` as seen by `self.seat` and return the most visited action."""
        legal = state.legal_actions(self.seat)
        if not legal:
            raise IllegalAction("turn-order", f"seat {self.seat} has no legal action to search")
        if len(legal) == 1:
            return legal[0]
        root = self.search(state)
        return self.pick(root, legal, self._anchor_choice(state))

    def search(self, state: GameState) -> SearchNode:
        """Run the iterations from `state` within the budget; return the root."""
        root = SearchNode()
        deadline = self.clock() + self.time_budget_s
        iterations = 0
        while iterations < self.max_iterations and (iterations == 0 or self.clock() < deadline):
            self._iterate(state, root)
            iterations += 1
        self.last_iterations = iterations
        return root

    def pick(self, root: SearchNode, legal: list[Action], anchor: Action | None) -> Action:
        """The most visited of `legal` at `root`, unless `anchor` is within `margin`
        of it in mean utility."""
        stats = {a: child for (actor, a), child in root.children.items()
                 if actor == self.seat and a in legal and child.visits}
        if not stats:
            return anchor if anchor is not None else self.rng.choice(legal)
        best = max(sorted(stats, key=action_key), key=lambda a: stats[a].visits)
        if anchor is None or best == anchor or anchor not in stats:
            return best
        mean = stats[best].reward / stats[best].visits
        anchor_mean = stats[anchor].reward / stats[anchor].visits
        return best if mean > anchor_mean + self.margin else anchor

    def _anchor_choice(self, state: GameState) -> Action | None:
        if self.anchor is None:
            return None
        # Its own generator fork, so asking the anchor leaves the search's draws alone.
        return self.anchor(self.seat, self.rng.fork("anchor")).choose(state)

    def _iterate(self, state: GameState, root: SearchNode) -> None:
        sim = state.determinize(self.seat, self.rng)
        node = root
        path: list[tuple[SearchNode, Seat]] = []
        while not sim.is_terminal():
            # At the root the bot itself moves, even where a lower seat may act too
            # (a parknuff window, a KNUFF seat away that may join): the root's
            # statistics must be its own actions, or `pick` finds none of them.
            actor = (self.seat if node is root and self.seat in sim.actors()
                     else pick_actor(sim))
            actions = sim.legal_actions(actor)
            if not actions:
                break
            untried = [a for a in actions if (actor, a) not in node.children]
            if untried:
                action = self.rng.choice(untried)
                child = node.children[(actor, action)] = SearchNode()
                sim.apply(actor, action)
                path.append((child, actor))
                for a in actions:
                    existing = node.children.get((actor, a))
                    if existing is not None:
                        existing.avail += 1
                break
            log_n = 0.0
            options = []
            for a in actions:
                child = node.children[(actor, a)]
                child.avail += 1
                options.append((a, child))
            best_score = -1.0
            chosen = options[0]
            for a, child in options:
                log_n = math.log(max(child.avail, 1))
                score = (child.reward / child.visits
                         + self.exploration * math.sqrt(log_n / child.visits))
                if score > best_score:
                    best_score, chosen = score, (a, child)
            sim.apply(actor, chosen[0])
            node = chosen[1]
            path.append((node, actor))
        self._playout(sim)
        utility = self.utility(sim)
        for child, actor in path:
            child.visits += 1
            child.reward += utility[actor]

    def _playout(self, sim: GameState) -> None:
        bots: dict[Seat, Bot] = {}
        for _ in range(self.max_rollout_steps):
            if sim.is_terminal():
                return
            actor = pick_actor(sim)
            bot = bots.get(actor)
            if bot is None:
                bot = bots[actor] = self.rollout(actor, self.rng)
            sim.apply(actor, bot.choose(sim))
