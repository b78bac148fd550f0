"""The English of the games' rules in words (``Game.describe_rules``: the audit's checklist), by key.

The interface's catalogs hold the French and the Italian under the same keys
(:mod:`p2pcards.ui.i18n` takes these messages in); :data:`ENGLISH` says them as they are.
"""

from __future__ import annotations

from p2pcards.errors import IllegalAction, RuleOptionError
from p2pcards.say import English

RULE_WORDS: dict[str, str] = {
    "rules_players_exactly": "{game} is for exactly {n} players, not {players}",
    "rules_players_span": "{game} is for {lo} to {hi} players, not {players}",
    "rules_nines_target": "the game ends when a total reaches {target} points",
    "rules_nines_tie_share": "tied lowest totals share the win",
    "rules_nines_tie_playoff": "a tie is played off with one more hand",
    "rules_nines_draw_until_playable": "draw until playable",
    "rules_nines_action_cards": "action cards (J skips, Q reverses, A: next draws two)",
    "rules_nines_double_nines": "double nines (two decks; two 9s change suit and skip)",
    "rules_nines_stacking_nines": "stacking nines (a 9 cancels a double-9 skip)",
    "rules_nines_hard_nines": "hard nines (a 9 left in hand costs 25)",
    "rules_nines_no_nine_out": "no nine out (a 9 may not be the last card)",
    "rules_nines": "Rules: {end}; the lowest total wins; {tie}.",
    "rules_nines_variants": "Variants on: {variants}.",
    "rules_nines_no_variant": "none (the main rules)",
    "rules_list_sep": "; ",
    "rules_neuf_S": "spades",
    "rules_neuf_H": "hearts",
    "rules_neuf_D": "diamonds",
    "rules_neuf_C": "clubs",
    "rules_neuf_none": "no trump",
    "rules_neuf_trumps_fixed": "Trumps: {suits} in every hand.",
    "rules_neuf_trumps_rotate": "Trumps change each hand: {suits}, then again.",
    "rules_neuf_open": "open (a player may look at the dummy before choosing)",
    "rules_neuf_blind": "blind (nobody looks at the dummy)",
    "rules_neuf": (
        "Rules: everyone starts at {start} and counts down; the game ends when a total reaches 0;"
        " the lowest total wins."
    ),
    "rules_neuf_exchange": "Exchanges with the dummy: {exchange}.",
    # Why a rule option is refused (RuleOptionError): at the command line, or in a host's terms.
    "rule_err_unknown": "unknown rule {name}; known rules: {known}",
    "rule_err_unknown_options": "unknown rule option(s): {names}",
    "rule_err_needs_value": "rule {name} needs a value, e.g. {example}",
    "rule_err_yes_no": "rule {name} takes yes or no, not {value}",
    "rule_err_whole": "rule {name} needs a whole number, not {value}",
    "rule_err_range": "rule {name} must be from {lo} to {hi}, not {value}",
    "rule_err_tie": "rule tie is share or playoff, not {value}",
    "rule_err_stacking": "stacking-nines needs double-nines",
    "rule_err_exchange": "rule exchange is open or blind, not {value}",
    "rule_err_trumps_count": "trumps is a rotation of 1 to 5 entries, each a suit or no trump",
    "rule_err_trump": "a trump is one of S, H, D, C or none, not {value}",
    "rule_err_trump_twice": "a trump appears twice in the rotation",
    "rule_err_trump_word": (
        "trumps: {value} is not a suit (S, H, D, C) nor N for no trump; or name a rotation: {presets}"
    ),
}
"""The rules' words, by key."""

RULE_PLURAL: dict[str, tuple[str, str]] = {
    "rules_nines_hands": ("exactly {n} hand is played", "exactly {n} hands are played"),
}
"""The rules' words that follow a number, singular and plural."""

ILLEGAL_WORDS: dict[str, str] = {
    # Why the rules refuse a move (IllegalAction's detail). Its English is what a fault names
    # (``illegal move: {detail} (rule {rule})``), which transcripts, audits and outside verifiers
    # hold word for word: it never changes; the interface reads a detail back against these to
    # say it in the player's language. The fields: ``card``, ``top``, ``other`` a card (``QS``),
    # ``cards`` cards joined by ", "; ``suit``, ``led`` a suit's letter; ``seat``, ``turn`` a
    # seat; ``seats`` seats as a list (``[0, 2]``); ``place`` where a card is seen (one of the
    # ``illegal_in_*`` texts); ``phase`` a phase of a Nines turn (``illegal_phase_*``);
    # ``thing`` what was sent instead of a card, as Python writes it; any other a number.
    # -- both games
    "illegal_hand_over": "the hand is over",
    "illegal_turn": "it is seat {turn}'s turn, not seat {seat}'s",
    "illegal_not_a_card": "{thing} is not a card of this deck",
    "illegal_not_held": "plays {cards}, which it does not hold",
    "illegal_seen_elsewhere": "plays {card}, which is {place}",
    "illegal_in_hand": "in seat {seat}'s hand",
    "illegal_in_discards": "in the discard pile",
    "illegal_in_stock": "in the stock",
    "illegal_in_dummy": "in the dummy",
    "illegal_played_already": "played already",
    # -- Nines
    "illegal_rebuild_first": "the stock must be rebuilt before anyone acts",
    "illegal_declare_not_nine": "a suit is declared only when the up card is a 9",
    "illegal_only_drawn": "after drawing only the drawn card may be played, not {card}",
    "illegal_only_nine_cancels": "only a 9 cancels the skip",
    "illegal_play_phase": "cannot play a card now ({phase})",
    "illegal_no_match": "{card} matches neither the active suit {suit} nor the rank of {top}",
    "illegal_only_nine_declares": "only a 9 declares a suit",
    "illegal_nine_last": "a 9 may not be the last card",
    "illegal_double_needs_rule": "two 9s together need the double-nines rule",
    "illegal_double_phase": "cannot play two 9s now ({phase})",
    "illegal_double_two_nines": "a double play is exactly two 9s",
    "illegal_same_twice": "plays the same {card} twice",
    "illegal_nines_last": "9s may not be the last cards",
    "illegal_draw_holding": "holds a legal card ({card}), so may not draw",
    "illegal_draw_twice": "a player never draws a second card",
    "illegal_play_the_drawn": "must play the drawn {card}",
    "illegal_draw_phase": "cannot draw now ({phase})",
    "illegal_recycle_first": "the stock is empty: recycle the discards first",
    "illegal_must_pass": "the stock is empty and nothing can be recycled: pass",
    "illegal_not_top": "drew {card} but the top of the stock is {top}",
    "illegal_drew_seen": "drew {card}, which is {place}",
    "illegal_keep_not_drawn": "only a player who just drew can keep the card",
    "illegal_keep_until_playable": "keep draws until a legal card, then plays it",
    "illegal_pass_holding": "holds a legal card ({card}), so may not pass",
    "illegal_pass_phase": "cannot pass now ({phase})",
    "illegal_pass_can_draw": "a player may pass only when there is nothing to draw",
    "illegal_no_skip": "there is no skip to accept",
    "illegal_recycle_not_empty": "the stock is recycled only when a draw finds it empty",
    "illegal_recycle_size": "the new stock must hold {n} cards",
    "illegal_recycle_twice": "the new stock holds a non-card or a card twice",
    "illegal_recycle_stray": "{card} is not among the discards",
    "illegal_reveal_count": "shows {n} cards but holds {held}",
    "illegal_reveal_twice": "shows the same card twice",
    "illegal_reveal_hides": "does not show {card}, which it holds",
    "illegal_reveal_seen": "shows {card}, which is {place}",
    "illegal_declare_suit": "a 9 must declare one of S, H, D, C (got {thing})",
    "illegal_phase_declare": "declare",
    "illegal_phase_turn": "turn",
    "illegal_phase_drawn": "drawn",
    "illegal_phase_forced-draw": "forced-draw",
    "illegal_phase_stack": "stack",
    "illegal_phase_recycle": "recycle",
    "illegal_phase_over": "over",
    # -- Le Neuf
    "illegal_look_over": "cannot look at the dummy now: the exchanges are over",
    "illegal_exchange_over": "cannot exchange now: the exchanges are over",
    "illegal_decline_over": "cannot decline the dummy now: the exchanges are over",
    "illegal_dummy_size": "the dummy holds {n} cards",
    "illegal_dummy_not_card": "names something that is not a card of this deck",
    "illegal_dummy_twice": "names a card twice",
    "illegal_dummy_leaves_out": "leaves out {card}, which the dummy holds",
    "illegal_dummy_seen": "names {card}, which is {place}",
    "illegal_blind": "exchanges are blind: nobody looks at the dummy",
    "illegal_look_once": "a seat looks at the dummy once",
    "illegal_play_before_exchanges": "cards are played once the three exchanges are done",
    "illegal_follow": "plays {card} on {led} led while holding {other}: must follow",
    "illegal_revoked": "plays {card}, a {suit} card, so it revoked on trick {trick} by not following {suit}",
    "illegal_no_cut": "there was no cut",
    "illegal_cut_seats": "round {round} of the cut is for seats {seats}",
    "illegal_cut_cards": "round {round} of the cut shows a card twice or a non-card",
    "illegal_cut_decided": "the cut was decided in round {round}",
    "illegal_cut_tied": "seats {seats} are still tied: they cut again",
}
"""Why the rules refuse a move, by key (:func:`illegal`)."""

ILLEGAL_PLACES = (
    "illegal_in_hand",
    "illegal_in_discards",
    "illegal_in_stock",
    "illegal_in_dummy",
    "illegal_played_already",
)
"""Where a card is seen (a detail's ``place``)."""


def illegal(seat: int | None, rule: str, key: str, /, **values: object) -> IllegalAction:
    """A move ``seat`` may not make, breaking ``rule``, said by ``key`` of :data:`ILLEGAL_WORDS`
    (its English the detail; the interface says it in the player's language)."""
    return IllegalAction(seat, rule, ILLEGAL_WORDS[key].format(**values), key, values)


def where_seen(key: str, **values: object) -> str:
    """Where a card is seen (``key`` one of :data:`ILLEGAL_PLACES`), in English."""
    return ILLEGAL_WORDS[key].format(**values)


ENGLISH = English(RULE_WORDS, RULE_PLURAL)
"""The rules in English: the default of ``describe_rules``."""


def rule_error(key: str, **values: object) -> RuleOptionError:
    """A refused rule option, said by ``key`` (its English the message; the interface says it
    in the player's language from the key and values)."""
    return RuleOptionError(ENGLISH(key, **values), key, values)
