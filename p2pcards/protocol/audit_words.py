"""The English of the audit's text for people (:meth:`AuditReport.summary` and its parts), by key.

The interface's catalogs hold the French and the Italian under the same keys
(:mod:`p2pcards.ui.i18n` takes these messages in); :data:`ENGLISH` says them as they are.
"""

from __future__ import annotations

from p2pcards.say import English

AUDIT_WORDS: dict[str, str] = {
    "audit_and": "and",
    # A step's kind: its name in protocol.md, said in English as it is.
    "audit_kind_join": "join",
    "audit_kind_continue": "continue",
    "audit_kind_cut_commit": "cut-commit",
    "audit_kind_cut_reveal": "cut-reveal",
    "audit_kind_commit": "commit",
    "audit_kind_shuffle": "shuffle",
    "audit_kind_lock": "lock",
    "audit_kind_deal": "deal",
    "audit_kind_turn": "turn",
    "audit_kind_draw_keys": "draw-keys",
    "audit_kind_exchange": "exchange",
    "audit_kind_open_keys": "open-keys",
    "audit_kind_relock": "relock",
    "audit_kind_unlock": "unlock",
    "audit_kind_reveal": "reveal",
    "audit_kind_result": "result",
    "audit_kind_over": "over",
    "audit_nobody": "nobody",
    "audit_semicolon": "; ",
    "audit_seat": "seat {seat}",
    "audit_who": "{name} (seat {seat})",
    "audit_you_player": '"{you}"',
    "audit_confirmed": "{names} confirmed that every player read these digits",
    "audit_differed": "{names} said the digits differed",
    "audit_other_table": "{names} signed the digits of another table (not counted)",
    "audit_nobody_confirmed": "Nobody confirmed comparing it with the other players.",
    "audit_saved_by": "by {who}",
    "audit_left_with": "{name} left with {total}",
    "audit_finished_it": "{players} ({n} finished it)",
    "audit_valid": "VALID: a finished game of {game}, {players}, {hands}.",
    "audit_valid_no_hand": "VALID: a game of {game}, {players}, that ended before any hand was finished.",
    "audit_totals": "Totals: {totals}",
    "audit_totals_after": "Totals after hand {k}: {totals}",
    "audit_winner_nobody": "Winner: nobody (no hand was finished)",
    "audit_checked": "What the audit checked:",
    "audit_check_moves": "every move legal, including the rules that depend on hidden cards",
    "audit_check_scores": "scores recomputed hand by hand: the totals above, signed by all",
    "audit_check_no_winner": "no winner: the totals signed by all are the ones the match began with",
    "audit_check_records": "every one of the {n} records is signed, chained and verified.",
    "audit_cards": "cards",
    "audit_incomplete_cut": "INCOMPLETE: a game of {game}, {players}, in a file cut short.",
    "audit_incomplete": "INCOMPLETE: an unfinished game of {game}, {players}; no fault is proven.",
    "audit_none_stops_1": "No hand was verified to its end; it stops in hand 1.",
    "audit_none_before_deal": "No hand was verified: it stops before the first hand was dealt.",
    "audit_cut_after": "The file is cut short after record {last}; everything before it verifies.",
    "audit_no_fault": "No fault is proven.",
    "audit_waiting": (
        "It ends at step {step} ({kind}), which has no record yet from {names}. A missing record"
        " proves nothing against anyone: it may never have been sent, or been lost or held back on"
        " its way (records between two seats with no link of their own pass through the host)."
        " Whoever stopped may have had a reason this file cannot show."
    ),
    "audit_waiting_left": (
        "It ends at step {step} ({kind}), where {names} left the match (below) instead of playing;"
        " the file ends there."
    ),
    "audit_waiting_saver_left": (
        "It ends at step {step} ({kind}), where {name}, who saved this file, left the match (below):"
        " the records of {names} for that step are not in it, nor anything the others did after."
    ),
    "audit_unsigned_result": "It ends before every player signed the result.",
    "audit_check_records_ahead": (
        "every one of the {n} records is signed; the {read} up to step {step} are chained, "
        "and none shows a fault."
    ),
    "audit_check_records_unfinished": (
        "every one of the {n} records is signed and chained; none shows a fault."
    ),
    "audit_none_verified": "No hand was verified to its end.",
    "audit_damaged": (
        "The file itself is damaged outside its signed records: the records around the damage "
        "were read and audited, and such damage blames nobody."
    ),
    "audit_blame_nobody": "nobody in particular",
    "audit_blame_who": "{name} (seat {seat}, key {fp})",
    "audit_record": "record {n}",
    "audit_hand": "hand {n}",
    "audit_file": "file",
    "audit_problem": "- {where}: {what} - blame {who}",
    "audit_players_title": "Players (with the start of each key's fingerprint):",
    "audit_player": "  seat {seat}: {name}, key {fp}",
    "audit_player_left": "  seat {seat}: {name}, key {fp}, left during hand {hand}",
    "audit_player_left_undealt": "  seat {seat}: {name}, key {fp}, left before hand {hand} was dealt",
    "audit_clock": (
        "Clock, signed by every player: {turn} per turn, {step} for any other step, {grace} to"
        " come back after a lost connection."
    ),
    "audit_file_saved": "File saved {saved} - the file's own word, not signed.",
    "audit_file_date": "Last changed on {date} by this disk's clock (the file holds no date).",
    "audit_note": 'Its note on how the game ended: "{note}"',
    "audit_note_said": "Its note on how the game ended: {how}{why}.",
    "audit_note_over": "the match is over",
    "audit_note_failed": "the match stopped",
    "audit_note_aborted": "this player left",
    "audit_note_left": "another player left and nobody remained to play on",
    "audit_note_why": ' ("{why}")',
    "audit_after_totals": "the others were too few to play on: the match ended on the totals so far",
    "audit_after_no_winner": "the others were too few to play on: the match ended with no winner",
    "audit_after_played_on": "the others played on from a fresh deal",
    "audit_departure": (
        '{name} left {when} ({how}: "{reason}"), during hand {hand} at step {step}; the hand in'
        " progress was void and {after}; {name}'s total stays {total}."
    ),
    "audit_left_here": '{name} left ({how}: "{reason}"), during hand {hand} at step {step}.',
    "audit_departure_undealt": (
        '{name} left {when} ({how}: "{reason}") at step {step}, before the cards of hand {hand} were'
        " dealt; {after}; {name}'s total stays {total}."
    ),
    "audit_left_here_undealt": (
        '{name} left ({how}: "{reason}") at step {step}, before the cards of hand {hand} were dealt.'
    ),
    "audit_how_signed": "signed that they leave",
    "audit_how_timed_out": "were judged gone by the others when their time to come back ran out",
    "audit_how_judged_gone": "were judged gone by the others",
}
"""The audit's messages, by key."""

AUDIT_PLURAL: dict[str, tuple[str, str]] = {
    "audit_hands": ("{k} hand", "{k} hands"),
    "audit_players": ("{n} player", "{n} players"),
    "audit_winners": ("Winner: {names}", "Winners: {names}"),
    "audit_check_winners": ("winner recomputed: {names}", "winners recomputed: {names}"),
    "audit_records_ahead": (
        "{k} record of a step after step {step} is in the file too, waiting for the missing records: "
        "it was not chained, and nothing in it was checked.",
        "{k} records of steps after step {step} are in the file too, waiting for the missing records: "
        "they were not chained, and nothing in them was checked.",
    ),
    "audit_all_hands": (
        "All {k} hand was played and verified to the end.",
        "All {k} hands were played and verified to the end.",
    ),
    "audit_hands_to_end": (
        "Hand {k} was verified to its end; it stops in hand {next}.",
        "Hands 1-{k} were verified to their end; it stops in hand {next}.",
    ),
    "audit_check_hand_moves": (
        "every move of that hand legal, even those depending on hidden cards",
        "every move of the hands legal, even those depending on hidden cards",
    ),
    "audit_invalid": ("INVALID: {n} problem found.", "INVALID: {n} problems found."),
    "audit_invalid_game": (
        "INVALID: {n} problem found in a game of {game}.",
        "INVALID: {n} problems found in a game of {game}.",
    ),
    "audit_verified_read": (
        "Hand {k} verified from the records read.",
        "Hands 1-{k} verified from the records read.",
    ),
    "audit_verified_before": (
        "Hand {k} verified before the first problem.",
        "Hands 1-{k} verified before the first problem.",
    ),
    "audit_after_hands": ("after {k} hand", "after {k} hands"),
    "audit_check_shuffles": (
        "{n} shuffle re-derived from the secrets revealed at the end of each hand",
        "{n} shuffles re-derived from the secrets revealed at the end of each hand",
    ),
}
"""The audit's messages whose words follow a number, singular and plural."""

ENGLISH = English(AUDIT_WORDS, AUDIT_PLURAL)
"""The audit's text in English: the default of every text method of the report."""
