"""The English of the games' rules in words (``Game.describe_rules``: the audit's checklist), by key.

The interface's catalogs hold the French and the Italian under the same keys
(:mod:`p2pcards.ui.i18n` takes these messages in); :data:`ENGLISH` says them as they are.
"""

from __future__ import annotations

from p2pcards.errors import RuleOptionError
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

ENGLISH = English(RULE_WORDS, RULE_PLURAL)
"""The rules in English: the default of ``describe_rules``."""


def rule_error(key: str, **values: object) -> RuleOptionError:
    """A refused rule option, said by ``key`` (its English the message; the interface says it
    in the player's language from the key and values)."""
    return RuleOptionError(ENGLISH(key, **values), key, values)
