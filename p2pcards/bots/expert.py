"""The search behind the ``expert`` bot, for any game: determinised rollouts over the seat's information set.

A seat that cannot see the other hands cannot search the game tree of the
real deal. It can search the deals it thinks possible: every iteration draws
a *determinisation*, a full deal consistent with everything the seat has seen
(perfect-information Monte Carlo over the information set), plays each
candidate move in it, and lets a base policy (the game's heuristic player, for
every seat) finish the hand; the game scores the end for the seat in [0, 1]
(an estimate of its chance to win the match, see the game modules).

Why this and not a deeper information-set tree (ISMCTS): in Python a decision
of 0.2 s affords one or two hundred simulated hands, too few for a tree below
the first move to gather statistics, while the first move is what is decided.
Two things make those few hands count:

* every candidate is tried on the *same* deals with the *same* random stream
  for the rollout (common random numbers), so two moves are compared on paired
  samples and the luck of the deal cancels out;
* the base policy is the heuristic, which also models the opponents well, and
  the heuristic's own move is the incumbent: another move replaces it only
  when its paired advantage stands clear of the noise (one standard error).
  This is one step of policy improvement (the rollout algorithm of Tesauro and
  Galperin, Bertsekas): with enough deals it is never worse than the base
  policy, and it gets stronger as the budget grows.

What a game provides is a :class:`SearchGame` (its folder's ``expert`` module,
such as ``p2pcards/games/nines/expert.py``): it snapshots the view into an
observation on the caller's thread (so the search may run in a worker thread while the table changes),
samples deals from that observation alone, and plays and scores them. The
search sees nothing else: the decision depends on the view and the seed only.

Every random choice comes from one generator seeded from the ``rng`` given to
:meth:`ExpertBot.choose`, and :class:`Budget` stops the search after a time
or after a number of deals; with a deal budget the move is a pure function of
the view and the seed (the tests rely on it).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from p2pcards.bots.words import bot_error

DEFAULT_SECONDS = 0.2
"""Thinking time per decision when none is given."""
MAX_SECONDS = 60.0
"""The longest thinking time accepted: a networked table's turn clock must not run out."""
MAX_ITERATIONS = 1_000_000

Obs = TypeVar("Obs")
State = TypeVar("State")


@dataclass(frozen=True, slots=True)
class Budget:
    """When the search stops: after ``seconds`` of thinking, or ``iterations`` deals, whichever first.

    Thinking time is the processor time of the thread that searches: a machine
    busy with other work makes the bot slower, not weaker, and a measurement
    of its strength means the same on any load.

    ``iterations`` alone makes the bot deterministic (same view, same seed, same
    move on any machine); ``seconds`` alone keeps it within a turn clock.
    """

    seconds: float | None = DEFAULT_SECONDS
    iterations: int | None = None

    def __post_init__(self) -> None:
        if self.seconds is None and self.iterations is None:
            raise bot_error("bot_err_no_budget")
        if self.seconds is not None and not (0 < self.seconds <= MAX_SECONDS):
            raise bot_error("bot_err_seconds", most=f"{MAX_SECONDS:g}")
        if self.iterations is not None and not (1 <= self.iterations <= MAX_ITERATIONS):
            raise bot_error("bot_err_iterations", most=MAX_ITERATIONS)

    @classmethod
    def parse(cls, text: str) -> Budget:
        """``0.5`` or ``0.5s``: seconds a move; ``300i``: iterations (deals searched) a move."""
        t = text.strip().lower()
        try:
            if t.endswith("i"):
                return cls(seconds=None, iterations=int(t[:-1]))
            value = float(t[:-1] if t.endswith("s") else t)
        except ValueError:
            raise bot_error("bot_err_budget_words", text=repr(text)) from None
        if not math.isfinite(value):
            raise bot_error("bot_err_budget_seconds", text=repr(text))
        return cls(seconds=value)

    def describe(self) -> str:
        """The budget as :meth:`parse` reads it."""
        if self.seconds is not None and self.iterations is not None:
            return f"{self.seconds:g}s/{self.iterations}i"
        return f"{self.seconds:g}" if self.seconds is not None else f"{self.iterations}i"


class SearchGame(Protocol[Obs, State]):
    """What the search needs from one game; it never sees a view itself."""

    def observe(self, view: Any, legal: Sequence[Any]) -> Obs:
        """Everything the seat knows, copied out of ``view`` (immutable from then on)."""
        ...

    def candidates(self, view: Any, legal: Sequence[Any], rng: random.Random) -> tuple[Any, list[Any]]:
        """The base policy's move, and the legal moves worth searching (that move among them)."""
        ...

    def determinise(self, obs: Obs, rng: random.Random) -> State:
        """A full-information position consistent with ``obs``, hidden cards drawn by ``rng``."""
        ...

    def clone(self, state: State) -> State:
        """An independent copy of ``state`` (cheap: lists copied, cards shared)."""
        ...

    def apply(self, state: State, action: Any, rng: random.Random) -> None:
        """Play ``action`` (then any table step, such as a recycled stock drawn by ``rng``)."""
        ...

    def rollout(self, state: State, rng: random.Random) -> None:
        """Play the hand to its end with the base policy for every seat."""
        ...

    def reward(self, obs: Obs, state: State) -> float:
        """The observing seat's score in [0, 1] for the finished hand ``state``."""
        ...


@dataclass(frozen=True, slots=True)
class SearchStats:
    """What one decision cost and found (for tests and the benchmark)."""

    iterations: int
    """Deals searched (each candidate played out once on each)."""
    seconds: float
    means: dict[Hashable, float]
    """Each candidate's mean score."""
    chosen: Any


class Search(Generic[Obs, State]):
    """Paired determinised rollouts; see the module doc."""

    def __init__(
        self, game: SearchGame[Obs, State], budget: Budget, clock: Callable[[], float] = time.thread_time
    ) -> None:
        self.game = game
        self.budget = budget
        self.clock = clock

    def run(self, obs: Obs, incumbent: Any, moves: Sequence[Any], rng: random.Random) -> SearchStats:
        """Score ``moves`` on deals from ``obs``; keep ``incumbent`` unless another is plainly better.

        A move that trails the best so far by :data:`PRUNE_Z` standard errors stops being
        played out: the deals left go to the moves still in doubt, and the search
        ends as soon as one move is left, since more deals could not change it.
        """
        game = self.game
        start = self.clock()
        deadline = None if self.budget.seconds is None else start + self.budget.seconds
        limit = self.budget.iterations
        scores: list[list[float]] = [[] for _ in moves]
        alive = list(range(len(moves)))
        done = 0
        while True:
            deal = game.determinise(obs, rng)
            stream = rng.getrandbits(64)
            for k in alive:
                state = game.clone(deal)
                play = random.Random(stream)
                game.apply(state, moves[k], play)
                game.rollout(state, play)
                scores[k].append(game.reward(obs, state))
            done += 1
            if limit is not None and done >= limit:
                break
            if deadline is not None and self.clock() >= deadline:
                break
            if done >= PRUNE_AFTER and done % PRUNE_EVERY == 0:
                best = max(alive, key=lambda j: (sum(scores[j]), -j))
                alive = [k for k in alive if k == best or not leads(scores[best], scores[k], PRUNE_Z)]
                if len(alive) == 1:
                    break
        means = {moves[k]: sum(s) / len(s) for k, s in enumerate(scores)}
        left = [moves[k] for k in alive]
        if incumbent in left:
            chosen = choose_paired(left, [scores[k] for k in alive], incumbent)
        else:  # the incumbent was plainly worse than some move still in the running
            chosen = max(left, key=lambda m: means[m])
        return SearchStats(iterations=done, seconds=self.clock() - start, means=means, chosen=chosen)


PRUNE_AFTER = 32
"""Deals every move is played on before any is dropped."""
PRUNE_EVERY = 8
"""Deals between two looks at which moves to drop."""
PRUNE_Z = 3.0
"""Standard errors by which a move must trail the best to be dropped: looking again and
again, a tighter bound would drop good moves by chance."""


def leads(a: Sequence[float], b: Sequence[float], z: float) -> bool:
    """Scores ``a`` beat the paired scores ``b`` (same deals) by more than ``z`` standard
    errors of their differences; one deal proves nothing."""
    n = len(a)
    if n < 2:
        return False
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean > z * math.sqrt(var / n)


def choose_paired(
    moves: Sequence[Any], scores: Sequence[Sequence[float]], incumbent: Any, z: float = 1.0
) -> Any:
    """The best-scoring move if it beats ``incumbent`` by ``z`` standard errors of the paired
    differences, else ``incumbent`` (the first listed move wins a tie of means)."""
    best = max(range(len(moves)), key=lambda k: (sum(scores[k]), -k))
    base = moves.index(incumbent)
    return moves[best] if leads(scores[best], scores[base], z) else moves[base]


class ExpertBot(Generic[Obs, State]):
    """A strategy that searches (see the module doc); ``choose`` has the interface of every bot.

    ``prepare`` splits a decision in two for a caller that must not block: the
    view is read at once, and the returned function searches, without touching
    the view, in any thread.
    """

    name = "expert"

    def __init__(
        self, game: SearchGame[Obs, State], budget: Budget | None = None, name: str = "expert"
    ) -> None:
        self.game = game
        self.budget = budget or Budget()
        self.name = name
        self.last: SearchStats | None = None
        """The statistics of the latest search (None when there was nothing to search)."""

    def choose(self, view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
        return self.prepare(view, legal, rng)()

    def prepare(self, view: Any, legal: Sequence[Any], rng: random.Random) -> Callable[[], Any]:
        """Read ``view`` now; the function returned finds the move (it may run in a worker thread)."""
        # One draw from the caller's generator, whatever the search does: the same seed
        # gives the same sequence of decisions however long each search ran.
        seed = rng.getrandbits(64)
        mine = random.Random(seed)
        self.last = None
        if len(legal) == 1:
            return lambda: legal[0]
        incumbent, moves = self.game.candidates(view, legal, mine)
        if len(moves) < 2:
            return lambda: incumbent
        obs = self.game.observe(view, legal)

        def think() -> Any:
            stats = Search(self.game, self.budget).run(obs, incumbent, moves, mine)
            self.last = stats
            return stats.chosen

        return think
