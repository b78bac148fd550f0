"""The expert bot: legal moves only, a decision that depends on the seat's view and the seed alone,
budgets that hold, and a name that works wherever bots are chosen."""

from __future__ import annotations

import random

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pcards.bots import BOT_NAMES, LEVELS, check_bot, make_bot
from p2pcards.bots.expert import PRUNE_AFTER, Budget, ExpertBot, Search, choose_paired
from p2pcards.cards import Card, deck
from p2pcards.errors import UsageError
from p2pcards.games.neuf import rules as neuf
from p2pcards.games.neuf.expert import NeufSearch
from p2pcards.games.neuf.expert import observe as observe_neuf
from p2pcards.games.nines import rules as nines
from p2pcards.games.nines.expert import NinesSearch
from p2pcards.games.nines.expert import observe as observe_nines
from p2pcards.games.nines.rules import Draw, HandState, NinesRules, Phase, Recycle, SeatView

FLAGS = ("draw_until_playable", "action_cards", "double_nines", "stacking_nines", "hard_nines", "no_nine_out")
FEW = Budget(seconds=None, iterations=12)
"""Enough deals to exercise the tree, few enough for a quick test; the same moves on any machine."""


@st.composite
def nines_rules(draw: st.DrawFn) -> NinesRules:
    flags = {name: draw(st.booleans()) for name in FLAGS}
    flags["stacking_nines"] = flags["stacking_nines"] and flags["double_nines"]
    return NinesRules(**flags)


def _nines_position(rules: NinesRules, players: int, seed: int, moves: int) -> HandState | None:
    """A hand after up to ``moves`` random moves, stopped where the seat to act has a choice."""
    rng = random.Random(seed)
    cards = list(deck(2 if rules.double_nines else 1))
    rng.shuffle(cards)
    h = HandState(rules, players, rng.randrange(players), cards)
    chosen = None
    for _ in range(moves + 200):
        if h.phase is Phase.OVER:
            break
        if h.needs_recycle():
            under = h.discards[:-1]
            rng.shuffle(under)
            h.apply(Recycle(stock=tuple(under)))
            continue
        legal = h.legal_actions()
        if len(legal) > 1 and len(h.events) >= moves:
            chosen = h
            break
        h.apply(legal[rng.randrange(len(legal))])
    return chosen


def test_a_dealt_position_passes_the_turn_the_way_the_real_hand_does_after_a_reverse() -> None:
    """With action cards a Queen reverses the order of play: the deals searched must go the same way."""
    rules = NinesRules(action_cards=True)
    found = 0
    for seed in range(300):
        for moves in (6, 12, 20):
            h = _nines_position(rules, 4, seed, moves)
            if h is None or h.direction != -1:
                continue
            view = SeatView(h, h.turn)
            deal = NinesSearch().determinise(observe_nines(view, h.legal_actions()), random.Random(seed))
            assert [deal.next_seat(s) for s in h.seats] == [h.next_seat(s) for s in h.seats]
            found += 1
    assert found >= 5, "too few positions after a reverse"


def _nines_hidden_swapped(h: HandState, me: int, rng: random.Random) -> HandState:
    """The same hand with every card ``me`` cannot see (other hands, the stock) dealt anew."""
    other = h.copy()
    hidden = [c for s in range(h.players) if s != me for c in h.hands[s]] + list(h.stock)
    rng.shuffle(hidden)
    for s in range(h.players):
        if s != me:
            n = len(h.hands[s])
            other.hands[s], hidden = hidden[:n], hidden[n:]
    other.stock = hidden
    return other


# ---------------------------------------------------------------------------
# The view alone decides


@settings(max_examples=25, deadline=None)
@given(
    rules=nines_rules(),
    players=st.integers(2, 6),
    seed=st.integers(0, 2**32),
    moves=st.integers(0, 60),
    bot_seed=st.integers(0, 2**32),
)
def test_nines_expert_decides_on_the_view_alone(
    rules: NinesRules, players: int, seed: int, moves: int, bot_seed: int
) -> None:
    """Two hands that differ only in the cards the seat cannot see: the same move, seed for seed."""
    h = _nines_position(rules, players, seed, moves)
    if h is None:
        return
    me = h.turn
    other = _nines_hidden_swapped(h, me, random.Random(seed + 1))
    assert SeatView(h, me).events == SeatView(other, me).events
    assert observe_nines(SeatView(h, me)) == observe_nines(SeatView(other, me))
    legal = h.legal_actions()
    assert other.legal_actions() == legal
    bot = ExpertBot(NinesSearch(), FEW)
    first = bot.choose(SeatView(h, me), legal, random.Random(bot_seed))
    second = bot.choose(SeatView(other, me), legal, random.Random(bot_seed))
    assert first == second
    assert first in legal


def _neuf_position(rules: neuf.NeufRules, seed: int, moves: int) -> neuf.HandState | None:
    rng = random.Random(seed)
    cards = list(deck())
    rng.shuffle(cards)
    h = neuf.HandState(rules, rng.randrange(3), cards, number=1 + seed % 5)
    for _ in range(moves + 60):
        if h.phase is neuf.Phase.OVER:
            return None
        legal = h.legal_actions()
        if len(legal) > 1 and len(h.events) >= moves and not any(isinstance(a, neuf.Look) for a in legal):
            return h
        h.apply(legal[rng.randrange(len(legal))])
    return None


def _neuf_hidden_swapped(h: neuf.HandState, me: int, rng: random.Random) -> neuf.HandState:
    """The same hand with every card ``me`` does not know (hands it never saw, an unseen dummy) dealt anew."""
    view = neuf.NeufView(h, me)
    other = h.copy()
    holders = [s for s in range(3) if s != me and view.known_cards(s) is None]
    dummy_hidden = view.dummy_cards is None
    hidden = [c for s in holders for c in h.hands[s]] + (list(h.dummy) if dummy_hidden else [])
    rng.shuffle(hidden)
    for s in holders:
        n = len(h.hands[s])
        other.hands[s], hidden = hidden[:n], hidden[n:]
    if dummy_hidden:
        other.dummy = hidden
    return other


@settings(max_examples=25, deadline=None)
@given(
    blind=st.booleans(),
    seed=st.integers(0, 2**32),
    moves=st.integers(0, 40),
    bot_seed=st.integers(0, 2**32),
)
def test_neuf_expert_decides_on_the_view_alone(blind: bool, seed: int, moves: int, bot_seed: int) -> None:
    rules = neuf.NeufRules(exchange="blind" if blind else "open")
    h = _neuf_position(rules, seed, moves)
    if h is None:
        return
    me = h.turn
    other = _neuf_hidden_swapped(h, me, random.Random(seed + 1))
    assert observe_neuf(neuf.NeufView(h, me)) == observe_neuf(neuf.NeufView(other, me))
    legal = h.legal_actions()
    assert other.legal_actions() == legal
    bot = ExpertBot(NeufSearch(), FEW)
    first = bot.choose(neuf.NeufView(h, me), legal, random.Random(bot_seed))
    second = bot.choose(neuf.NeufView(other, me), legal, random.Random(bot_seed))
    assert first == second
    assert first in legal


def test_nines_expert_decides_the_same_on_a_replica_with_hidden_cards() -> None:
    """A networked seat's replica holds None for every card it cannot see: the expert decides alike."""
    rules = NinesRules.parse(["action-cards", "double-nines", "stacking-nines"])
    bot = ExpertBot(NinesSearch(), Budget(seconds=None, iterations=8))
    decisions = 0
    for game in range(3):
        rng = random.Random(game)
        players = 3 + game
        me = game % players
        order = list(deck(2))
        rng.shuffle(order)
        dealer = rng.randrange(players)
        full = HandState(rules, players, dealer, order)
        mine = set(full.hands[me])
        masked: list[Card | None] = [c if c in mine else None for c in order]
        up = len(full.dealt[me]) * players
        masked[up] = order[up]
        replica = HandState(rules, players, dealer, masked)
        while full.phase is not Phase.OVER:
            if full.needs_recycle():
                under = full.discards[:-1]
                rng.shuffle(under)
                full.apply(Recycle(stock=tuple(under)))
                replica.apply(Recycle(stock=(None,) * len(under)))
                continue
            seat = full.turn
            legal = full.legal_actions()
            if seat == me and len(legal) > 1:
                on_full = bot.choose(SeatView(full, me), legal, random.Random(decisions))
                on_replica = bot.choose(
                    SeatView(replica, me), replica.legal_actions(), random.Random(decisions)
                )
                assert on_full == on_replica
                decisions += 1
            action = legal[rng.randrange(len(legal))]
            full.apply(action)
            if isinstance(action, Draw):
                drawn = full.events[-1]
                assert isinstance(drawn, Draw)
                replica.apply(Draw(seat=seat, card=drawn.card if seat == me else None))
            else:
                replica.apply(action)
    assert decisions > 5


def test_neuf_expert_decides_the_same_on_its_own_replica() -> None:
    """A seat's replica holds only what that seat saw (looks and exchanges included)."""
    bot = ExpertBot(NeufSearch(), Budget(seconds=None, iterations=3))
    decisions = 0
    for seed in range(2):
        rng = random.Random(f"replica-{seed}")
        order = list(deck())
        rng.shuffle(order)
        dealer = seed % 3
        full = neuf.HandState(neuf.NeufRules(), dealer, order)
        me = (dealer + seed) % 3
        mine = set(full.hands[me])
        replica = neuf.HandState(neuf.NeufRules(), dealer, [c if c in mine else None for c in order])
        while full.phase is not neuf.Phase.OVER:
            seat = full.turn
            legal = full.legal_actions()
            if seat == me and len(legal) > 1:
                seen = neuf.NeufView(replica, me)
                on_full = bot.choose(neuf.NeufView(full, me), legal, random.Random(decisions))
                on_replica = bot.choose(seen, replica.legal_actions(), random.Random(decisions))
                assert on_full == on_replica
                decisions += 1
            action = legal[rng.randrange(len(legal))]
            if isinstance(action, neuf.Look | neuf.Exchange):
                told = type(action)(seat=seat, cards=tuple(full.dummy) if seat == me else None)  # type: ignore[arg-type]
            else:
                told = action
            full.apply(action)
            replica.apply(told)
    assert decisions > 5


# ---------------------------------------------------------------------------
# Legal moves everywhere


@settings(max_examples=10, deadline=None)
@given(rules=nines_rules(), players=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_nines_expert_plays_whole_hands_legally(rules: NinesRules, players: int, seed: int) -> None:
    rng = random.Random(seed)
    cards = list(deck(2 if rules.double_nines else 1))
    rng.shuffle(cards)
    h = HandState(rules, players, rng.randrange(players), cards)
    expert = ExpertBot(NinesSearch(), Budget(seconds=None, iterations=2))
    steps = 0
    while h.phase is not Phase.OVER and steps < 300:
        steps += 1
        if h.needs_recycle():
            under = h.discards[:-1]
            rng.shuffle(under)
            h.apply(Recycle(stock=tuple(under)))
            continue
        legal = h.legal_actions()
        action = expert.choose(SeatView(h, h.turn), legal, rng)
        assert action in legal
        h.apply(action)


@pytest.mark.parametrize("rules", [neuf.NeufRules(), neuf.NeufRules(exchange="blind")], ids=["open", "blind"])
def test_neuf_expert_plays_whole_hands_legally(rules: neuf.NeufRules) -> None:
    expert = ExpertBot(NeufSearch(), Budget(seconds=None, iterations=2))
    for seed in range(2):
        rng = random.Random(seed)
        cards = list(deck())
        rng.shuffle(cards)
        h = neuf.HandState(rules, seed % 3, cards, number=1 + seed)
        while h.phase is not neuf.Phase.OVER:
            legal = h.legal_actions()
            action = expert.choose(neuf.NeufView(h, h.turn), legal, rng)
            assert action in legal
            h.apply(action)
        assert sum(h.won) == neuf.HAND_SIZE


def test_a_whole_match_of_each_game_with_experts() -> None:
    from p2pcards.sim import simulate

    for game, players in (("nines", 3), ("neuf", 3)):
        result = simulate(players, 1, ["expert:3i", "heuristic", "random"], seed=4, game=game)
        assert sum(s.wins for s in result.strategies) == pytest.approx(1.0)


# ---------------------------------------------------------------------------
# Budgets and names


def test_the_same_seed_gives_the_same_moves_and_the_search_uses_its_budget() -> None:
    h = _nines_position(NinesRules(), 4, 3, 10)
    assert h is not None
    view, legal = SeatView(h, h.turn), h.legal_actions()
    bot = ExpertBot(NinesSearch(), Budget(seconds=None, iterations=30))
    moves = {bot.choose(view, legal, random.Random(5)) for _ in range(3)}
    assert len(moves) == 1
    assert bot.last is not None and bot.last.iterations == 30
    assert bot.last.chosen in legal and set(bot.last.means) <= set(legal)


def test_a_time_budget_stops_the_search_at_its_deadline() -> None:
    h = _nines_position(NinesRules(), 4, 3, 10)
    assert h is not None
    ticks = iter(range(10_000))
    search = Search(NinesSearch(), Budget(seconds=0.5), clock=lambda: next(ticks) * 0.1)
    obs = observe_nines(SeatView(h, h.turn))
    legal = h.legal_actions()
    stats = search.run(obs, legal[0], legal, random.Random(0))
    assert stats.iterations == 5  # the clock reads 0.1 s later at each iteration's end


class _Coins:
    """A toy game for the search: a move's reward is a coin with its own odds, tossed by
    the deal's random stream, so paired moves share their luck where their odds overlap."""

    def __init__(self, odds: dict[str, float]) -> None:
        self.odds = odds
        self.played: dict[str, int] = dict.fromkeys(odds, 0)

    def determinise(self, obs: object, rng: random.Random) -> list[object]:
        return []

    def clone(self, state: list[object]) -> list[object]:
        return list(state)

    def apply(self, state: list[object], action: str, rng: random.Random) -> None:
        self.played[action] += 1
        state.append(rng.random() < self.odds[action])

    def rollout(self, state: list[object], rng: random.Random) -> None:
        pass

    def reward(self, obs: object, state: list[object]) -> float:
        return float(state[-1])


def test_a_plainly_worse_move_stops_being_searched_and_a_clear_choice_ends_the_search() -> None:
    coins = _Coins({"good": 0.9, "bad": 0.1, "awful": 0.0})
    stats = Search(coins, Budget(seconds=None, iterations=500)).run(
        None, "bad", ["bad", "good", "awful"], random.Random(3)
    )
    assert stats.chosen == "good"  # the incumbent was plainly worse: it is replaced
    assert stats.iterations == PRUNE_AFTER  # both others dropped at the first look: nothing left to decide
    assert coins.played == {"good": PRUNE_AFTER, "bad": PRUNE_AFTER, "awful": PRUNE_AFTER}


def test_moves_in_doubt_are_searched_to_the_end_of_the_budget() -> None:
    coins = _Coins({"a": 0.5, "b": 0.5})
    stats = Search(coins, Budget(seconds=None, iterations=300)).run(None, "a", ["a", "b"], random.Random(4))
    assert stats.iterations == 300
    assert coins.played == {"a": 300, "b": 300}
    assert stats.chosen == "a"  # equal odds: the incumbent stays


def test_another_move_replaces_the_incumbent_only_when_plainly_better() -> None:
    plain = [[0.0, 0.1, 0.0, 0.1], [0.5, 0.6, 0.5, 0.6], [0.5, 0.7, 0.5, 0.7]]
    assert choose_paired(["a", "b", "c"], plain, "a") == "c"
    noisy = [[0.0, 1.0, 0.0, 1.0], [1.0, 0.0, 1.0, 0.1]]
    assert choose_paired(["a", "b"], noisy, "a") == "a"
    assert choose_paired(["a", "b"], [[0.2], [0.9]], "a") == "a"  # one deal proves nothing


@pytest.mark.parametrize(
    ("spec", "seconds", "iterations"),
    [("expert", 0.2, None), ("expert:0.5", 0.5, None), ("expert:1s", 1.0, None), ("expert:300i", None, 300)],
)
def test_expert_names_carry_a_budget(spec: str, seconds: float | None, iterations: int | None) -> None:
    for game in ("nines", "neuf"):
        bot = make_bot(spec, game)
        assert isinstance(bot, ExpertBot)
        assert bot.name == spec
        assert bot.budget == Budget(seconds=seconds, iterations=iterations)


BAD_NAMES = ["expert:", "expert:fast", "expert:0", "expert:-1", "expert:nan", "expert:99", "expert:0i",
             "heuristic:0.5", "random:1", ":1"]  # fmt: skip


@pytest.mark.parametrize("spec", BAD_NAMES)
def test_bad_bot_names_are_refused(spec: str) -> None:
    with pytest.raises(UsageError):
        check_bot(spec)


def test_levels_name_the_three_strategies() -> None:
    assert LEVELS == {"easy": "random", "normal": "heuristic", "hard": "expert"}
    assert set(LEVELS.values()) == set(BOT_NAMES)


def test_simulate_takes_an_expert_with_its_budget() -> None:
    from p2pcards.cli import main

    result = CliRunner().invoke(
        main, ["simulate", "-n", "2", "-g", "2", "-b", "expert:3i,heuristic", "-s", "1"]
    )
    assert result.exit_code == 0, result.output
    assert "expert:3i" in result.output
    bad = CliRunner().invoke(main, ["simulate", "-g", "1", "-b", "expert:soon"])
    assert bad.exit_code == 2 and "expert budget" in bad.output


def test_play_offers_levels_and_refuses_a_level_with_a_bot() -> None:
    from p2pcards.cli import main

    both = CliRunner().invoke(main, ["play", "--offline", "--level", "hard", "--bot", "random"])
    assert both.exit_code == 2 and "not both" in both.output
    unknown = CliRunner().invoke(main, ["play", "--offline", "--level", "godlike"])
    assert unknown.exit_code == 2
    watched = CliRunner().invoke(
        main, ["play", "--offline", "--watch", "--level", "easy", "-n", "2", "-r", "hands=1", "-s", "3"]
    )
    assert watched.exit_code == 0, watched.output
    assert "(random bots)" in watched.output.splitlines()[0]
    args = ["play", "--offline", "--level", "hard", "-s", "1", "--lang", "en"]
    hard = CliRunner().invoke(main, args, input="q\n")
    assert "(expert bots)" in hard.output.splitlines()[0], hard.output


def test_the_network_decider_thinks_in_a_worker_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search runs off the event loop: trio keeps serving the network meanwhile."""
    import threading

    import trio

    from p2pcards.ui import netgame

    h = _nines_position(NinesRules(), 3, 8, 5)
    assert h is not None
    threads: list[str] = []

    class Table:
        GAME = "nines"

        def view(self) -> SeatView:
            return SeatView(h, h.turn)

        def legal_actions(self) -> list[nines.Action]:
            return h.legal_actions()

    decide = netgame.bot_decider("expert:5i", random.Random(1))
    original = NinesSearch.determinise

    def spy(self: NinesSearch, obs: object, rng: random.Random) -> HandState:
        threads.append(threading.current_thread().name)
        return original(self, obs, rng)  # type: ignore[arg-type]

    monkeypatch.setattr(NinesSearch, "determinise", spy)
    action = trio.run(decide, Table())
    assert action in h.legal_actions()
    assert threads and threading.main_thread().name not in threads
