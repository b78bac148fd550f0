"""Every user-visible string of the terminal game, in English, French and Italian.

The original rule documents are French and Italian, so players from there are
served in their language. Card notation (``9S``, ``10H``) is the same in every
language; suit *names* are accepted in all three at any suit prompt, whatever
the interface language, so a player never has to guess which words work.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Mapping

from p2pcards.cards import SUIT_SYMBOLS, SUITS
from p2pcards.errors import CardParseError
from p2pcards.protocol.notice import NOTICES

LANGS = ("en", "fr", "it")
DEFAULT_LANG = "en"


def detect_lang(env: Mapping[str, str] | None = None) -> str:
    """The interface language from LC_ALL, LC_MESSAGES or LANG (POSIX order); English otherwise."""
    env = os.environ if env is None else env
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var, "")
        if value:
            code = value.split("_")[0].split(".")[0].split("@")[0].lower()
            return code if code in LANGS else DEFAULT_LANG
    return DEFAULT_LANG


# ---------------------------------------------------------------------------
# Suit names in every language (for display and for input)

SUIT_WORDS: dict[str, dict[str, str]] = {
    "en": {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"},
    "fr": {"S": "pique", "H": "cœur", "D": "carreau", "C": "trèfle"},
    "it": {"S": "picche", "H": "cuori", "D": "quadri", "C": "fiori"},
}

# Extra spellings accepted on input: singulars, plurals, words without accents.
_SUIT_ALIASES: dict[str, str] = {
    "spade": "S",
    "heart": "H",
    "diamond": "D",
    "club": "C",
    "piques": "S",
    "coeur": "H",
    "coeurs": "H",
    "cœurs": "H",
    "carreaux": "D",
    "trefle": "C",
    "trefles": "C",
    "trèfles": "C",
    "picca": "S",
    "cuore": "H",
    "quadro": "D",
    "fiore": "C",
}


def _fold(text: str) -> str:
    """Lower case without accents, so ``Trèfle`` and ``trefle`` compare equal."""
    t = text.strip().lower().replace("œ", "oe")
    return "".join(ch for ch in unicodedata.normalize("NFKD", t) if not unicodedata.combining(ch))


_SUIT_LOOKUP: dict[str, str] = {}
for _names in SUIT_WORDS.values():
    for _letter, _name in _names.items():
        _SUIT_LOOKUP[_fold(_name)] = _letter
for _alias, _letter in _SUIT_ALIASES.items():
    _SUIT_LOOKUP[_fold(_alias)] = _letter


def parse_suit_word(text: str) -> str:
    """A suit from a letter (``S H D C``), a symbol or a name in any of the three languages.

    Names may be abbreviated to any unambiguous prefix of two letters or more
    (``pi`` is spades in French and Italian alike; ``c`` alone is clubs).
    """
    t = text.strip()
    if t in SUIT_SYMBOLS.values() or t in ("♤", "♡", "♢", "♧"):
        return {"♠": "S", "♤": "S", "♥": "H", "♡": "H", "♦": "D", "♢": "D", "♣": "C", "♧": "C"}[t]
    if len(t) == 1 and t.upper() in SUITS:
        return t.upper()
    f = _fold(t)
    if f in _SUIT_LOOKUP:
        return _SUIT_LOOKUP[f]
    if len(f) >= 2:
        found = {letter for name, letter in _SUIT_LOOKUP.items() if name.startswith(f)}
        if len(found) == 1:
            return found.pop()
    raise CardParseError(f"not a suit: {text!r}")


# ---------------------------------------------------------------------------
# Command words: accepted in every language at every prompt

COMMAND_WORDS: dict[str, str] = {}
for _cmd, _words in {
    "help": ("help", "?", "aide", "aiuto"),
    "score": ("score", "scores", "points", "punti", "punteggio"),
    "quit": ("quit", "q", "exit", "quitter", "esci"),
    "draw": ("draw", "d", "piocher", "pioche", "pesca", "pescare"),
    "keep": ("keep", "k", "garder", "garde", "tieni", "tenere"),
    "pass": ("pass", "passer", "passe", "passo", "passa"),
    "yes": ("y", "yes", "o", "oui", "s", "si", "sì"),
    "no": ("n", "no", "non"),
}.items():
    for _w in _words:
        COMMAND_WORDS[_w] = _cmd


# ---------------------------------------------------------------------------
# The strings

_EN: dict[str, str] = {
    **NOTICES,
    "host_hosting": "Hosting {game} for {players} players on port {port}.",
    "host_code": "Invitation code: {code}",
    "host_others_join": "The others join with:",
    "host_address_hint": "(ADDRESS: this machine's address on a network the others can reach)",
    "host_other_addresses": "(or another address of this machine: {addresses})",
    "host_private": "(that address works on this network; from the internet, forward TCP port\n"
    " {port} of your router to this machine and give the others your public address)",
    "host_lan": "(on this network the code alone finds this host: {command})",
    "host_env": "(or set P2PCARDS_CODE to keep the code out of the process list)",
    "host_internet": "From the internet:",
    "host_mapped": "(your router forwards that address to port {port} of this machine ({how}) while the"
    " table is open)",
    "host_double_nat": "(your router forwards {outside} ({how}), but that address is itself private: another"
    " router, your provider's, is in front of it, and nobody outside can dial in. A friend on another"
    " connection may host instead)",
    "host_no_mapping": "(that address works on this network. No router opened port {port}: {why}.\n"
    " From the internet: turn on UPnP or NAT-PMP in your router, or forward its TCP\n"
    " port {port} to this machine, and give the others your public address)",
    "you": "you",
    "You": "You",
    "welcome": "Nines: {you} against {others} ({bots}).",
    "bots": "{name} bots",
    "welcome_watch": "Nines: {names} ({bots}).",
    "goal_target": "Lowest total wins; the match ends when a total reaches {target}.",
    "goal_hands": "Lowest total wins after {hands} hands.",
    "goal_one_hand": "One hand: the lowest total wins.",
    "hint": "Type help at any prompt for help, score for the scores, quit to leave.",
    "cut_title": "Cut for the first deal (lowest card deals, Ace low):",
    "cut_tie": "Tie for lowest between {names}: they cut again.",
    "cut_dealer": "{name} deals first.",
    "cut_dealer_you": "You deal first.",
    "hand_title": "Hand {n}",
    "playoff_title": "Playoff hand: {names}",
    "deals": "{name} deals",
    "deals_you": "you deal",
    "up_card": "Up card {card}",
    "stock": "Stock",
    "top": "Top",
    "suit": "Suit",
    "cards_one": "1 card",
    "cards_many": "{n} cards",
    "total": "total {n}",
    "dealer_mark": "dealer",
    "sits_out": "sits out",
    "to_play": "to play",
    "your_hand": "Your hand",
    "your_turn": "Legal moves:",
    "turn_title": "your turn",
    "your_turn_stack": "{who} played two 9s: play a 9 to cancel the skip, or accept it:",
    "opt_draw": "draw a card (you have nothing to play)",
    "opt_pass": "pass (nothing to play, nothing to draw)",
    "opt_keep": "keep it",
    "opt_play": "play {card}",
    "opt_nine": "{card} (wild)",
    "opt_double": "{c1}+{c2} (two 9s)",
    "opt_accept_skip": "accept the skip",
    "prompt": "Your move",
    "prompt_suit": "Which suit? {choices} (or S H D C, hearts...)",
    "prompt_draw": "You have no card to play: press Enter to draw.",
    "prompt_pass": "Nothing to play and nothing to draw: press Enter to pass.",
    "prompt_drawn": "You drew {card}, which can be played. Play it? (y/n)",
    "prompt_declare": "The up card is a 9 and you deal: name the active suit.",
    "prompt_continue": "Press Enter for the next hand.",
    "drew_keep": "You drew {card}; it does not match, so you keep it.",
    "drew_again": "You drew {card}; it does not match, so you draw again.",
    "drew_must_play": "You drew {card} and must play it.",
    "drew_forced": "An Ace makes you draw: you get {card}.",
    "pass_forced": "Nothing left to draw: you pass.",
    "err_not_card": "{text} is not a card - type a number 1-{n} or a card like {example}",
    "err_empty": "Type the number of your move (1-{n}) or a card; help shows the rules.",
    "err_not_card_enter": "{text} is not a card - press Enter, or type 1",
    "err_not_card_one": "{text} is not a card - type 1 or a card like {example}",
    "err_number": "There is no move {text} - type a number 1-{n}",
    "err_number_one": "There is no move {text} - type 1",
    "err_not_suit": "{text} is not a suit - type 1-4, S, H, D or C, or a name like hearts",
    "err_yes_no": "Please answer y or n (or type help).",
    "err_not_now": "{what} is not possible now - type a number 1-{n}",
    "err_rule": "Not allowed: {why} [rule: {rule}]",
    "err_no_suit_needed": "Only a 9 names a suit: just type {card}",
    "rule_card-held": "you do not hold {card}",
    "rule_match-suit-or-rank": "{card} matches neither the active suit {suit} nor the rank of {top}",
    "rule_must-play": "you hold a card you can play ({card}), so you may not draw",
    "rule_must-play-pass": "you hold a card you can play ({card}), so you may not pass",
    "rule_play-drawn": "after drawing you may play only the card you drew ({card})",
    "rule_no-nine-out": "a 9 may not be your last card",
    "rule_draw-once": "you never draw a second card",
    "rule_pass": "you may pass only when there is nothing left to draw",
    "rule_keep": "you can keep a card only right after drawing it",
    "rule_stacking-nines": "only a 9 cancels the skip",
    "log_play": "{who} played {card}",
    "log_play_you": "You played {card}",
    "log_play9": "{who} played {card} and declared {suit}",
    "log_play9_you": "You played {card} and declared {suit}",
    "log_double": "{who} played {c1} and {c2} and declared {suit}",
    "log_double_you": "You played {c1} and {c2} and declared {suit}",
    "log_draw": "{who} drew a card",
    "log_draw_you": "You drew {card}",
    "log_draws": "{who} drew {n} cards",
    "log_draw_keep": "{who} drew a card and kept it",
    "log_draw_keep_you": "You drew {card} and kept it",
    "log_draw_play": "{who} drew and played {card}",
    "log_draw_play_you": "You drew and played {card}",
    "log_forced": "{who} had to draw {n} (Ace)",
    "log_forced_you": "You had to draw {cards} (Ace)",
    "log_pass": "{who} passed (nothing to draw)",
    "log_pass_you": "You passed (nothing to draw)",
    "log_declare": "{who} declared {suit} (the up card is a 9)",
    "log_declare_you": "You declared {suit} (the up card is a 9)",
    "log_recycle": "The discards were shuffled into a new stock",
    "log_skip": "{who} accepted the skip",
    "log_skip_you": "You accepted the skip",
    "act_skip": " - next player skipped",
    "act_reverse": " - direction reversed",
    "act_ace": " - next player draws 2",
    "out": "{who} went out!",
    "out_you": "You went out!",
    "stall": "A full round without a card played: the hand ends.",
    "stall_short": "stalled: nobody went out",
    "scores_after": "Scores after hand {n}",
    "final_scores": "Final scores",
    "scores": "Scores",
    "col_hand": "Hand",
    "row_total": "Total",
    "note_out": "* went out",
    "note_playoff": "p: playoff hand (not added to the totals)",
    "playoff_mark": "p",
    "winner": "{names} wins with {total} points.",
    "winner_you": "You win with {total} points!",
    "winners": "{names} share the win with {total} points.",
    "playoff_needed": "Tie for the lowest total between {names}: a playoff hand decides.",
    "quit": "Game abandoned.",
    "confirm_quit": "Quit the game? It stops here, for the bots too. (y/n)",
    "record_written": "Record written to {path}.",
    "record_failed": "Could not write the record to {path}: {error}",
    "record_partial": "Record of {n} finished hands written to {path} (the hand in progress is left out).",
    "seed": "Seed {seed}: replay this deal with --seed {seed}.",
    "transcript_saved": "Signed transcript (check it with p2pcards audit FILE):\n  {path}",
    "waiting_for": "Waiting for {names} ({seconds} s)...",
    "status_turn": "{names} to play",
    "status_shuffle": "Waiting for {names} to shuffle",
    "status_keys": "Waiting for keys from {names}",
    "status_step": "Waiting for {names}",
    "status_left": "{left} left",
    "net_leaving": "You leave the table; the others play on without you.",
    "net_leaving_ends": "You leave the table; too few players remain, so the match ends for everyone.",
    "net_over": "The match is over; every node verified every move.",
    "net_you_left": "You left the match.",
    "net_you_timed_out": "Your time to play ran out on the table's clock: you left the match.",
    "net_you_left_interrupted": "Interrupted: you left the match, and the others were told (signed).",
    "net_confirm_leave": "Leave the match? The others play on without you. (y/n)",
    "net_confirm_leave_ends": "Leave the match? Too few players would remain: it ends for everyone. (y/n)",
    "net_stay": "You stay at the table.",
    "turn_warning": "{left} s left for your move on the table's clock.",
    "prompt_time_left": "{left} left",
    "typed_ahead": "(What you typed before this prompt appeared is not used: answer here.)",
    "net_standings": "Standings after {hands} hand(s), when it stopped: {scores}",
    "net_continued": "{name} left the match ({reason}). The hand in progress does not count;"
    " the others play on without them from a fresh deal. Totals after {hands} hand(s): {scores}.",
    "net_continued_ends": "{name} left the match ({reason}). The hand in progress does not count,"
    " and too few players remain to go on: the match ends on the totals after {hands} hand(s): {scores}.",
    "net_stopped_blame": "The match stopped because of {who}: {why}",
    "net_stopped": "The match stopped: {why}",
    "lobby": "At the table ({n} of {players}): {names}",
    "linked": "Everyone is linked: {names}. Shuffling...",
    "fingerprint": "Table fingerprint: {fingerprint}",
    "fingerprint_compare": (
        "Compare it with the other players (read it aloud): everyone must have the same digits. "
        "If they differ, someone is in the middle: leave the game."
    ),
    "fingerprint_ask": "Do all the players read these same digits? y(es), n(o), Enter if not compared",
    "fingerprint_ask_again": "Answer y if everyone has the same digits, n if not, or press Enter.",
    "fingerprint_differ": "The digits differ: someone is in the middle. You leave the game (signed).",
    "fingerprint_skipped": "Not compared: the transcript will say that you did not confirm it.",
    "and": "and",
    "help_title": "How to play Nines",
    "help_rules": (
        "Play a card of the active suit or of the top card's rank; a 9 is wild and names the next "
        "suit. With no card to play you draw one card and may play it if it fits. First out scores "
        "0; the others pay their cards (A=1, 2-10 face value, J Q K=10, 9={nine}). Lowest total wins."
    ),
    "help_variants": "Variants in force",
    "help_keys": "What to type",
    "help_rows": (
        "a number from the list\t1\n"
        "a card\t7h  10S  TH  9♠   (for a 9 add a suit: 9s h)\n"
        "a suit, when asked\th  ♥  hearts  cœur  cuori\n"
        "draw (d), keep (k), pass\twhen the list offers them\n"
        "score\tthe score table\n"
        "help\tthis text\n"
        "quit\tleave the game"
    ),
    "help_cards": "",
    "you_obj": "you",
    "bots_heuristic": "heuristic bots",
    "bots_random": "random bots",
    "variants_title": "Variants:",
    "variant_draw_until_playable": "with nothing to play, draw until you get a card you can play, "
    "and play it",
    "variant_action_cards": "a Jack skips the next player, a Queen reverses the direction, an Ace makes "
    "the next player draw two and lose the turn",
    "variant_double_nines": "two decks; two 9s played together change the suit and skip the next player",
    "variant_stacking_nines": "a player about to be skipped by two 9s may cancel the skip with a 9",
    "variant_hard_nines": "a 9 left in hand costs 25 instead of 15",
    "variant_no_nine_out": "a 9 may not be your last card",
    "variant_tie_playoff": "players tied for the lowest total play one more hand to decide",
}

_FR: dict[str, str] = {
    "host_hosting": "{game} pour {players} joueurs, sur le port {port}.",
    "host_code": "Code d'invitation : {code}",
    "host_others_join": "Les autres rejoignent la table avec :",
    "host_address_hint": "(ADDRESS : l'adresse de cette machine sur un réseau que les autres atteignent)",
    "host_other_addresses": "(ou une autre adresse de cette machine : {addresses})",
    "host_private": "(cette adresse marche sur ce réseau ; depuis Internet, redirigez le port TCP\n"
    " {port} de votre box vers cette machine et donnez aux autres votre adresse publique)",
    "host_lan": "(sur ce réseau, le code seul trouve cette table : {command})",
    "host_env": "(ou mettez le code dans P2PCARDS_CODE pour qu'il n'apparaisse pas dans la liste"
    " des processus)",
    "host_internet": "Depuis Internet :",
    "host_mapped": "(votre box redirige cette adresse vers le port {port} de cette machine ({how}) tant"
    " que la table est ouverte)",
    "host_double_nat": "(votre box redirige {outside} ({how}), mais cette adresse est elle-même privée : un"
    " autre routeur, celui de votre fournisseur, est devant, et personne ne peut se connecter depuis"
    " l'extérieur. Un ami sur une autre connexion peut héberger la table)",
    "host_no_mapping": "(cette adresse marche sur ce réseau. Aucune box n'a ouvert le port {port} : {why}.\n"
    " Depuis Internet : activez UPnP ou NAT-PMP sur votre box, ou redirigez son port\n"
    " TCP {port} vers cette machine, et donnez aux autres votre adresse publique)",
    "notice_mapped": "votre box redirige {outside} depuis Internet vers le port {port} d'ici ({how}),"
    " jusqu'à votre départ",
    "notice_no_mapping": "aucune box n'a ouvert le port {port} ({why}) : une place qui ne peut pas vous"
    " joindre passe par l'hôte",
    "notice_joined": "{name} a rejoint la table depuis {peer}",
    "notice_left_table": "{name} a quitté la table",
    "notice_wrong_code": "{name} refusé (depuis {peer}) : mauvais code d'invitation",
    "notice_seated": "assis à une table de {game} ({players} joueurs) ; on attend les autres",
    "notice_patient": "une seule personne joue à cette table : les bots l'attendent"
    " (jusqu'à un jour par tour)",
    "notice_busy": "l'hôte est occupé ; nouvel essai dans {pause} s",
    "notice_try_next": "pas de place à {where} ({error}) ; essai de l'hôte suivant qui a répondu",
    "notice_known_new_key": "ATTENTION : {name} (place {seat}) a une clé jamais vue ({new}) ; le {name}"
    " avec qui vous avez joué jusqu'au {last} avait {old}. C'est peut-être quelqu'un d'autre,"
    " placé là par l'hôte : comparez l'empreinte de la table avant de continuer (ou c'est {name}"
    " sur une nouvelle machine)",
    "notice_known_renamed": "ATTENTION : {name} (place {seat}) a la clé du joueur que vous"
    " connaissiez sous le nom {known} (vu le {last}) : la même personne sous un autre nom, ou"
    " quelqu'un qui vous montre une autre table",
    "notice_known_unreadable": "la liste des joueurs connus : {problem}",
    "notice_relayed": "impossible de joindre {name} (place {seat}) directement ({why}) : ses messages passent"
    " par l'hôte",
    "notice_punched": "lien avec {name} (place {seat}) établi à travers les deux box (perçage de NAT)",
    "notice_direct": "lien direct avec {names}",
    "notice_reconnecting": "{name} (place {seat}) a perdu la connexion : reconnexion ({left} restantes)",
    "notice_back": "{name} (place {seat}) est de retour après {seconds} s",
    "notice_gone": "{name} (place {seat}) n'est pas revenu dans les {seconds} s",
    "notice_refused_connection": "connexion de {peer} refusée : {error}",
    "notice_refused_link": "lien avec {peer} refusé : {error}",
    "notice_not_saved": "impossible d'enregistrer la transcription dans {path} : {error}",
    "you": "vous",
    "You": "Vous",
    "welcome": "Nines : {you} contre {others} ({bots}).",
    "bots": "bots {name}",
    "welcome_watch": "Nines : {names} ({bots}).",
    "goal_target": "Le plus petit total gagne ; la partie s'arrête quand un total atteint {target}.",
    "goal_hands": "Le plus petit total gagne après {hands} manches.",
    "goal_one_hand": "Une seule manche : le plus petit total gagne.",
    "hint": "Tapez aide pour l'aide, score pour les scores, quitter pour partir.",
    "cut_title": "Tirage pour la première donne (la plus basse donne, l'as est bas) :",
    "cut_tie": "Égalité pour la plus basse entre {names} : nouveau tirage.",
    "cut_dealer": "{name} donne en premier.",
    "cut_dealer_you": "Vous donnez en premier.",
    "hand_title": "Manche {n}",
    "playoff_title": "Manche de barrage : {names}",
    "deals": "{name} donne",
    "deals_you": "vous donnez",
    "up_card": "Carte retournée {card}",
    "stock": "Pioche",
    "top": "Dessus",
    "suit": "Couleur",
    "cards_one": "1 carte",
    "cards_many": "{n} cartes",
    "total": "total {n}",
    "dealer_mark": "donneur",
    "sits_out": "ne joue pas",
    "to_play": "à jouer",
    "your_hand": "Votre main",
    "your_turn": "Coups permis :",
    "turn_title": "à vous",
    "your_turn_stack": "{who} a joué deux 9 : jouez un 9 pour annuler le saut, ou acceptez-le :",
    "opt_draw": "piocher une carte (vous n'avez rien à jouer)",
    "opt_pass": "passer (rien à jouer, rien à piocher)",
    "opt_keep": "la garder",
    "opt_play": "jouer {card}",
    "opt_nine": "{card} (joker)",
    "opt_double": "{c1}+{c2} (deux 9)",
    "opt_accept_skip": "accepter de passer son tour",
    "prompt": "Votre coup",
    "prompt_suit": "Quelle couleur ? {choices} (ou S H D C, pique, cœur...)",
    "prompt_draw": "Vous n'avez rien à jouer : appuyez sur Entrée pour piocher.",
    "prompt_pass": "Rien à jouer et rien à piocher : appuyez sur Entrée pour passer.",
    "prompt_drawn": "Vous avez pioché {card}, qui peut être jouée. La jouer ? (o/n)",
    "prompt_declare": "La carte retournée est un 9 et vous donnez : choisissez la couleur.",
    "prompt_continue": "Appuyez sur Entrée pour la manche suivante.",
    "drew_keep": "Vous avez pioché {card} ; elle ne convient pas, vous la gardez.",
    "drew_again": "Vous avez pioché {card} ; elle ne convient pas, vous piochez encore.",
    "drew_must_play": "Vous avez pioché {card} et devez la jouer.",
    "drew_forced": "Un as vous fait piocher : vous recevez {card}.",
    "pass_forced": "Plus rien à piocher : vous passez.",
    "err_not_card": "{text} n'est pas une carte - tapez un numéro de 1 à {n} ou une carte comme {example}",
    "err_empty": "Tapez le numéro de votre coup (1-{n}) ou une carte ; help affiche les règles.",
    "err_not_card_enter": "{text} n'est pas une carte - appuyez sur Entrée, ou tapez 1",
    "err_not_card_one": "{text} n'est pas une carte - tapez 1 ou une carte comme {example}",
    "err_number": "Il n'y a pas de coup {text} - tapez un numéro de 1 à {n}",
    "err_number_one": "Il n'y a pas de coup {text} - tapez 1",
    "err_not_suit": "{text} n'est pas une couleur - tapez 1-4, S, H, D ou C, ou un nom comme cœur",
    "err_yes_no": "Répondez o ou n (ou tapez aide).",
    "err_not_now": "{what} n'est pas possible maintenant - tapez un numéro de 1 à {n}",
    "err_rule": "Interdit : {why} [règle : {rule}]",
    "err_no_suit_needed": "Seul un 9 choisit une couleur : tapez simplement {card}",
    "rule_card-held": "vous n'avez pas {card}",
    "rule_match-suit-or-rank": "{card} ne suit ni la couleur annoncée {suit} ni la valeur de {top}",
    "rule_must-play": "vous avez une carte jouable ({card}), vous ne pouvez pas piocher",
    "rule_must-play-pass": "vous avez une carte jouable ({card}), vous ne pouvez pas passer",
    "rule_play-drawn": "après avoir pioché, seule la carte piochée ({card}) peut être jouée",
    "rule_no-nine-out": "un 9 ne peut pas être votre dernière carte",
    "rule_draw-once": "on ne pioche jamais une deuxième carte",
    "rule_pass": "on ne passe que s'il n'y a plus rien à piocher",
    "rule_keep": "on ne garde une carte que juste après l'avoir piochée",
    "rule_stacking-nines": "seul un 9 annule le saut",
    "log_play": "{who} a joué {card}",
    "log_play_you": "Vous avez joué {card}",
    "log_play9": "{who} a joué {card} et annoncé {suit}",
    "log_play9_you": "Vous avez joué {card} et annoncé {suit}",
    "log_double": "{who} a joué {c1} et {c2} et annoncé {suit}",
    "log_double_you": "Vous avez joué {c1} et {c2} et annoncé {suit}",
    "log_draw": "{who} a pioché une carte",
    "log_draw_you": "Vous avez pioché {card}",
    "log_draws": "{who} a pioché {n} cartes",
    "log_draw_keep": "{who} a pioché une carte et l'a gardée",
    "log_draw_keep_you": "Vous avez pioché {card} et l'avez gardée",
    "log_draw_play": "{who} a pioché et joué {card}",
    "log_draw_play_you": "Vous avez pioché et joué {card}",
    "log_forced": "{who} a dû piocher {n} cartes (as)",
    "log_forced_you": "Vous avez dû piocher {cards} (as)",
    "log_pass": "{who} a passé (rien à piocher)",
    "log_pass_you": "Vous avez passé (rien à piocher)",
    "log_declare": "{who} a annoncé {suit} (la carte retournée est un 9)",
    "log_declare_you": "Vous avez annoncé {suit} (la carte retournée est un 9)",
    "log_recycle": "La défausse a été mélangée pour refaire la pioche",
    "log_skip": "{who} a accepté de passer son tour",
    "log_skip_you": "Vous avez accepté de passer votre tour",
    "act_skip": " - le joueur suivant passe son tour",
    "act_reverse": " - changement de sens",
    "act_ace": " - le joueur suivant pioche 2",
    "out": "{who} a posé sa dernière carte !",
    "out_you": "Vous avez posé votre dernière carte !",
    "stall": "Un tour complet sans carte jouée : la manche s'arrête.",
    "stall_short": "bloquée : personne n'a fini",
    "scores_after": "Scores après la manche {n}",
    "final_scores": "Scores finaux",
    "scores": "Scores",
    "col_hand": "Manche",
    "row_total": "Total",
    "note_out": "* a fini",
    "note_playoff": "b : manche de barrage (non ajoutée aux totaux)",
    "playoff_mark": "b",
    "winner": "{names} gagne avec {total} points.",
    "winner_you": "Vous gagnez avec {total} points !",
    "winners": "{names} se partagent la victoire avec {total} points.",
    "playoff_needed": "Égalité pour le plus petit total entre {names} : une manche de barrage décide.",
    "quit": "Partie abandonnée.",
    "confirm_quit": "Quitter la partie ? Elle s'arrête ici, pour les bots aussi. (o/n)",
    "record_written": "Compte rendu écrit dans {path}.",
    "record_failed": "Impossible d'écrire le compte rendu dans {path} : {error}",
    "record_partial": "Compte rendu des {n} manches finies écrit dans {path} (sans la manche en cours).",
    "seed": "Graine {seed} : rejouez cette partie avec --seed {seed}.",
    "transcript_saved": "Transcription signée (vérifiez-la avec p2pcards audit FICHIER) :\n  {path}",
    "waiting_for": "En attente de {names} ({seconds} s)...",
    "status_turn": "À {names} de jouer",
    "status_shuffle": "En attente du mélange de {names}",
    "status_keys": "En attente des clés de {names}",
    "status_step": "En attente de {names}",
    "status_left": "encore {left}",
    "net_leaving": "Vous quittez la table ; les autres continuent sans vous.",
    "net_leaving_ends": "Vous quittez la table ; il reste trop peu de"
    " joueurs : la partie s'arrête pour tous.",
    "net_over": "La partie est terminée ; chaque nœud a vérifié chaque coup.",
    "net_you_left": "Vous avez quitté la partie.",
    "net_you_timed_out": "Votre temps de jeu est écoulé à l'horloge de la table : vous quittez la partie.",
    "net_you_left_interrupted": (
        "Interrompu : vous avez quitté la partie, et les autres en ont été avertis (signé)."
    ),
    "net_confirm_leave": "Quitter la partie ? Les autres continuent sans vous. (o/n)",
    "net_confirm_leave_ends": "Quitter la partie ? Il resterait trop peu de"
    " joueurs : elle s'arrête pour tous. (o/n)",
    "net_stay": "Vous restez à la table.",
    "turn_warning": "Plus que {left} s pour jouer, à l'horloge de la table.",
    "prompt_time_left": "reste {left}",
    "typed_ahead": "(Ce que vous avez tapé avant cette question n'est pas pris en compte : répondez ici.)",
    "net_standings": "Classement après {hands} manche(s), à l'arrêt : {scores}",
    "net_continued": "{name} a quitté la partie ({reason}). La manche en cours ne compte pas ;"
    " les autres continuent sans elle ou lui, avec une nouvelle donne."
    " Totaux après {hands} manche(s) : {scores}.",
    "net_continued_ends": "{name} a quitté la partie ({reason}). La manche en cours ne compte pas,"
    " et il reste trop peu de joueurs : la partie s'arrête sur les totaux"
    " après {hands} manche(s) : {scores}.",
    "net_stopped_blame": "La partie s'est arrêtée à cause de {who} : {why}",
    "net_stopped": "La partie s'est arrêtée : {why}",
    "lobby": "À la table ({n} sur {players}) : {names}",
    "linked": "Tout le monde est connecté : {names}. Mélange...",
    "fingerprint": "Empreinte de la table : {fingerprint}",
    "fingerprint_compare": (
        "Comparez-la avec les autres joueurs (lisez-la à voix haute) : tout le monde doit avoir "
        "les mêmes chiffres. S'ils diffèrent, quelqu'un s'est glissé au milieu : quittez la partie."
    ),
    "fingerprint_ask": "Tous les joueurs lisent-ils ces mêmes chiffres ? o(ui), n(on), Entrée si non comparé",
    "fingerprint_ask_again": "Répondez o si tout le monde a les mêmes chiffres, n sinon, ou Entrée.",
    "fingerprint_differ": "Les chiffres diffèrent : quelqu'un est au milieu. Vous quittez la partie (signé).",
    "fingerprint_skipped": "Non comparée : la transcription dira que vous ne l'avez pas confirmée.",
    "and": "et",
    "help_title": "Comment jouer à Nines",
    "help_rules": (
        "Jouez une carte de la couleur annoncée ou de la valeur de la carte du dessus ; un 9 est un "
        "joker et choisit la couleur suivante. Sans carte jouable, piochez une carte et jouez-la si "
        "elle convient. Le premier à finir marque 0 ; les autres paient leurs cartes (A=1, 2-10 leur "
        "valeur, J Q K = valet, dame, roi = 10, 9={nine}). Le plus petit total gagne."
    ),
    "help_variants": "Variantes en vigueur",
    "help_keys": "Que taper",
    "help_rows": (
        "un numéro de la liste\t1\n"
        "une carte\t7h  10S  TH  9♠   (un 9 et sa couleur : 9s h)\n"
        "une couleur, si demandée\th  ♥  cœur  coeur  trèfle\n"
        "pioche (d), garde (k), passe\tquand la liste les propose\n"
        "score\tle tableau des scores\n"
        "aide\tce texte\n"
        "quitter\tquitter la partie"
    ),
    "help_cards": "Cartes : A 2-10 J Q K puis S (pique) H (cœur) D (carreau) C (trèfle).",
    "you_obj": "vous",
    "bots_heuristic": "bots heuristiques",
    "bots_random": "bots au hasard",
    "variants_title": "Variantes :",
    "variant_draw_until_playable": "sans carte jouable, on pioche jusqu'à obtenir une carte jouable, "
    "et on la joue",
    "variant_action_cards": "un valet fait sauter le joueur suivant, une dame inverse le sens, un as "
    "fait piocher deux cartes au joueur suivant, qui passe son tour",
    "variant_double_nines": "deux jeux ; deux 9 joués ensemble changent la couleur et font sauter le "
    "joueur suivant",
    "variant_stacking_nines": "un joueur qui va sauter son tour à cause de deux 9 peut l'annuler avec un 9",
    "variant_hard_nines": "un 9 resté en main coûte 25 au lieu de 15",
    "variant_no_nine_out": "un 9 ne peut pas être votre dernière carte",
    "variant_tie_playoff": "les joueurs à égalité pour le plus petit total jouent une manche de plus",
}

_IT: dict[str, str] = {
    "host_hosting": "{game} per {players} giocatori, sulla porta {port}.",
    "host_code": "Codice d'invito: {code}",
    "host_others_join": "Gli altri si uniscono con:",
    "host_address_hint": "(ADDRESS: l'indirizzo di questa macchina su una rete che gli altri raggiungono)",
    "host_other_addresses": "(o un altro indirizzo di questa macchina: {addresses})",
    "host_private": "(questo indirizzo funziona su questa rete; da Internet, inoltra la porta TCP\n"
    " {port} del tuo router a questa macchina e dai agli altri il tuo indirizzo pubblico)",
    "host_lan": "(su questa rete basta il codice per trovare questo tavolo: {command})",
    "host_env": "(oppure metti il codice in P2PCARDS_CODE perché non compaia nell'elenco dei processi)",
    "host_internet": "Da Internet:",
    "host_mapped": "(il tuo router inoltra questo indirizzo alla porta {port} di questa macchina ({how})"
    " finché il tavolo è aperto)",
    "host_double_nat": "(il tuo router inoltra {outside} ({how}), ma quell'indirizzo è a sua volta privato:"
    " davanti c'è un altro router, quello del tuo fornitore, e nessuno può collegarsi da fuori. Può"
    " ospitare un amico su un'altra connessione)",
    "host_no_mapping": "(questo indirizzo funziona su questa rete. Nessun router ha aperto la porta {port}:"
    " {why}.\n Da Internet: attiva UPnP o NAT-PMP sul router, o inoltra la sua porta\n"
    " TCP {port} a questa macchina, e dai agli altri il tuo indirizzo pubblico)",
    "notice_mapped": "il tuo router inoltra {outside} da Internet alla porta {port} qui ({how}),"
    " finché non esci",
    "notice_no_mapping": "nessun router ha aperto la porta {port} ({why}): un posto che non ti raggiunge"
    " passa dall'host",
    "notice_joined": "{name} si è unito al tavolo da {peer}",
    "notice_left_table": "{name} ha lasciato il tavolo",
    "notice_wrong_code": "rifiutato {name} (da {peer}): codice d'invito sbagliato",
    "notice_seated": "seduto a un tavolo di {game} ({players} giocatori); si aspettano gli altri",
    "notice_patient": "a questo tavolo gioca una sola persona: i bot la aspettano"
    " (fino a un giorno per turno)",
    "notice_busy": "chi ospita è occupato; nuovo tentativo tra {pause} s",
    "notice_try_next": "nessun posto a {where} ({error}); provo il prossimo host che ha risposto",
    "notice_known_new_key": "ATTENZIONE: {name} (posto {seat}) ha una chiave mai vista ({new}); il {name}"
    " con cui hai giocato fino al {last} aveva {old}. Può essere un altro, messo lì da chi ospita: confronta"
    " l'impronta del tavolo prima di continuare (oppure è {name} su un nuovo computer)",
    "notice_known_renamed": "ATTENZIONE: {name} (posto {seat}) ha la chiave del giocatore che conoscevi come"
    " {known} (visto il {last}): la stessa persona con un altro nome, o qualcuno che ti mostra"
    " un altro tavolo",
    "notice_known_unreadable": "l'elenco dei giocatori conosciuti: {problem}",
    "notice_relayed": "impossibile raggiungere {name} (posto {seat}) direttamente ({why}): i suoi messaggi"
    " passano da chi ospita",
    "notice_punched": "collegato con {name} (posto {seat}) attraverso i due router (hole punching)",
    "notice_direct": "collegato direttamente con {names}",
    "notice_reconnecting": "{name} (posto {seat}) ha perso la connessione: riconnessione ({left} rimasti)",
    "notice_back": "{name} (posto {seat}) è tornato dopo {seconds} s",
    "notice_gone": "{name} (posto {seat}) non è tornato entro {seconds} s",
    "notice_refused_connection": "connessione da {peer} rifiutata: {error}",
    "notice_refused_link": "collegamento con {peer} rifiutato: {error}",
    "notice_not_saved": "impossibile salvare la trascrizione in {path}: {error}",
    "you": "tu",
    "You": "Tu",
    "welcome": "Nines: {you} contro {others} ({bots}).",
    "bots": "bot {name}",
    "welcome_watch": "Nines: {names} ({bots}).",
    "goal_target": "Vince il totale più basso; la partita finisce quando un totale arriva a {target}.",
    "goal_hands": "Vince il totale più basso dopo {hands} mani.",
    "goal_one_hand": "Una sola mano: vince il totale più basso.",
    "hint": "Scrivi aiuto per l'aiuto, punti per i punteggi, esci per uscire.",
    "cut_title": "Taglio per il primo mazziere (la carta più bassa fa le carte, l'asso è basso):",
    "cut_tie": "Parità per la più bassa tra {names}: tagliano di nuovo.",
    "cut_dealer": "{name} fa le carte per primo.",
    "cut_dealer_you": "Fai le carte per primo.",
    "hand_title": "Mano {n}",
    "playoff_title": "Mano di spareggio: {names}",
    "deals": "{name} fa le carte",
    "deals_you": "fai le carte tu",
    "up_card": "Carta scoperta {card}",
    "stock": "Tallone",
    "top": "In cima",
    "suit": "Seme",
    "cards_one": "1 carta",
    "cards_many": "{n} carte",
    "total": "totale {n}",
    "dealer_mark": "mazziere",
    "sits_out": "non gioca",
    "to_play": "di turno",
    "your_hand": "La tua mano",
    "your_turn": "Mosse consentite:",
    "turn_title": "tocca a te",
    "your_turn_stack": "{who} ha giocato due 9: gioca un 9 per annullare il salto, oppure accettalo:",
    "opt_draw": "pesca una carta (non hai niente da giocare)",
    "opt_pass": "passa (niente da giocare, niente da pescare)",
    "opt_keep": "tenerla",
    "opt_play": "gioca {card}",
    "opt_nine": "{card} (jolly)",
    "opt_double": "{c1}+{c2} (due 9)",
    "opt_accept_skip": "accetta di saltare il turno",
    "prompt": "La tua mossa",
    "prompt_suit": "Quale seme? {choices} (o S H D C, cuori...)",
    "prompt_draw": "Non hai carte da giocare: premi Invio per pescare.",
    "prompt_pass": "Niente da giocare e niente da pescare: premi Invio per passare.",
    "prompt_drawn": "Hai pescato {card}, che si può giocare. La giochi? (s/n)",
    "prompt_declare": "La carta scoperta è un 9 e fai le carte tu: scegli il seme.",
    "prompt_continue": "Premi Invio per la mano successiva.",
    "drew_keep": "Hai pescato {card}; non va bene, la tieni.",
    "drew_again": "Hai pescato {card}; non va bene, peschi ancora.",
    "drew_must_play": "Hai pescato {card} e devi giocarla.",
    "drew_forced": "Un asso ti fa pescare: ricevi {card}.",
    "pass_forced": "Non c'è più niente da pescare: passi.",
    "err_not_card": "{text} non è una carta - scrivi un numero da 1 a {n} o una carta come {example}",
    "err_empty": "Scrivi il numero della tua mossa (1-{n}) o una carta; help mostra le regole.",
    "err_not_card_enter": "{text} non è una carta - premi Invio, o scrivi 1",
    "err_not_card_one": "{text} non è una carta - scrivi 1 o una carta come {example}",
    "err_number": "Non c'è la mossa {text} - scrivi un numero da 1 a {n}",
    "err_number_one": "Non c'è la mossa {text} - scrivi 1",
    "err_not_suit": "{text} non è un seme - scrivi 1-4, S, H, D o C, o un nome come cuori",
    "err_yes_no": "Rispondi s o n (o scrivi aiuto).",
    "err_not_now": "{what} non è possibile adesso - scrivi un numero da 1 a {n}",
    "err_rule": "Non consentito: {why} [regola: {rule}]",
    "err_no_suit_needed": "Solo un 9 sceglie il seme: scrivi solo {card}",
    "rule_card-held": "non hai {card}",
    "rule_match-suit-or-rank": "{card} non corrisponde né al seme richiesto {suit} né al valore di {top}",
    "rule_must-play": "hai una carta giocabile ({card}), quindi non puoi pescare",
    "rule_must-play-pass": "hai una carta giocabile ({card}), quindi non puoi passare",
    "rule_play-drawn": "dopo aver pescato puoi giocare solo la carta pescata ({card})",
    "rule_no-nine-out": "un 9 non può essere la tua ultima carta",
    "rule_draw-once": "non si pesca mai una seconda carta",
    "rule_pass": "si passa solo quando non c'è più niente da pescare",
    "rule_keep": "si tiene una carta solo subito dopo averla pescata",
    "rule_stacking-nines": "solo un 9 annulla il salto",
    "log_play": "{who} ha giocato {card}",
    "log_play_you": "Hai giocato {card}",
    "log_play9": "{who} ha giocato {card} e ha dichiarato {suit}",
    "log_play9_you": "Hai giocato {card} e hai dichiarato {suit}",
    "log_double": "{who} ha giocato {c1} e {c2} e ha dichiarato {suit}",
    "log_double_you": "Hai giocato {c1} e {c2} e hai dichiarato {suit}",
    "log_draw": "{who} ha pescato una carta",
    "log_draw_you": "Hai pescato {card}",
    "log_draws": "{who} ha pescato {n} carte",
    "log_draw_keep": "{who} ha pescato una carta e l'ha tenuta",
    "log_draw_keep_you": "Hai pescato {card} e l'hai tenuta",
    "log_draw_play": "{who} ha pescato e giocato {card}",
    "log_draw_play_you": "Hai pescato e giocato {card}",
    "log_forced": "{who} ha dovuto pescare {n} carte (asso)",
    "log_forced_you": "Hai dovuto pescare {cards} (asso)",
    "log_pass": "{who} ha passato (niente da pescare)",
    "log_pass_you": "Hai passato (niente da pescare)",
    "log_declare": "{who} ha dichiarato {suit} (la carta scoperta è un 9)",
    "log_declare_you": "Hai dichiarato {suit} (la carta scoperta è un 9)",
    "log_recycle": "Gli scarti sono stati mescolati in un nuovo tallone",
    "log_skip": "{who} ha accettato di saltare il turno",
    "log_skip_you": "Hai accettato di saltare il turno",
    "act_skip": " - il giocatore successivo salta il turno",
    "act_reverse": " - cambio di direzione",
    "act_ace": " - il giocatore successivo pesca 2",
    "out": "{who} ha chiuso!",
    "out_you": "Hai chiuso!",
    "stall": "Un giro intero senza carte giocate: la mano finisce.",
    "stall_short": "bloccata: nessuno ha chiuso",
    "scores_after": "Punteggi dopo la mano {n}",
    "final_scores": "Punteggi finali",
    "scores": "Punteggi",
    "col_hand": "Mano",
    "row_total": "Totale",
    "note_out": "* ha chiuso",
    "note_playoff": "s: mano di spareggio (non sommata ai totali)",
    "playoff_mark": "s",
    "winner": "{names} vince con {total} punti.",
    "winner_you": "Hai vinto con {total} punti!",
    "winners": "{names} si dividono la vittoria con {total} punti.",
    "playoff_needed": "Parità per il totale più basso tra {names}: decide una mano di spareggio.",
    "quit": "Partita abbandonata.",
    "confirm_quit": "Uscire dalla partita? Finisce qui, anche per i bot. (s/n)",
    "record_written": "Resoconto scritto in {path}.",
    "record_failed": "Impossibile scrivere il resoconto in {path}: {error}",
    "record_partial": "Resoconto delle {n} mani finite scritto in {path} (senza la mano in corso).",
    "seed": "Seme casuale {seed}: rigioca questa partita con --seed {seed}.",
    "transcript_saved": "Trascrizione firmata (verificala con p2pcards audit FILE):\n  {path}",
    "waiting_for": "In attesa di {names} ({seconds} s)...",
    "status_turn": "Tocca a {names}",
    "status_shuffle": "In attesa del mescolamento di {names}",
    "status_keys": "In attesa delle chiavi di {names}",
    "status_step": "In attesa di {names}",
    "status_left": "ancora {left}",
    "net_leaving": "Lasci il tavolo; gli altri continuano senza di te.",
    "net_leaving_ends": "Lasci il tavolo; restano troppo pochi giocatori: la partita finisce per tutti.",
    "net_over": "La partita è finita; ogni nodo ha verificato ogni mossa.",
    "net_you_left": "Hai lasciato la partita.",
    "net_you_timed_out": "Il tuo tempo per giocare è scaduto sull'orologio del tavolo: lasci la partita.",
    "net_you_left_interrupted": (
        "Interrotto: hai lasciato la partita, e gli altri sono stati avvisati (firmato)."
    ),
    "net_confirm_leave": "Lasciare la partita? Gli altri continuano senza di te. (s/n)",
    "net_confirm_leave_ends": "Lasciare la partita? Resterebbero troppo pochi"
    " giocatori: finisce per tutti. (s/n)",
    "net_stay": "Resti al tavolo.",
    "turn_warning": "Ancora {left} s per la tua mossa, sull'orologio del tavolo.",
    "prompt_time_left": "restano {left}",
    "typed_ahead": "(Quello che hai scritto prima di questa domanda non conta: rispondi qui.)",
    "net_standings": "Classifica dopo {hands} mano/i, all'arresto: {scores}",
    "net_continued": "{name} ha lasciato la partita ({reason}). La mano in corso non conta;"
    " gli altri continuano senza di lui o lei, con una nuova distribuzione."
    " Totali dopo {hands} mano/i: {scores}.",
    "net_continued_ends": "{name} ha lasciato la partita ({reason}). La mano in corso non conta,"
    " e restano troppo pochi giocatori: la partita finisce sui totali dopo {hands} mano/i: {scores}.",
    "net_stopped_blame": "La partita si è fermata a causa di {who}: {why}",
    "net_stopped": "La partita si è fermata: {why}",
    "lobby": "Al tavolo ({n} di {players}): {names}",
    "linked": "Tutti collegati: {names}. Si mescola...",
    "fingerprint": "Impronta del tavolo: {fingerprint}",
    "fingerprint_compare": (
        "Confrontala con gli altri giocatori (leggila ad alta voce): tutti devono avere le stesse "
        "cifre. Se sono diverse, qualcuno si è messo in mezzo: lascia la partita."
    ),
    "fingerprint_ask": "Tutti i giocatori leggono queste stesse cifre? s(ì), n(o), Invio se non confrontate",
    "fingerprint_ask_again": "Rispondi s se tutti hanno le stesse cifre, n se no, oppure premi Invio.",
    "fingerprint_differ": "Le cifre sono diverse: qualcuno è in mezzo. Lasci la partita (firmato).",
    "fingerprint_skipped": "Non confrontate: la trascrizione dirà che non l'hai confermata.",
    "and": "e",
    "help_title": "Come si gioca a Nines",
    "help_rules": (
        "Gioca una carta del seme richiesto o dello stesso valore della carta in cima; un 9 è un "
        "jolly e sceglie il seme successivo. Se non puoi giocare, peschi una carta e puoi giocarla "
        "se va bene. Chi chiude per primo segna 0; gli altri pagano le carte rimaste (A=1, 2-10 il "
        "loro valore, J Q K=10, 9={nine}). Vince il totale più basso."
    ),
    "help_variants": "Varianti in vigore",
    "help_keys": "Cosa scrivere",
    "help_rows": (
        "un numero della lista\t1\n"
        "una carta\t7h  10S  TH  9♠   (un 9 e il suo seme: 9s h)\n"
        "un seme, quando richiesto\th  ♥  cuori  picche  fiori\n"
        "pesca (d), tieni (k), passa\tquando la lista li propone\n"
        "punti\tla tabella dei punteggi\n"
        "aiuto\tquesto testo\n"
        "esci\tlascia la partita"
    ),
    "help_cards": "Carte: A 2-10 J Q K poi il seme S (picche) H (cuori) D (quadri) C (fiori).",
    "you_obj": "te",
    "bots_heuristic": "bot euristici",
    "bots_random": "bot casuali",
    "variants_title": "Varianti:",
    "variant_draw_until_playable": "se non puoi giocare, peschi finché non trovi una carta giocabile, "
    "e la giochi",
    "variant_action_cards": "il fante fa saltare il turno al giocatore successivo, la donna inverte il "
    "senso di gioco, l'asso fa pescare due carte al giocatore successivo, che salta il turno",
    "variant_double_nines": "due mazzi; due 9 giocati insieme cambiano il seme e fanno saltare il turno "
    "al giocatore successivo",
    "variant_stacking_nines": "chi sta per saltare il turno per due 9 può annullare il salto con un 9",
    "variant_hard_nines": "un 9 rimasto in mano costa 25 invece di 15",
    "variant_no_nine_out": "un 9 non può essere la tua ultima carta",
    "variant_tie_playoff": "i giocatori a pari merito per il totale più basso giocano un'altra mano",
}

# ---------------------------------------------------------------------------
# Le Neuf (p2pcards/ui/neuf_*.py). French card words are used as a French
# player would: atout, pli, entamer, fournir, le mort (the dummy).

_EN_NEUF: dict[str, str] = {
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
        "  a card                      QS  10h  TH  q♠\n"
        "  score                       the score table\n"
        "  help                        this text\n"
        "  quit                        leave the game"
    ),
}

_FR_NEUF: dict[str, str] = {
    "neuf_welcome": "Le Neuf : {you} contre {others} ({bots}).",
    "neuf_welcome_watch": "Le Neuf : {names} ({bots}).",
    "neuf_goal": (
        "Chacun part de {start} et descend : chaque manche ajoute 4 moins le nombre de plis faits, "
        "donc chaque pli au-delà de 4 retire un point. La partie s'arrête quand un total atteint 0 ; "
        "le plus petit total gagne."
    ),
    "neuf_rotation": "L'atout change à chaque manche : {rotation}, puis on recommence.",
    "neuf_rotation_fixed": "Le même atout à chaque manche : {rotation}.",
    "neuf_rotation_none": "Aucune manche n'a d'atout : toutes se jouent sans atout.",
    "neuf_open": "Échanges ouverts : vous pouvez regarder le mort avant de le prendre ou de le laisser.",
    "neuf_blind": "Échanges à l'aveugle : on prend ou on laisse le mort sans le voir ; nul ne le regarde.",
    "neuf_cut_title": "Tirage pour la première donne (la plus haute donne, l'as est haut) :",
    "neuf_cut_tie": "Égalité pour la plus haute entre {names} : nouveau tirage.",
    "neuf_trump": "atout {suit}",
    "neuf_no_trump": "sans atout",
    "neuf_nt": "SA",
    "neuf_order": "Tour pour prendre le mort : {order}.",
    "neuf_leads": "{who} entame le premier pli.",
    "neuf_leads_you": "Vous entamez le premier pli.",
    "neuf_exchange_title": "à vous : le mort",
    "neuf_trick_title": "pli {n}",
    "neuf_tricks_zero": "0 pli",
    "neuf_tricks_one": "1 pli",
    "neuf_tricks_many": "{n} plis",
    "neuf_took_mark": "a pris le mort",
    "neuf_took_mark_you": "vous avez pris le mort",
    "neuf_dummy_down": "Le mort est face cachée, tel qu'il a été donné.",
    "neuf_dummy_gave": "À la place du mort se trouve la main que {who} a laissée.",
    "neuf_dummy_gave_you": "À la place du mort se trouve la main que vous avez laissée.",
    "neuf_the_dummy": "Le mort",
    "neuf_after_exchanges": "Après les échanges :",
    "neuf_known": "{who} a {cards} (vous les avez vues dans le mort)",
    "neuf_dummy_known": "Hors jeu dans le mort : {cards}",
    "neuf_prompt_look": "Regarder le mort ? (o/n)",
    "neuf_prompt_take": "Prendre le mort ? (o/n)",
    "neuf_prompt_take_blind": "Prendre le mort sans le regarder ? (o/n)",
    "neuf_err_not_yet": "{text} : aucune carte ne se joue avant d'avoir réglé le mort - répondez o ou n",
    "neuf_log_look": "{who} a regardé le mort",
    "neuf_log_look_you": "Vous avez regardé le mort",
    "neuf_log_look_take": "{who} a regardé le mort et l'a pris",
    "neuf_log_look_take_you": "Vous avez regardé le mort et l'avez pris",
    "neuf_log_look_leave": "{who} a regardé le mort et l'a laissé",
    "neuf_log_look_leave_you": "Vous avez regardé le mort et l'avez laissé",
    "neuf_log_take": "{who} a pris le mort sans le regarder",
    "neuf_log_take_you": "Vous avez pris le mort sans le regarder",
    "neuf_log_leave": "{who} a laissé le mort sans le regarder",
    "neuf_log_leave_you": "Vous avez laissé le mort sans le regarder",
    "neuf_log_take_blind": "{who} a pris le mort",
    "neuf_log_take_blind_you": "Vous avez pris le mort",
    "neuf_log_leave_blind": "{who} a laissé le mort",
    "neuf_log_leave_blind_you": "Vous avez laissé le mort",
    "neuf_trick": "Pli {n} : {plays}",
    "neuf_led": "{who} a entamé {card}",
    "neuf_led_you": "vous avez entamé {card}",
    "neuf_played": "{who} a joué {card}",
    "neuf_played_you": "vous avez joué {card}",
    "neuf_wins": "pli pour {who}",
    "neuf_wins_you": "pli pour vous",
    "neuf_suit_led": "{suit} demandé",
    "neuf_your_lead": "À vous d'entamer : jouez n'importe quelle carte.",
    "neuf_follow": "Vous devez fournir à {suit} :",
    "neuf_void": "Vous n'avez pas de {suit} : jouez n'importe quelle carte (coupez ou défaussez-vous).",
    "neuf_prompt": "Votre carte",
    "neuf_rule_follow-suit": "vous avez du {one}, et c'est {many} qui est demandé : il faut fournir",
    "neuf_suit1_S": "pique",
    "neuf_suit1_H": "cœur",
    "neuf_suit1_D": "carreau",
    "neuf_suit1_C": "trèfle",
    "neuf_hand_over": "La manche {n} est finie : toutes les cartes sont jouées, aucune main n'en garde.",
    "neuf_dummy_held": "Le mort contenait {cards} (hors jeu).",
    "neuf_dummy_dealt": "À la donne, le mort contenait {cards}.",
    "neuf_hands_played": "Les mains jouées :",
    "neuf_hands_verified": "Les mains jouées, chaque carte révélée et vérifiée par chaque nœud :",
    "neuf_col_trumps": "Atout",
    "neuf_row_start": "Départ",
    "neuf_note_scores": "Par manche : points ajoutés (plis faits). Les totaux descendent vers 0.",
    "neuf_help_title": "Comment jouer au Neuf",
    "neuf_help_deal": (
        "Trois joueurs et une quatrième main, le mort, reçoivent 13 cartes chacun. Dans chaque "
        "couleur l'ordre est as, roi, dame, valet (A K Q J), 10, puis jusqu'au 2."
    ),
    "neuf_help_open": (
        "Avant de jouer, le donneur, puis son voisin de gauche, puis le troisième joueur peuvent "
        "chacun regarder le mort (en secret) et le prendre, en laissant leur propre main à sa place."
    ),
    "neuf_help_blind": (
        "Avant de jouer, le donneur, puis son voisin de gauche, puis le troisième joueur peuvent "
        "chacun prendre le mort, en laissant leur propre main à sa place. Les échanges sont à "
        "l'aveugle : personne ne regarde le mort."
    ),
    "neuf_help_play": (
        "Le voisin de gauche du donneur entame le premier pli. Il faut fournir à la couleur "
        "demandée ; si vous ne pouvez pas, jouez n'importe quelle carte. Le plus gros atout fait "
        "le pli, sinon la plus forte carte de la couleur demandée ; qui fait le pli entame le "
        "suivant."
    ),
    "neuf_help_play_nt": (
        "Le voisin de gauche du donneur entame le premier pli. Il faut fournir à la couleur "
        "demandée ; si vous ne pouvez pas, jouez n'importe quelle carte. La plus forte carte de la "
        "couleur demandée fait le pli ; qui fait le pli entame le suivant."
    ),
    "neuf_help_score": (
        "Chacun part de {start} ; chaque manche ajoute 4 moins le nombre de plis faits. La partie "
        "s'arrête après une manche où un total atteint 0 ou moins ; le plus petit total gagne."
    ),
    "neuf_help_keys": (
        "Que taper\n"
        "  o ou n                      aux questions sur le mort\n"
        "  un numéro de la liste       1\n"
        "  une carte                   QS  10h  TH  q♠\n"
        "  score                       le tableau des scores\n"
        "  aide                        ce texte\n"
        "  quitter                     quitter la partie\n"
        "  Cartes : A K Q J (as, roi, dame, valet), 10 à 2, puis S (pique) H (cœur)\n"
        "  D (carreau) C (trèfle)."
    ),
}

_IT_NEUF: dict[str, str] = {
    "neuf_welcome": "Le Neuf: {you} contro {others} ({bots}).",
    "neuf_welcome_watch": "Le Neuf: {names} ({bots}).",
    "neuf_goal": (
        "Tutti partono da {start} e scendono: ogni mano aggiunge 4 meno le prese fatte, quindi ogni "
        "presa oltre la quarta toglie un punto. La partita finisce quando un totale arriva a 0; "
        "vince il totale più basso."
    ),
    "neuf_rotation": "L'atout cambia a ogni mano: {rotation}, poi si ricomincia.",
    "neuf_rotation_fixed": "Lo stesso atout in ogni mano: {rotation}.",
    "neuf_rotation_none": "Nessuna mano ha un atout: si gioca sempre senza atout.",
    "neuf_open": "Scambi aperti: puoi guardare il morto prima di prenderlo o lasciarlo.",
    "neuf_blind": "Scambi alla cieca: il morto si prende o si lascia senza vederlo; nessuno lo guarda.",
    "neuf_cut_title": "Taglio per il primo mazziere (la carta più alta fa le carte, l'asso è alto):",
    "neuf_cut_tie": "Parità per la più alta tra {names}: tagliano di nuovo.",
    "neuf_trump": "atout {suit}",
    "neuf_no_trump": "senza atout",
    "neuf_nt": "SA",
    "neuf_order": "Turni per prendere il morto: {order}.",
    "neuf_leads": "{who} apre la prima presa.",
    "neuf_leads_you": "Apri tu la prima presa.",
    "neuf_exchange_title": "tocca a te: il morto",
    "neuf_trick_title": "presa {n}",
    "neuf_tricks_zero": "0 prese",
    "neuf_tricks_one": "1 presa",
    "neuf_tricks_many": "{n} prese",
    "neuf_took_mark": "ha preso il morto",
    "neuf_took_mark_you": "hai preso il morto",
    "neuf_dummy_down": "Il morto è coperto, come è stato distribuito.",
    "neuf_dummy_gave": "Al posto del morto c'è la mano lasciata da {who}.",
    "neuf_dummy_gave_you": "Al posto del morto c'è la mano lasciata da te.",
    "neuf_the_dummy": "Il morto",
    "neuf_after_exchanges": "Dopo gli scambi:",
    "neuf_known": "{who} ha {cards} (le hai viste nel morto)",
    "neuf_dummy_known": "Fuori gioco nel morto: {cards}",
    "neuf_prompt_look": "Guardi il morto? (s/n)",
    "neuf_prompt_take": "Prendi il morto? (s/n)",
    "neuf_prompt_take_blind": "Prendi il morto senza guardarlo? (s/n)",
    "neuf_err_not_yet": "{text}: non si gioca nessuna carta prima di decidere sul morto - rispondi s o n",
    "neuf_log_look": "{who} ha guardato il morto",
    "neuf_log_look_you": "Hai guardato il morto",
    "neuf_log_look_take": "{who} ha guardato il morto e l'ha preso",
    "neuf_log_look_take_you": "Hai guardato il morto e l'hai preso",
    "neuf_log_look_leave": "{who} ha guardato il morto e l'ha lasciato",
    "neuf_log_look_leave_you": "Hai guardato il morto e l'hai lasciato",
    "neuf_log_take": "{who} ha preso il morto senza guardarlo",
    "neuf_log_take_you": "Hai preso il morto senza guardarlo",
    "neuf_log_leave": "{who} ha lasciato il morto senza guardarlo",
    "neuf_log_leave_you": "Hai lasciato il morto senza guardarlo",
    "neuf_log_take_blind": "{who} ha preso il morto",
    "neuf_log_take_blind_you": "Hai preso il morto",
    "neuf_log_leave_blind": "{who} ha lasciato il morto",
    "neuf_log_leave_blind_you": "Hai lasciato il morto",
    "neuf_trick": "Presa {n}: {plays}",
    "neuf_led": "{who} ha aperto con {card}",
    "neuf_led_you": "hai aperto con {card}",
    "neuf_played": "{who} ha giocato {card}",
    "neuf_played_you": "hai giocato {card}",
    "neuf_wins": "prende {who}",
    "neuf_wins_you": "prendi tu",
    "neuf_suit_led": "uscita a {suit}",
    "neuf_your_lead": "Tocca a te aprire: gioca una carta qualsiasi.",
    "neuf_follow": "Devi rispondere a {suit}:",
    "neuf_void": "Non hai {suit}: gioca una carta qualsiasi.",
    "neuf_prompt": "La tua carta",
    "neuf_rule_follow-suit": "hai una carta di {many}, e l'uscita è a {many}: devi rispondere al seme",
    "neuf_suit1_S": "picche",
    "neuf_suit1_H": "cuori",
    "neuf_suit1_D": "quadri",
    "neuf_suit1_C": "fiori",
    "neuf_hand_over": "La mano {n} è finita: tutte le carte sono state giocate, nessuno ne ha più in mano.",
    "neuf_dummy_held": "Il morto conteneva {cards} (fuori gioco).",
    "neuf_dummy_dealt": "Alla distribuzione il morto conteneva {cards}.",
    "neuf_hands_played": "Le mani giocate:",
    "neuf_hands_verified": "Le mani giocate, ogni carta rivelata e verificata da ogni nodo:",
    "neuf_col_trumps": "Atout",
    "neuf_row_start": "Inizio",
    "neuf_note_scores": "Per mano: punti aggiunti (prese fatte). I totali scendono verso 0.",
    "neuf_help_title": "Come si gioca a Le Neuf",
    "neuf_help_deal": (
        "Tre giocatori e una quarta mano, il morto, ricevono 13 carte ciascuno. In ogni seme "
        "l'ordine è asso, re, donna, fante (A K Q J), 10, poi giù fino al 2."
    ),
    "neuf_help_open": (
        "Prima del gioco il mazziere, poi il giocatore alla sua sinistra, poi il terzo possono "
        "guardare il morto (in segreto) e prenderlo, lasciando al suo posto la propria mano."
    ),
    "neuf_help_blind": (
        "Prima del gioco il mazziere, poi il giocatore alla sua sinistra, poi il terzo possono "
        "prendere il morto, lasciando al suo posto la propria mano. Gli scambi sono alla cieca: "
        "nessuno guarda il morto."
    ),
    "neuf_help_play": (
        "Il giocatore alla sinistra del mazziere apre la prima presa. Si risponde al seme di uscita "
        "se si può; altrimenti si gioca una carta qualsiasi. Vince la presa l'atout più alto, "
        "altrimenti la carta più alta del seme di uscita; chi prende apre la presa successiva."
    ),
    "neuf_help_play_nt": (
        "Il giocatore alla sinistra del mazziere apre la prima presa. Si risponde al seme di uscita "
        "se si può; altrimenti si gioca una carta qualsiasi. Vince la presa la carta più alta del "
        "seme di uscita; chi prende apre la presa successiva."
    ),
    "neuf_help_score": (
        "Tutti partono da {start}; ogni mano aggiunge 4 meno le prese fatte. La partita finisce "
        "dopo la mano in cui un totale arriva a 0 o meno; vince il totale più basso."
    ),
    "neuf_help_keys": (
        "Cosa scrivere\n"
        "  s o n                       alle domande sul morto\n"
        "  un numero della lista       1\n"
        "  una carta                   QS  10h  TH  q♠\n"
        "  punti                       la tabella dei punteggi\n"
        "  aiuto                       questo testo\n"
        "  esci                        lascia la partita\n"
        "  Carte: A K Q J (asso, re, donna, fante), da 10 a 2, poi il seme S (picche)\n"
        "  H (cuori) D (quadri) C (fiori)."
    ),
}

for _base, _extra in ((_EN, _EN_NEUF), (_FR, _FR_NEUF), (_IT, _IT_NEUF)):
    _base.update(_extra)

STRINGS: dict[str, dict[str, str]] = {"en": _EN, "fr": _FR, "it": _IT}


class Translator:
    """Looks up a string in one language, falling back to English for a missing key."""

    __slots__ = ("lang",)

    def __init__(self, lang: str = DEFAULT_LANG) -> None:
        if lang not in LANGS:
            raise ValueError(f"unknown language {lang!r}; choose from {', '.join(LANGS)}")
        self.lang = lang

    def __call__(self, key: str, **values: object) -> str:
        text = STRINGS[self.lang].get(key)
        if text is None:
            text = _EN[key]
        return text.format(**values) if values else text

    def has(self, key: str) -> bool:
        return key in STRINGS[self.lang] or key in _EN

    def cards(self, n: int) -> str:
        """``1 card`` / ``5 cards``."""
        return self("cards_one") if n == 1 else self("cards_many", n=n)

    def suit_name(self, suit: str) -> str:
        return SUIT_WORDS[self.lang][suit]

    def join(self, names: list[str]) -> str:
        """``a``, ``a and b``, ``a, b and c``."""
        if len(names) <= 1:
            return "".join(names)
        return ", ".join(names[:-1]) + f" {self('and')} " + names[-1]
