"""The English of what Le Neuf's screen says, by key; the translations are in the catalogs
(``p2pcards/locale``) beside every other message. French card words are used as a French
player would: atout, pli, entamer, fournir, le mort (the dummy)."""

WORDS: dict[str, str] = {
    "neuf_welcome": "Le Neuf: {you} against {others} ({bots}).",
    "neuf_welcome_watch": "Le Neuf: {names} ({bots}).",
    "neuf_goal": (
        "Everyone starts at {start} and counts down: each hand adds 4 minus the tricks taken, so "
        "each trick over 4 takes a point off. The match ends when a total reaches 0; the lowest "
        "total wins."
    ),
    "neuf_rotation": "Trumps change with every hand: {rotation}, then round again.",
    "neuf_rotation_fixed": "The same trumps in every hand: {rotation}.",
    "neuf_rotation_none": "No trumps in any hand.",
    "neuf_open": "Open exchanges: you may look at the dummy before you take it or leave it.",
    "neuf_blind": "Blind exchanges: the dummy is taken or left unseen; nobody looks at it.",
    "neuf_cut_title": "Cut for the first deal (highest card deals, Ace high):",
    "neuf_cut_tie": "Tie for highest between {names}: they cut again.",
    "neuf_trump": "trumps {suit}",
    "neuf_no_trump": "no trumps",
    "neuf_nt": "NT",
    "neuf_order": "Turns to take the dummy: {order}.",
    "neuf_leads": "{who} leads the first trick.",
    "neuf_leads_you": "You lead the first trick.",
    "neuf_exchange_title": "your turn: the dummy",
    "neuf_trick_title": "trick {n}",
    "neuf_tricks_zero": "0 tricks",
    "neuf_tricks_one": "1 trick",
    "neuf_tricks_many": "{n} tricks",
    "neuf_took_mark": "took the dummy",
    "neuf_took_mark_you": "took the dummy",
    "neuf_dummy_down": "The dummy lies face down, as it was dealt.",
    "neuf_dummy_gave": "In the dummy's place lies the hand {who} gave up.",
    "neuf_dummy_gave_you": "In the dummy's place lies the hand you gave up.",
    "neuf_the_dummy": "The dummy",
    "neuf_after_exchanges": "After the exchanges:",
    "neuf_known": "{who} holds {cards} (you saw them in the dummy)",
    "neuf_known_one": "{who} holds {cards} (you saw it in the dummy)",
    "neuf_dummy_known": "Out of play in the dummy: {cards}",
    "neuf_prompt_look": "Look at the dummy? (y/n)",
    "neuf_prompt_take": "Take the dummy? (y/n)",
    "neuf_prompt_take_blind": "Take the dummy without looking? (y/n)",
    "neuf_err_not_yet": "{text}: no card is played before the dummy is settled - answer y or n",
    "neuf_log_look": "{who} looked at the dummy",
    "neuf_log_look_you": "You looked at the dummy",
    "neuf_log_look_take": "{who} looked at the dummy and took it",
    "neuf_log_look_take_you": "You looked at the dummy and took it",
    "neuf_log_look_leave": "{who} looked at the dummy and left it",
    "neuf_log_look_leave_you": "You looked at the dummy and left it",
    "neuf_log_take": "{who} took the dummy without looking",
    "neuf_log_take_you": "You took the dummy without looking",
    "neuf_log_leave": "{who} left the dummy without looking",
    "neuf_log_leave_you": "You left the dummy without looking",
    "neuf_log_take_blind": "{who} took the dummy",
    "neuf_log_take_blind_you": "You took the dummy",
    "neuf_log_leave_blind": "{who} left the dummy",
    "neuf_log_leave_blind_you": "You left the dummy",
    "neuf_trick": "Trick {n}: {plays}",
    "neuf_led": "{who} led {card}",
    "neuf_led_you": "you led {card}",
    "neuf_played": "{who} played {card}",
    "neuf_played_you": "you played {card}",
    "neuf_wins": "{who} wins",
    "neuf_wins_you": "you win",
    "neuf_suit_led": "{suit} led",
    "neuf_your_lead": "You lead: play any card.",
    "neuf_follow": "You must follow {suit}:",
    "neuf_void": "You have no {suit}: play any card.",
    "neuf_prompt": "Your card",
    "neuf_rule_follow-suit": "you hold a {one}, and {many} were led: you must follow suit",
    "neuf_suit1_S": "spade",
    "neuf_suit1_H": "heart",
    "neuf_suit1_D": "diamond",
    "neuf_suit1_C": "club",
    "neuf_hand_over": "Hand {n} is over: every card is played, none is left in any hand.",
    "neuf_dummy_held": "The dummy held {cards} (out of play).",
    "neuf_dummy_dealt": "As dealt, the dummy held {cards}.",
    "neuf_hands_played": "The hands as played:",
    "neuf_hands_verified": "The hands as played, every card revealed and checked by every node:",
    "neuf_col_trumps": "Trumps",
    "neuf_row_start": "Start",
    "neuf_note_scores": "Each hand: points added (tricks taken). Totals count down to 0.",
    "neuf_help_title": "How to play Le Neuf",
    "neuf_help_deal": (
        "Three players and a fourth hand, the dummy, get 13 cards each. Within a suit the cards "
        "rank A K Q J 10 down to 2."
    ),
    "neuf_help_open": (
        "Before play the dealer, then the player on the dealer's left, then the third player may "
        "each look at the dummy (privately) and take it, leaving their own hand in its place."
    ),
    "neuf_help_blind": (
        "Before play the dealer, then the player on the dealer's left, then the third player may "
        "each take the dummy, leaving their own hand in its place. Exchanges are blind: nobody "
        "looks at the dummy."
    ),
    "neuf_help_play": (
        "The player on the dealer's left leads the first trick. Follow suit if you can; if you "
        "cannot, play any card. The highest trump wins the trick, else the highest card of the "
        "suit led; the winner leads the next trick."
    ),
    "neuf_help_play_nt": (
        "The player on the dealer's left leads the first trick. Follow suit if you can; if you "
        "cannot, play any card. The highest card of the suit led wins the trick; the winner leads "
        "the next trick."
    ),
    "neuf_help_score": (
        "Everyone starts at {start}; each hand adds 4 minus the tricks you took. The match ends "
        "after a hand in which a total reaches 0 or less; the lowest total wins."
    ),
    "neuf_help_keys": (
        "What to type\n"
        "  y or n                      when asked about the dummy\n"
        "  a number from the list      1\n"
        "  a card                      QS  10h  TH  q♠  Q spades\n"
        "  score                       the score table\n"
        "  help                        this text\n"
        "  quit                        leave the game"
    ),
    # the replay page's table
    "rph_trump": "Trump",
    "rph_trick_of": "Trick {n} of 13",
    "rph_trick": "Trick",
}
