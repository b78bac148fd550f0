"""The full-information record (docs/record.md): strict schema, and a replay that proves it complete.

``validate_record`` checks the document field by field (it lives here, not in
the package, so the package cannot grade its own homework). ``replay`` rebuilds
every deck from ``dealt`` + ``up_card`` + ``stock``, plays the events through
a fresh engine and compares every score: if the record left anything out, the
replay could not reach the same totals and winners.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pcards.bots import make_bot
from p2pcards.cards import Card, deck, parse_cards
from p2pcards.games.base import MatchLoop, RandomShuffler
from p2pcards.games.nines import GAME as NINES_GAME
from p2pcards.games.nines.record import build_record
from p2pcards.games.nines.rules import (
    AcceptSkip,
    Declare,
    Draw,
    HandState,
    Keep,
    Match,
    NinesRules,
    Pass,
    Phase,
    Play,
    PlayNines,
    Recycle,
    cut_lowest,
    hand_size,
)
from p2pcards.record import FORMAT, dumps_record

CARD = re.compile(r"^(10|[2-9AJQK])[SHDC]$")
SUIT = re.compile(r"^[SHDC]$")
RANK_ORDER = {"A": 1, "J": 11, "Q": 12, "K": 13}


def _rank(text: str) -> int:
    r = text[:-1]
    return RANK_ORDER[r] if r in RANK_ORDER else int(r)


# ---------------------------------------------------------------------------
# Strict schema


def _card(x: Any) -> str:
    assert isinstance(x, str) and CARD.match(x), f"not a card: {x!r}"
    return x


def _seat(x: Any, n: int) -> int:
    assert isinstance(x, int) and not isinstance(x, bool) and 0 <= x < n, f"not a seat: {x!r}"
    return x


def _int_list(x: Any, n: int) -> list[int]:
    assert isinstance(x, list) and len(x) == n
    assert all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in x)
    return x


def validate_record(doc: Any) -> None:
    """Raise AssertionError unless ``doc`` is exactly a ``p2pcards-record/1`` document of Nines."""
    assert isinstance(doc, dict)
    assert set(doc) == {"format", "game", "rules", "players", "verdict", "cut", "hands", "result"}
    assert doc["format"] == FORMAT
    assert doc["game"] == "nines"
    rules = NinesRules.from_dict(doc["rules"])
    assert doc["rules"] == rules.to_dict(), "every rule option in force, by name"

    players = doc["players"]
    assert isinstance(players, list) and 2 <= len(players) <= 6
    n = len(players)
    for i, p in enumerate(players):
        assert set(p) == {"seat", "name", "key"}
        assert p["seat"] == i
        assert isinstance(p["name"], str) and p["name"]
        assert isinstance(p["key"], str) and re.fullmatch(r"([0-9a-f]{64})?", p["key"])

    verdict = doc["verdict"]
    assert set(verdict) in ({"valid", "problems"}, {"valid", "problems", "incomplete"})
    assert verdict.get("incomplete", True) is True
    assert isinstance(verdict["valid"], bool) and isinstance(verdict["problems"], list)
    for problem in verdict["problems"]:
        assert {"hand", "seat", "record", "what"} <= set(problem)
    assert verdict["valid"] == (not verdict["problems"])

    cut = doc["cut"]
    assert isinstance(cut, list) and cut
    expected_seats = list(range(n))
    for shown in cut:
        assert [e["seat"] for e in shown] == expected_seats
        for e in shown:
            assert set(e) == {"seat", "card"}
            _card(e["card"])
        low = min(_rank(e["card"]) for e in shown)
        expected_seats = [e["seat"] for e in shown if _rank(e["card"]) == low]
    assert len(expected_seats) == 1, "the last cut round has a single lowest card"

    full_deck = Counter(c.text() for c in deck(2 if rules.double_nines else 1))
    totals = [0] * n
    hand_keys = {"number", "dealer", "playoff", "dealt", "up_card", "stock", "events", "end", "out"}
    hand_keys |= {"penalties", "totals"}
    for k, h in enumerate(doc["hands"]):
        assert set(h) == hand_keys
        assert h["number"] == k + 1
        _seat(h["dealer"], n)
        assert isinstance(h["playoff"], bool)
        dealt = h["dealt"]
        assert isinstance(dealt, list) and len(dealt) == n
        playing = [s for s in range(n) if dealt[s]]
        assert h["dealer"] in playing
        if not h["playoff"]:
            assert playing == list(range(n)), "only a playoff hand leaves seats out"
        for s in playing:
            assert len(dealt[s]) == hand_size(len(playing))
        cards = [_card(c) for s in playing for c in dealt[s]] + [_card(h["up_card"])]
        assert isinstance(h["stock"], list)
        cards += [_card(c) for c in h["stock"]]
        assert Counter(cards) == full_deck, "dealt + up card + stock is exactly the deck"
        assert isinstance(h["events"], list)
        for e in h["events"]:
            _validate_event(e, n, rules)
        assert h["end"] in ("out", "stall")
        if h["end"] == "out":
            assert _seat(h["out"], n) in playing
        else:
            assert h["out"] is None
        pens = _int_list(h["penalties"], n)
        if h["end"] == "out":
            assert pens[h["out"]] == 0
        if not h["playoff"]:
            totals = [t + p for t, p in zip(totals, pens, strict=True)]
        assert _int_list(h["totals"], n) == totals

    result = doc["result"]
    assert set(result) == {"winners", "totals", "finished"}
    assert isinstance(result["finished"], bool)
    assert _int_list(result["totals"], n) == totals
    winners = result["winners"]
    assert isinstance(winners, list) and winners == sorted(set(winners))
    for s in winners:
        _seat(s, n)
    assert bool(winners) == result["finished"]


def _validate_event(e: Any, n: int, rules: NinesRules) -> None:
    assert isinstance(e, dict)
    t = e.get("type")
    if t == "declare":
        assert set(e) == {"type", "seat", "suit"} and SUIT.match(e["suit"])
        _seat(e["seat"], n)
    elif t == "play":
        _seat(e["seat"], n)
        if "cards" in e:
            assert rules.double_nines
            assert set(e) == {"type", "seat", "cards", "suit"} and SUIT.match(e["suit"])
            assert len(e["cards"]) == 2 and all(_card(c).startswith("9") for c in e["cards"])
        elif _card(e["card"]).startswith("9"):
            assert set(e) == {"type", "seat", "card", "suit"} and SUIT.match(e["suit"])
        else:
            assert set(e) == {"type", "seat", "card"}
    elif t == "draw":
        _seat(e["seat"], n)
        _card(e["card"])
        if "forced" in e:
            assert set(e) == {"type", "seat", "card", "forced"} and e["forced"] is True
            assert rules.action_cards
        else:
            assert set(e) == {"type", "seat", "card"}
    elif t == "recycle":
        assert set(e) == {"type", "stock"} and e["stock"]
        for c in e["stock"]:
            _card(c)
    elif t == "pass":
        assert set(e) == {"type", "seat"}
        _seat(e["seat"], n)
    else:
        raise AssertionError(f"unknown event type {t!r}")


# ---------------------------------------------------------------------------
# Replay through a fresh engine


def rebuild_deck(h: dict[str, Any], n: int) -> tuple[Card, ...]:
    """The deck of a hand, top first: dealt one card at a time from the dealer's left."""
    playing = [s for s in range(n) if h["dealt"][s]]
    i = playing.index(h["dealer"])
    order = playing[i + 1 :] + playing[: i + 1]
    size = len(h["dealt"][order[0]])
    texts = [h["dealt"][s][k] for k in range(size) for s in order]
    return parse_cards([*texts, h["up_card"], *h["stock"]])


def _pick(text: str, pool: Sequence[Card | None]) -> Card:
    """The card called ``text`` in ``pool`` (either copy of a double deck)."""
    return next(c for c in pool if c is not None and c.text() == text)


def _apply_event(hand: HandState, e: dict[str, Any]) -> None:
    t = e["type"]
    if t == "declare":
        hand.apply(Declare(seat=e["seat"], suit=e["suit"]))
    elif t == "play" and "cards" in e:
        pool = list(hand.hands[e["seat"]])
        first = _pick(e["cards"][0], pool)
        pool.remove(first)
        hand.apply(PlayNines(seat=e["seat"], cards=(first, _pick(e["cards"][1], pool)), suit=e["suit"]))
    elif t == "play":
        held = hand.hands[e["seat"]]
        card = held[-1] if hand.phase is Phase.DRAWN else _pick(e["card"], held)
        hand.apply(Play(seat=e["seat"], card=card, suit=e.get("suit")))
    elif t == "draw":
        hand.apply(Draw(seat=e["seat"]))
        got = hand.events[-1]
        assert isinstance(got, Draw) and got.card is not None
        assert got.card.text() == e["card"]
        assert got.forced == e.get("forced", False)
    elif t == "recycle":
        pool = list(hand.discards[:-1])
        stock = []
        for text in e["stock"]:
            c = _pick(text, pool)
            pool.remove(c)
            stock.append(c)
        hand.apply(Recycle(stock=tuple(stock)))
    elif t == "pass":
        hand.apply(Pass(seat=e["seat"]))
    else:
        raise AssertionError(t)


def _implied(hand: HandState, nxt: dict[str, Any] | None) -> bool:
    """Apply a Keep or AcceptSkip that the record leaves implicit; True if one was applied."""
    seat = hand.turn
    if hand.phase is Phase.DRAWN and not hand.rules.draw_until_playable:
        drawn = hand.hands[seat][-1]
        plays_it = (
            nxt is not None
            and nxt["type"] == "play"
            and nxt.get("seat") == seat
            and nxt.get("card") == (drawn.text() if drawn is not None else None)
        )
        if not plays_it:
            hand.apply(Keep(seat=seat))
            return True
    if hand.phase is Phase.STACK:
        stacks = nxt is not None and nxt["type"] == "play" and nxt.get("seat") == seat
        if not stacks:
            hand.apply(AcceptSkip(seat=seat))
            return True
    return False


def replay(doc: dict[str, Any]) -> Match | None:
    """Play the record through a fresh engine, checking every hand's outcome against it."""
    rules = NinesRules.from_dict(doc["rules"])
    n = len(doc["players"])
    shown = {e["seat"]: e["card"] for e in doc["cut"][-1]}
    dealer = cut_lowest({s: parse_cards([c])[0] for s, c in shown.items()})
    assert len(dealer) == 1
    match = Match(rules=rules, players=n, dealer=dealer[0])
    for h in doc["hands"]:
        assert match.dealer == h["dealer"]
        hand = match.start_hand(rebuild_deck(h, n))
        assert [[c.text() for c in cards if c is not None] for cards in hand.dealt] == h["dealt"]
        events = h["events"]
        i = 0
        while hand.phase is not Phase.OVER:
            nxt = events[i] if i < len(events) else None
            if _implied(hand, nxt):
                continue
            assert nxt is not None, f"hand {h['number']}: the events end before the hand does"
            _apply_event(hand, nxt)
            i += 1
        assert i == len(events), f"hand {h['number']}: events after the end of the hand"
        result = match.close_hand()
        assert (result.end, result.out, result.playoff) == (h["end"], h["out"], h["playoff"])
        assert list(result.penalties) == h["penalties"]
        assert list(result.totals) == h["totals"]
    assert match.totals == doc["result"]["totals"]
    assert list(match.winners or ()) == doc["result"]["winners"]
    assert match.over == doc["result"]["finished"]
    return match


# ---------------------------------------------------------------------------
# Matches to record


class Silent:
    """An observer that shows nothing (the tests only need the match)."""

    def cut(self, rounds: object, dealer: int) -> None: ...
    def hand_start(self, hand: object) -> None: ...
    def move(self, action: object) -> None: ...
    def hand_end(self, hand: object, result: object, match: object) -> None: ...
    def match_end(self, match: object) -> None: ...


def bot_match(
    rules: NinesRules, players: int, seed: int, bot: str = "random", shuffler: Any = None
) -> MatchLoop:
    bots = [make_bot(bot) for _ in range(players)]
    rng = random.Random(seed + 1)
    game = MatchLoop(
        NINES_GAME,
        rules,
        players,
        shuffler or RandomShuffler(NINES_GAME.deck_copies(rules), random.Random(seed)),
        lambda seat, view, legal: bots[seat].choose(view, legal, rng),
        Silent(),
    )
    game.run()
    return game


def record_of(game: MatchLoop) -> dict[str, Any]:
    assert game.match is not None
    names = [f"p{i}" for i in range(game.match.players)]
    doc = build_record(game.match, names, game.cut_rounds)
    return json.loads(dumps_record(doc))  # through the JSON text, as a reader gets it


def events_of(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for h in doc["hands"] for e in h["events"]]


VARIANTS = [
    [],
    ["hard-nines"],
    ["action-cards"],
    ["draw-until-playable"],
    ["no-nine-out"],
    ["double-nines", "stacking-nines"],
    ["double-nines", "action-cards", "tie=playoff"],
]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    players=st.integers(2, 6),
    variant=st.sampled_from(VARIANTS),
    bot=st.sampled_from(["random", "heuristic"]),
)
def test_any_match_records_validly_and_replays_to_the_same_scores(
    seed: int, players: int, variant: list[str], bot: str
) -> None:
    rules = NinesRules.parse([*variant, "hands=2"])
    game = bot_match(rules, players, seed, bot)
    doc = record_of(game)
    validate_record(doc)
    assert game.match is not None
    assert len(doc["hands"]) == len(game.match.results) >= 2
    replayed = replay(doc)
    assert replayed is not None and replayed.winners == game.match.winners


def test_record_of_the_example_match_reaches_the_target() -> None:
    game = bot_match(NinesRules(), 4, seed=11)
    doc = record_of(game)
    validate_record(doc)
    assert doc["result"]["finished"] is True
    assert max(doc["result"]["totals"]) >= 100
    assert doc["rules"]["target"] == 100 and doc["rules"]["hands"] is None
    replay(doc)


def _first_record(rules: NinesRules, players: int, wanted: Any, seeds: range = range(200)) -> dict[str, Any]:
    for seed in seeds:
        doc = record_of(bot_match(rules, players, seed))
        if wanted(doc):
            return doc
    raise AssertionError("no seed produced the situation under test")


def test_double_nines_are_one_play_event_with_cards_and_replay() -> None:
    rules = NinesRules.parse(["double-nines", "hands=1"])
    doc = _first_record(rules, 5, lambda d: any("cards" in e for e in events_of(d)))
    validate_record(doc)
    double = next(e for e in events_of(doc) if "cards" in e)
    assert double["type"] == "play" and len(double["cards"]) == 2 and "card" not in double
    assert all(c.startswith("9") for c in double["cards"])
    replay(doc)


def test_stacking_nines_replays_with_the_implied_accept_skip() -> None:
    rules = NinesRules.parse(["double-nines", "stacking-nines", "hands=1"])
    doc = _first_record(rules, 5, lambda d: any("cards" in e for e in events_of(d)))
    validate_record(doc)
    replay(doc)


def test_ace_draws_are_forced_draw_events() -> None:
    rules = NinesRules.parse(["action-cards", "hands=1"])
    doc = _first_record(rules, 4, lambda d: any(e.get("forced") for e in events_of(d)))
    validate_record(doc)
    events = events_of(doc)
    k = next(i for i, e in enumerate(events) if e.get("forced"))
    ace = events[k - 1]
    assert ace["type"] == "play" and ace["card"].startswith("A"), "an Ace is what forces the draw"
    assert events[k]["seat"] != ace["seat"]
    replay(doc)


def test_recycle_events_rebuild_the_stock_from_the_discards() -> None:
    rules = NinesRules.parse(["draw-until-playable", "hands=1"])
    doc = _first_record(rules, 2, lambda d: any(e["type"] == "recycle" for e in events_of(d)))
    validate_record(doc)
    for h in doc["hands"]:
        played = []
        for e in h["events"]:
            if e["type"] == "recycle":
                # the new stock is made of cards already played (or the up card)
                assert Counter(e["stock"]) <= Counter([h["up_card"], *played])
            elif e["type"] == "play":
                played += e.get("cards", [e.get("card")])
    replay(doc)


def test_tampered_record_does_not_replay() -> None:
    """The replay really checks: changing one penalty makes it fail."""
    doc = record_of(bot_match(NinesRules.parse(["hands=1"]), 3, seed=5))
    replay(doc)
    doc["hands"][0]["penalties"][0] += 1
    with pytest.raises(AssertionError):
        replay(doc)


def test_validate_record_rejects_renamed_or_missing_fields() -> None:
    doc = record_of(bot_match(NinesRules.parse(["hands=1"]), 3, seed=5))
    validate_record(doc)
    for path in (("format",), ("hands", 0, "up_card"), ("result", "winners"), ("players", 0, "key")):
        broken = json.loads(json.dumps(doc))
        parent = broken
        for step in path[:-1]:
            parent = parent[step]
        parent["x_" + str(path[-1])] = parent.pop(path[-1])
        with pytest.raises(AssertionError):
            validate_record(broken)
    wrong_card = json.loads(json.dumps(doc))
    wrong_card["hands"][0]["stock"][0] = "1S"
    with pytest.raises(AssertionError):
        validate_record(wrong_card)


# ---------------------------------------------------------------------------
# A crafted playoff: a stall leaves two seats tied for the lowest total


def _c(text: str) -> Card:
    return parse_cards([text])[0]


class CraftedShuffler:
    """Cuts a tie then seat 0; deals one stalled hand that ties seats 1 and 2; then shuffles."""

    def __init__(self) -> None:
        self.rng = random.Random(1)
        self.cuts = [["5H", "5D", "KS"], ["AH", "4C"]]
        self.hands = 0

    def cut(self, seats: Sequence[int]) -> list[tuple[int, Card]]:
        shown = self.cuts.pop(0)
        return [(s, _c(t)) for s, t in zip(seats, shown, strict=True)]

    def deal(self) -> list[Card]:
        self.hands += 1
        if self.hands > 1:
            cards = list(deck())
            self.rng.shuffle(cards)
            return cards
        # Dealer 0: seats 1, 2, 0 receive in turn. Up card 2S; nobody holds a spade, a 2 or a 9.
        seat1 = ["3H", "4H", "5H", "6H", "7H", "8H", "10H"]  # 43, draws JH -> 53
        seat2 = ["3D", "4D", "5D", "6D", "7D", "8D", "10D"]  # 43, draws QD -> 53
        seat0 = ["5C", "6C", "7C", "8C", "10C", "JC", "QC"]  # 56, draws KC -> 66
        dealt = [t for k in range(7) for t in (seat1[k], seat2[k], seat0[k])]
        top = [*dealt, "2S", "JH", "QD", "KC"]
        rest = [c for c in deck() if c.text() not in top]
        return [_c(t) for t in top] + rest

    def recycle(self, discards: Sequence[Card]) -> tuple[Card, ...]:
        cards = list(discards)
        self.rng.shuffle(cards)
        return tuple(cards)


def test_playoff_hands_are_flagged_and_seats_sitting_out_have_empty_dealt() -> None:
    rules = NinesRules.parse(["tie=playoff", "hands=1"])
    game = bot_match(rules, 3, seed=0, shuffler=CraftedShuffler())
    doc = record_of(game)
    validate_record(doc)
    assert len(doc["cut"]) == 2 and [e["seat"] for e in doc["cut"][1]] == [0, 1]
    first, playoff = doc["hands"][0], doc["hands"][1]
    assert first["end"] == "stall" and first["playoff"] is False
    assert first["penalties"] == [66, 53, 53]
    assert [e["type"] for e in first["events"]] == ["draw", "draw", "draw"]
    assert playoff["playoff"] is True and playoff["dealt"][0] == []
    assert playoff["totals"] == first["totals"], "a playoff decides the winner only"
    assert doc["result"]["winners"] in ([1], [2])
    replay(doc)
