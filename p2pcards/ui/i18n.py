"""Every user-visible string of p2pcards, in English, and how it is said in French and Italian.

The English here is the source of the message catalogs: ``p2pcards/locale`` holds the
template (``p2pcards.pot``) and one ``.po`` file a language, which ``scripts/i18n``
regenerates from this module and compiles to the ``.mo`` files the standard library's
:mod:`gettext` reads. Each message's key is its ``msgctxt``. The original rule documents
are French and Italian, so players from there are served in their language.

Card notation (``9S``, ``10H``) is the same in every language; suit *names* are
accepted in all three at any suit prompt, whatever the interface language, so a
player never has to guess which words work.
"""

from __future__ import annotations

import errno
import functools
import gettext
import os
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from p2pcards.bots.words import BOT_WORDS
from p2pcards.cards import SUIT_SYMBOLS, SUITS, Card, parse_card, rank_text
from p2pcards.crypto.pake_words import PAKE_WORDS
from p2pcards.errors import CardParseError, UsageError
from p2pcards.games.base import game, load, names
from p2pcards.games.rule_words import ILLEGAL_WORDS, RULE_PLURAL, RULE_WORDS
from p2pcards.protocol.audit_words import AUDIT_PLURAL, AUDIT_WORDS
from p2pcards.protocol.faults import FAULT_WORDS
from p2pcards.protocol.notice import NOTICES, Notice, Notices
from p2pcards.protocol.wire_words import WIRE_WORDS
from p2pcards.say import Number, SystemSaid, WireSaid
from p2pcards.ui.po import Message

LANGS = ("en", "fr", "it")
DEFAULT_LANG = "en"
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
DOMAIN = "p2pcards"


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


LOCAL_SUIT_LETTERS: dict[str, dict[str, str]] = {
    "fr": {"p": "S", "t": "C"},
    "it": {"p": "S", "f": "C", "q": "D"},
}
"""First letters of the suits' names in the player's language that are no English suit letter:
asked for a suit, a French or Italian player may answer with them (``q`` is quadri there,
not quit)."""
C_IS_HEARTS = frozenset({"fr", "it"})
"""Languages in which ``c`` begins the name of hearts (cœur, cuori), while it is clubs in
English: a lone ``c`` could mean either, so it is asked again rather than taken as clubs."""

_NATIVE_SUITS = {"p": "S", "k": "D", "q": "D", "f": "C", "t": "C"}
"""First letters of suit names in French (pique, cœur, carreau, trèfle) and Italian (picche,
cuori, quadri, fiori) that are no English suit letter: ``10p`` means a card, not a typo."""
_NATIVE_RANKS = {"v": "J", "r": "K", "d": "Q", "f": "J"}
"""Court cards by their French (valet, dame, roi) and Italian (fante, donna, re) letters."""
_RANK_THEN_REST = re.compile(r"(10|[2-9]|[AJQKTajqkt]|[vrdfVRDF])\s*(\S.*)")
"""A rank, English or French and Italian, then whatever stands for the suit."""


RANK_WORDS: dict[str, tuple[str, ...]] = {
    "en": ("ace", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen",
           "king"),
    "fr": ("as", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf", "dix", "valet", "dame",
           "roi"),
    "it": ("asso", "due", "tre", "quattro", "cinque", "sei", "sette", "otto", "nove", "dieci", "fante",
           "donna", "re"),
}
"""The ranks' names in every language, ace to king: a card may be typed as a player says it (``as de cœur``,
``queen of spades``, ``re di cuori``), whatever the interface language."""
LINK_WORDS = frozenset({"de", "du", "di", "of", "d'", "d\u2019"})
"""The little words that may stand between a rank and its suit: ``dame de pique``, ``asso di
picche``, ``ace of hearts`` (``d'`` may also cling to the suit's name)."""
AS_IS_ACE = frozenset({"fr"})
"""Languages in which ``as`` alone is a word, the ace, while it is the ace of spades in the
notation (``AS``): typed alone it could be any ace, so it is asked again rather than read."""

_RANK_LOOKUP: dict[str, tuple[int, frozenset[str]]] = {}
for _lang, _ranks in RANK_WORDS.items():
    for _rank, _word in enumerate(_ranks, 1):
        _old = _RANK_LOOKUP.get(_word, (_rank, frozenset()))
        _RANK_LOOKUP[_word] = (_rank, _old[1] | {_lang})
_RANK_ALONE = re.compile(r"10|[2-9]|[AJQKTajqkt]")
"""A rank typed as a word of its own in the notation (``Q pique``, ``7 de cœur``)."""


def rank_word(word: str) -> tuple[int, frozenset[str]] | None:
    """The rank a rank's name stands for (``roi``, ``Asso``, ``queen``), with the languages
    that call it so; None for any other word."""
    return _RANK_LOOKUP.get(_fold(word))


def _apostrophe(word: str) -> tuple[str, str] | None:
    """``d'cœur`` as ``("d'", "cœur")``: the elided ``de`` clinging to the word after it."""
    for link in ("d'", "d\u2019"):
        if word[:2].lower() == link and len(word) > 2:
            return word[:2], word[2:]
    return None


@dataclass(frozen=True, slots=True)
class CardWords:
    """A card read from the first words of a line, and how it was typed."""

    card: Card
    used: int
    """How many of the line's words it took."""
    text: str
    """Those words, as typed (what a message quotes back)."""
    rank: str
    """Its rank as typed, with the little word after it if any: ``7``, ``roi de``, ``ace of``."""
    suit: str
    """Its suit as typed: ``c``, ``cœur``, ``♥``, ``H``."""
    english: bool
    """Its rank reads in English too (a figure, a letter, ``six``): after it ``c`` may be clubs.
    After ``roi`` or ``fante`` a lone ``c`` is cœur, cuori to the one who typed it."""

    @property
    def said_as_ace(self) -> bool:
        """Typed as the one word ``as`` or ``As``: the French word for an ace, or the ace of
        spades. ``AS`` in capitals is the notation, as ``KS`` is: the ace of spades."""
        return self.used == 1 and _fold(self.text) == "as" and self.text.strip() != "AS"

    def c_may_be_hearts(self, lang: str) -> bool:
        """Its suit is a lone ``c`` that may mean hearts (cœur, cuori) as well as clubs: the
        interface is French or Italian, or the rank was named in one of those languages."""
        return self.suit in ("c", "C") and (lang in C_IS_HEARTS or not self.english)

    def in_suit(self, suit: str) -> CardWords:
        """The same rank in ``suit`` (``Kc trèfle``: the word after a ``c`` says which it was)."""
        return CardWords(
            card=Card.of(self.card.rank, suit),
            used=self.used + 1,
            text=self.text,
            rank=self.rank,
            suit=suit,
            english=self.english,
        )


def _rank_and_suit(rank: str, suit: str) -> Card | None:
    """The card of a rank in the notation (``K``, ``10``) and a suit as typed, or None."""
    try:
        return read_card(rank + suit)
    except CardParseError:
        return None


def take_card(words: Sequence[str]) -> CardWords | None:
    """The card named by the first words of a line, or None if they name none.

    A card is one word in the notation (``9S``, ``10h``, ``9♠``, ``10cuori``, ``Qtrèfle``), or a
    rank and then its suit, apart: the rank in the notation (``Q``, ``7``) or by its name in
    English, French or Italian (``queen``, ``dame``, ``donna``: any case, accents or not), then
    perhaps a little word (``de``, ``d'``, ``du``, ``di``, ``of``), then the suit by its letter,
    symbol or name (``Q pique``, ``7 de cœur``, ``asso di picche``, ``ace of hearts``). A rank
    named by a word is a card only with its suit: ``as`` alone is the notation's ace of spades,
    ``as cœur`` the ace of hearts."""
    if not words:
        return None
    first = words[0]
    named = rank_word(first)
    if named is not None:
        rank, english = rank_text(named[0]), "en" in named[1]
    elif _RANK_ALONE.fullmatch(first):
        rank, english = first.upper(), True
    else:
        rank, english = "", True
    if rank and len(words) > 1:
        second = words[1]
        tries: list[tuple[str, str, int]] = []  # (the words before the suit, the suit, words used)
        if _fold(second) in LINK_WORDS and len(words) > 2:
            tries.append((f"{first} {second}", words[2], 3))
        clinging = _apostrophe(second)
        if clinging is not None:
            tries.append((f"{first} {clinging[0]}", clinging[1], 2))
        tries.append((first, second, 2))
        for before, suit, used in tries:
            card = _rank_and_suit(rank, suit)
            if card is not None:
                return CardWords(
                    card=card,
                    used=used,
                    text=" ".join(words[:used]),
                    rank=before,
                    suit=suit,
                    english=english,
                )
        if named is not None:
            return None  # "as" then no suit: no ace of spades with a word left over
    try:
        card = read_card(first)
    except CardParseError:
        return None
    m = _RANK_THEN_REST.fullmatch(first.strip())
    rank_typed, suit_typed = (m.group(1), m.group(2)) if m is not None else (first, "")
    return CardWords(card=card, used=1, text=first, rank=rank_typed, suit=suit_typed, english=True)


def read_card(text: str) -> Card:
    """A card as typed at a prompt: ``9S``, ``10h``, ``9♠``, or a rank with a suit's name in
    any of the three languages (``10cuori``, ``Q pique``, ``7 hearts``); else CardParseError."""
    try:
        return parse_card(text)
    except CardParseError:
        m = _RANK_THEN_REST.fullmatch(text.strip())
        if m is None or m.group(1).lower() in _NATIVE_RANKS or len(m.group(2)) < 2:
            raise
        suit = parse_suit_word(m.group(2))
        return parse_card(m.group(1) + suit)


def native_card(text: str) -> str | None:
    """The card meant by ``text`` written with a French or Italian letter for its rank or
    its suit (``10p`` is ``10S``, ``Vc`` valet de cœur ``JH``, ``Dq`` donna di quadri
    ``QD``, ``roi de p`` ``KS``), written as it should be; None for anything else. Such a
    player needs the notation, not the list of moves; the card is only shown, never played
    for them."""
    words = text.split()
    native_rank = False
    if words:
        named = rank_word(words[0])
        if named is not None:
            words[0] = rank_text(named[0])
            native_rank = "en" not in named[1]
    if len(words) > 2 and _fold(words[1]) in LINK_WORDS:
        del words[1]
    elif len(words) > 1 and _apostrophe(words[1]) is not None:
        words[1] = words[1][2:]
    m = _RANK_THEN_REST.fullmatch("".join(words))
    if m is None:
        return None
    rank, suit = m.group(1).lower(), m.group(2).lower()
    native_rank = native_rank or rank in _NATIVE_RANKS
    if suit in _NATIVE_SUITS:
        letter = _NATIVE_SUITS[suit]
    elif native_rank and suit == "c":  # cœur, cuori: with a French or Italian rank, c is hearts
        letter = "H"
    elif native_rank:
        try:
            letter = parse_suit_word(suit)
        except CardParseError:
            return None
    else:
        return None
    return parse_card(_NATIVE_RANKS.get(rank, rank) + letter).text()


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
    "clock_too_short_turn_timeout": "a turn of {seconds} s is too short for a person to play: a host may"
    " give a turn {least} s or more (at most {most} s).",
    "clock_too_short_step_timeout": "a step of {seconds} s is too short for the network: a host may give"
    " the other steps {least} s or more (at most {most} s).",
    "clock_too_short_grace": "a grace of {seconds} s is too short to come back after a dropout: a host"
    " may give {least} s or more (at most {most} s).",
    "host_short_clock": "(A clock of {seconds} s. A node on Linux tells a dead connection (a Wi-Fi"
    " dropout) from a frozen player within seconds, and the connection is made again. On other"
    " systems a dropout longer than the clock looks like a frozen player, who is then named and the"
    " match stops: a clock of {enough} s or more leaves dropouts more time.)",
    "bind_bad": "{address} is neither an address nor a host name",
    "join_ipv6_port": "({address} is read as an IPv6 address, at port 7777; port {port} of {host} is "
    "written [{host}]:{port})",
    "join_ipv6_no_address": "{address} is no IPv6 address: port {port} of {host} is written [{host}]:{port}",
    "join_bad_address": "{address} is not HOST or HOST:PORT with a port from 1 to 65535 (for example"
    " 203.0.113.5:7777), nor an invitation code (43-robin-maple)",
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
    "bot": "{name} bot",
    "hint": "Type help at any prompt for help, score for the scores, quit to leave.",
    "cut_title": "Cut for the dealer (lowest card deals, Ace low):",
    "cut_tie": "Tie for lowest between {names}: they cut again.",
    "cut_dealer": "{name} deals first.",
    "cut_dealer_you": "You deal first.",
    "hand_title": "Hand {n}",
    "playoff_title": "Playoff hand: {names}",
    "deals": "{name} deals",
    "deals_you": "you deal",
    "up_card": "Up card {card}",
    "stock": "Stock",
    "suit": "Suit",
    "cards_one": "1 card",
    "cards_many": "{n} cards",
    "total": "total {n}",
    "dealer_mark": "dealer",
    "to_play": "to play",
    "your_hand": "Your hand",
    "turn_title": "your turn",
    "prompt_suit": "Which suit? {choices} (or S H D C, hearts...)",
    "prompt_continue": "Press Enter for the next hand.",
    "drew_forced": "An Ace makes you draw: you get {card}.",
    "err_not_card": "{text} is not a card - type a number 1-{n} or a card like {example}",
    "err_not_card_one": "{text} is not a card - type 1 or a card like {example}",
    "err_empty": "Type the number of your move (1-{n}) or a card; help shows the rules.",
    "err_empty_one": "Type 1 or a card like {example}; help shows the rules.",
    "err_notation": "{text} is not a card - a card is written with its rank in English (A, 2-10, J, Q, K),"
    " then its suit's English letter (S spades, H hearts, D diamonds, C clubs), symbol or name: {example}",
    "err_number": "There is no move {text} - type a number 1-{n}",
    "err_number_one": "There is no move {text} - type 1",
    "err_not_suit": "{text} is not a suit - type 1-4, S, H, D or C, or a name like hearts",
    "err_no_suit": "A suit is needed here - type 1-4, S, H, D or C, or a name like hearts",
    "err_not_suit_move": "{text} is not a suit - after a 9 name one with S, H, D or C, or a name like hearts",
    "err_c_suit": (
        "c is hearts in French and Italian (cœur, cuori) but clubs in English"
        " - type the suit's number, its symbol or its name"
    ),
    "err_c_suit_move": (
        "c is hearts in French and Italian (cœur, cuori) but clubs in English - type the move"
        " again with the suit's symbol or its name: {card} {hearts} or {card} {clubs}"
    ),
    "err_c_card": (
        "{text}: {hearts} or {clubs}? c is hearts in French and Italian (cœur, cuori) but clubs in"
        " English - type {as_hearts} or {as_clubs}"
    ),
    "err_as_card": (
        "{text}: which ace? In the card notation AS is the ace of spades - type the ace with its suit:"
        " {spades}, {hearts}, {diamonds} or {clubs}"
    ),
    "err_after_card": "{text}: {card} is a card, but {rest} is not part of it - type just {card}",
    "err_rank_alone": "{text}: which one? Type the card with its suit, such as {example}",
    "err_yes_no": "Please answer y or n (or type help).",
    "err_not_now": "{what} is not possible now - type a number 1-{n}",
    "err_rule": "Not allowed: {why} [rule: {rule}]",
    # The rules a refusal names ([rule: ...]): in English their ids, in other languages words
    **{f"rulename_{rule}": rule for rule in (
        "card-held", "match-suit-or-rank", "must-play", "play-drawn", "no-nine-out", "draw-once", "pass",
        "phase", "stacking-nines", "double-nines", "draw-until-playable", "declare", "turn-order",
        "follow-suit", "look-once", "blind-exchange", "draw-top", "hand-over", "recycle", "reveal",
        "look", "exchange", "cut",
    )},
    "rule_card-held": "you do not hold {card}",
    "rule_phase": "that is not a move at this point of your turn",
    "log_play_you": "You played {card}",
    "log_play9_you": "You played {card} and declared {suit}",
    "log_double_you": "You played {c1} and {c2} and declared {suit}",
    "log_draw_play": "{who} drew and played {card}",
    "log_draw_play_you": "You drew and played {card}",
    "log_pass_you": "You passed (nothing to draw)",
    "log_declare_you": "You declared {suit} (the up card is a 9)",
    "log_skip_you": "You accepted the skip",
    "out": "{who} went out!",
    "out_you": "You went out!",
    "stall": "A full round without a card played: the hand ends.",
    "scores_after": "Scores after hand {n}",
    "final_scores": "Final scores",
    "scores": "Scores",
    "col_hand": "Hand",
    "row_total": "Total",
    "winner": "{names} wins with {total} points.",
    "winner_you": "You win with {total} points!",
    "winners": "{names} share the win with {total} points.",
    "quit": "Game abandoned.",
    "confirm_quit": "Quit the game? It stops here, for the bots too. (y/n)",
    "record_written": "Record written to {path}.",
    "record_failed": "Could not write the record to {path}: {error}",
    "seed": "Seed {seed}: replay this deal with --seed {seed}.",
    "transcript_saved": "Signed transcript (check it with p2pcards audit FILE):\n  {path}",
    "waiting_for": "Waiting for {names} ({seconds} s)...",
    "status_turn": "{names} to play",
    "status_shuffle": "Waiting for {names} to shuffle",
    "status_keys": "Waiting for keys from {names}",
    "status_step": "Waiting for {names}",
    "status_reconnect": "Waiting for {names} to reconnect",
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
    "narrow_window": "(This window has {columns} columns, the table needs {least}: its lines are folded.)",
    "typed_ahead": "(What you typed before this prompt appeared is not used: answer here.)",
    "typed_partial": (
        "(You had typed {text} before this prompt, without Enter: it is not used. Type it here.)"
    ),
    "turn_answer_first": "(Your turn has come: your move is asked once you have answered this.)",
    "cmd_cannot_write": "cannot write the output: {error}",
    "typed_before_table": "(What you typed before the table was ready is not used.)",
    "typed_not_your_turn": (
        "({typed}: it is not your turn; a move counts at your prompt. While you wait: quit, score, help.)"
    ),
    "typed_withdrawn": (
        "(What you typed answered a question that no longer stands: nothing was played. Answer here.)"
    ),
    "reason_quit": "quit",
    "reason_timed_out": "timed out",
    "reason_interrupted": "interrupted",
    "reason_fingerprint": "said the table fingerprint differed: someone may be in the middle",
    "reason_no_play": "did not play within {seconds} s",
    "reason_gone": "lost connection and did not come back within {seconds} s",
    "reason_away_too_long": "away {seconds} s in all over the match, the most a player may be",
    "reason_left_behind": "the players who passed on its messages went on without it",
    "net_stopped_blame": "The match stopped because of {who}: {why}",
    "net_stopped": "The match stopped: {why}",
    # Why: the node's own words (net.runner), the fields as it said them.
    "problem_nobody_answered": (
        "none of the others answered within {seconds} s of your return: the match may have "
        "ended, or gone on without you"
    ),
    "problem_lost_every": (
        "every connection was lost at step {step} and none came back in time: this computer's "
        "own connection may be down"
    ),
    "problem_every_closed": (
        "every connection closed at step {step} ({kind}); nobody can tell from here who left"
    ),
    "problem_heard_nobody": (
        "nothing came from anyone while waiting {seconds} s for {names} at step {step}: this "
        "computer's own connection may be down"
    ),
    "problem_lost_every_refused": (
        "every connection was lost at step {step} and none came back in time; dialled again, "
        "{gone} refused the connection: nothing listens there any more (the program may have "
        "ended)"
    ),
    "problem_heard_nobody_refused": (
        "nothing came from anyone while waiting {seconds} s for {names} at step {step}; dialled "
        "again, {gone} refused the connection: nothing listens there any more (the program may "
        "have ended)"
    ),
    "problem_stopped_before": "{names} stopped before step {step}; nobody can tell from here why",
    "problem_silent_play": "timed out: the table's turn clock of {seconds} s ran out, and {names} neither"
    " played nor left",
    "problem_silent_answer": "timed out: {names} did not answer within {seconds} s",
    "problem_slow_answer": (
        "timed out: {names} did not answer within {seconds} s, having been late {allowance} s in all"
        " already, the most a seat may be over the match"
    ),
    "problem_relayed_late": (
        "timed out: {names}, reached only through a relay, did not answer within {seconds} s, late"
        " {allowance} s in all already, the most over a match: the players who pass on its messages"
        " may have held them up; nobody can tell from here who is at fault"
    ),
    "problem_relayed_silent": (
        "timed out waiting for {names} at step {step}, reached only through a relay (the players "
        "linked with both may drop what they pass on): nobody can tell from here who is at fault"
    ),
    "problem_relayed_dispute": (
        "a dispute about the records of {names} saw no proof in time; that player is reached only "
        "through a relay: nobody can tell from here who is at fault"
    ),
    "problem_stopped_claim": "{names} stopped the match; what it says: {claim}",
    "problem_stopped_reading": "stopped reading: a message waited {seconds} s to be delivered",
    "problem_read_slowly": (
        "read too slowly: this player's messages waited {seconds} s in all to be taken, the most a"
        " player may hold another up over the match"
    ),
    "problem_relay_in_name": "sent a message to pass on in the name of seat {origin}, for seat {seat}",
    "problem_gave_to_carry": "gave this computer, to pass on to seat {seat}, {problem}",
    "problem_carried_malformed": "passed on a malformed message: {error}",
    "problem_malformed_to_carry": "a malformed message ({error})",
    "problem_went_on_without": "{name} went on without {gone}",
    "problem_went_on_relayed": (
        "timed out waiting for {names} at step {step}: {who}, whom this computer too reaches only "
        "through a relay: nobody can tell from here who is at fault"
    ),
    "problem_not_followed": (
        "{names} did not go on without {gone} within {seconds} s (they may still hear from {gone}): "
        "nobody can tell from here who is at fault"
    ),
    "problem_stopped_claim_relayed": (
        "{names} stopped the match (said through a relay, which may have made it up); what it says: {claim}"
    ),
    "lobby": "At the table ({n} of {players}): {names}",
    "linked": "Everyone is linked: {names}. Shuffling...",
    "fingerprint": "Table fingerprint: {fingerprint}",
    "fingerprint_compare": (
        "Compare it with the other players (read it aloud): everyone must have the same digits. "
        "If they differ, someone is in the middle: leave the game."
    ),
    "fingerprint_ask": "Do all the players read these same digits? y(es), n(o), Enter if not compared",
    "fingerprint_ask_again": "Answer y if everyone has the same digits, n if not, or press Enter.",
    "fingerprint_confirm": (
        "Other digits mean someone is in the middle: you leave the game (signed), for good. Leave? (y/n)"
    ),
    "fingerprint_differ": "The digits differ: someone is in the middle. You leave the game (signed).",
    "fingerprint_skipped": "Not compared: the transcript will say that you did not confirm it.",
    "and": "and",
    "help_keys": "What to type",
    "you_obj": "you",
    "bot_heuristic": "heuristic bot",
    "bot_random": "random bot",
    "bot_expert": "expert bot",
    "bots_heuristic": "heuristic bots",
    "bots_random": "random bots",
    "bots_expert": "expert bots",
    "variant_draw_until_playable": "with nothing to play, draw until you get a card you can play, "
    "and play it",
    "variant_action_cards": "a Jack skips the next player, a Queen reverses the direction, an Ace makes "
    "the next player draw two and lose the turn",
    "variant_double_nines": "two decks; two 9s played together change the suit and skip the next player",
    "variant_stacking_nines": "a player about to be skipped by two 9s may cancel the skip with a 9",
    "variant_hard_nines": "a 9 left in hand costs 25 instead of 15",
    "variant_no_nine_out": "a 9 may not be your last card",
    "host_loopback": "(that address reaches this computer only, not the others' computers: start\n"
    " without --bind, or bind this machine's address on their network)",
    "net_others_left": "{name} left the match ({reason}): nobody remains to play on with you, so the match"
    " ends here.",
    "net_continued_none": "{name} left the match ({reason}) before any hand was finished; the others play"
    " on without them from a fresh deal.",
    "net_continued_ends_none": "{name} left the match ({reason}) before any hand was finished, and too few"
    " players remain to go on: the match ends with no winner.",
    # The frame of every --help (the texts themselves are the command line's own)
    "click_usage": "Usage:",
    "click_options": "Options",
    "click_commands": "Commands",
    "click_default": "default:",
    # The placeholders of the usage lines and option lists (the words of click's metavars)
    "metavar_options": "OPTIONS",
    "metavar_command": "COMMAND",
    "metavar_args": "ARGS",
    "metavar_file": "FILE",
    "metavar_address": "ADDRESS",
    "metavar_code": "CODE",
    "metavar_path": "PATH",
    "metavar_which": "WHICH",
    "metavar_text": "TEXT",
    "metavar_integer": "INTEGER",
    "metavar_integer_range": "INTEGER RANGE",
    "metavar_float_range": "FLOAT RANGE",
    "metavar_seconds": "SECONDS",
    "metavar_rule": "RULE",
    "metavar_value": "VALUE",
    "metavar_name": "NAME",
    "metavar_key": "KEY",
}


# What the commands other than play, host and join print.
_EN_COMMANDS: dict[str, str] = {
    "cmd_error": "Error: {error}",
    "hist_seat": "seat {seat}",
    "hist_not_transcript": "not a p2pcards transcript",
    "hist_unreadable": "cannot be read",
    "hist_cut_short": "cut short before its first record",
    "hist_failed": "failed: {name}",
    "hist_no_winner": "no winner: no hand finished",
    "hist_unfinished_at": "unfinished at hand {hand}",
    "hist_unfinished_before": "unfinished before the first hand",
    "hist_your_bot": "your bot",
    "hist_you": "you",
    "hist_left": "left",
    "hist_mark_verified": "✓ verified",
    "hist_mark_invalid": "✗ invalid",
    "hist_mark_incomplete": "… incomplete",
    "hist_mark_unchecked": "· unchecked",
    "hist_none": "No saved game yet: games are saved in {folder}",
    "hist_auditing": "Auditing",
    "hist_replay_hint": "(p2pcards replay N shows game N move by move; p2pcards audit N audits it)",
    "replay_not_shown": "Nothing of a transcript that does not verify is shown: see p2pcards audit.",
    "replay_no_page": "No page was written to {path}.",
    "replay_cannot_write": "Error: cannot write {path}: {error}",
    "replay_press_enter": "Enter: the next hand; q: stop here >",
}
_EN.update(_EN_COMMANDS)

# ``p2pcards replay``: the hands of a game in the terminal and on its web page.
_EN_REPLAY: dict[str, str] = {
    "rp_title": "{game}: {names}.",
    "rp_rules_raw": "Rules: {rules}.",
    "rp_heading": "Hand {n}{playoff} · {dealer} deals",
    "rp_heading_playoff": " (playoff)",
    "rp_heading_trumps": " · trumps {suit} ({symbol})",
    "rp_heading_no_trump": " · no trump",
    "rp_dealt": "Dealt:",
    "rp_dummy": "Dummy: {cards}",
    "rp_exchanges": "Exchanges:",
    "rp_tricks": "Tricks:",
    "rp_trick_lead": "{who} leads {card}",
    "rp_trick_play": "{who} plays {card}",
    "rp_trick_won": "{plays}: {who} wins.",
    "rp_rest_ended": "the others were too few to play on",
    "rp_rest_on": "the others played on from a fresh deal",
    "rp_leaving": '{name} left during hand {hand} ({how}: "{reason}"); the file ends there.',
    "rp_final": "Final totals: {totals}",
    "rp_final_left": " (and, who left: {kept})",
    "net_final_left": "Who left keeps their total: {kept}.",
    "rp_unfinished": "The game, or its file, stops here: only the hands verified to their end are shown.",
    "rp_result_unsigned": (
        "The file stops before every player signed this result: the audit calls the game INCOMPLETE."
    ),
    "rp_no_trump": "no trump",
    "rp_trumps_are": "trumps are {suit} ({symbol})",
    "rp_looks_takes": "{who} looks at the dummy and takes it",
    "rp_looks_keeps": "{who} looks at the dummy and keeps the hand",
    "rp_blind_takes": "{who} takes the dummy without looking",
    "rp_blind_keeps": "{who} keeps the hand, unseen dummy",
    "rp_trick_leads": "Trick {n}: {who} leads {card}",
    "rp_trick_plays": "Trick {n}: {who} plays {card}",
    "rp_you_seat": "seat {seat} ({you})",
    "rp_wins_trick": "; {who} wins the trick",
    "rp_tricks_won": "Tricks won: {seats}.",
    "rp_neuf_scores": "Scores (4 − tricks won): {seats}.",
    "rp_totals": "Totals: {seats}.",
    # the --html page
    "rph_chart_title": "Totals after each hand",
    "rph_goal": "the game ends at {goal}",
    "rph_start": "start",
    "rph_point_start": "{name}: {v} at the start",
    "rph_point": "{name}: {v} after hand {i}",
    "rph_after_hand": "After hand",
    "rph_seat": "Seat",
    "rph_player": "Player",
    "rph_key_fingerprint": "Key fingerprint",
    "rph_table_fingerprint": "Table fingerprint",
    "rph_date": "Saved",
    "rph_rules": "Rules",
    "rph_table": "The table",
    "rph_controls": "Step through the game",
    "rph_prev_hand": "Previous hand (Page Up)",
    "rph_prev_move": "Previous move (Left arrow)",
    "rph_next_move": "Next move (Right arrow)",
    "rph_next_hand": "Next hand (Page Down)",
    "rph_hand_button": "Hand",
    "rph_move_button": "Move",
    "rph_keys": "Keys: ← → move by move, Page Up / Page Down hand by hand, Home / End the deal / the last"
    " move of the hand.",
    "rph_address": "The address ({address}) always points at what is shown.",
    "rph_every_move": "Every move of this hand",
    "rph_scores": "Scores",
    "rph_verification": "Verification",
    "rph_noscript": "The table needs JavaScript; the scores and the verification above do not.",
    "rph_no_hand": "No hand to show",
    "rph_where": "Hand {i} of {n} · {what}",
    "rph_the_deal": "the deal",
    "rph_move_of": "move {m} of {last}",
    "rph_dealer": "dealer",
    "rph_total": "total {n}",
}
_EN.update(_EN_REPLAY)
# What host, join and resume print around a table: finding it, the code, what went wrong.
_EN_CONNECTING: dict[str, str] = {
    "join_looking": "Looking for the host of code {code} on this network...",
    "join_found": "Found the host at {where}.",
    "join_found_many": "{n} hosts answered ({where}); trying each in turn.",
    "join_no_host_resume": "{error} (to go back into a game this computer had not finished: "
    "p2pcards resume)",
    "join_ask_code": "The host's invitation code (or give --code, or set P2PCARDS_CODE); "
    "Tab completes a word.",
    "join_code_prompt": "Invitation code: ",
    "join_code_typo": "{word} is no word of an invitation code: did you mean {code}? "
    "Type the code again (the same code again is sent as it is).",
    "join_code_typo_given": "{word} is no word of an invitation code: did you mean {code}?",
    "join_no_code": "no invitation code: give --code CODE, or set P2PCARDS_CODE",
    "join_two_codes": "two different codes: the argument, and --code or P2PCARDS_CODE",
    "join_code_none": "Stopped: no code was given, so you joined no table.",
    "join_code_help": "Type the invitation code the host gave you, such as 43-robin-maple, then Enter"
    " (Tab completes its words; Ctrl-C stops).",
    "join_code_no_number": "Only a code like 43-robin-maple finds its host on this network: "
    "give the host's address, p2pcards join ADDRESS",
    "join_code_unfinished": "{code} is not a whole invitation code: a code is a number and two words, "
    "like 43-robin-maple",
    "join_resuming": "Resuming your unfinished game at {address} ({names}).",
    "host_lan_off_no_number": "LAN discovery is off: the code has no number in front (43-robin-maple)",
    "host_lan_off": "LAN discovery is off: {why}",
    "host_lan_off_udp": "LAN discovery is off: UDP port {port} ({error})",
    "cmd_interrupted": "Interrupted.",
    "cmd_port_taken": "{kind}: port {port} is already in use (another program, or another p2pcards, listens "
    "there): choose another one with --port, e.g. --port {other}",
    "cmd_port_taken_resume": "{kind}: the port this game listened on is already in use (another program, or "
    "another p2pcards, listens there): stop that one, then resume again",
}
_EN.update(_EN_CONNECTING)

# What resume, players and simulate list.
_EN_LISTS: dict[str, str] = {
    "resume_none": "No unfinished game on this computer (p2pcards history lists those played).",
    "resume_none_join": (
        'A seat that stopped before its table was linked (before "Everyone is linked") keeps no'
        " journal: run its join command again, and the host seats it again while the table waits for it."
    ),
    "resume_line": "{i}. {when}  {game}{at}: {names} (you: seat {seat})",
    "resume_at": " at {host}:{port}",
    "resume_you_host": " (you host)",
    "resume_hint": "Resume one with: p2pcards resume NUMBER",
    "resume_as_bot": "The bot {bot} played this seat, and plays on (--bot NAME seats another bot).",
    "resume_choose": "choose a number from 1 to {n}",
    "resume_no_such": (
        "{which} is neither a number from the list nor a journal file: p2pcards resume alone finds "
        "the unfinished game by itself, with no address or code (p2pcards resume --list lists them)"
    ),
    "resume_unreadable": "cannot read the journal {path}: {error}",
    "resume_damaged": "{path} cannot be resumed: {error}; it is left as it is.",
    "resume_skipped": "(not listed: {path}, which cannot be resumed; p2pcards resume followed by that path"
    " says why)",
    "resume_damaged_inside": "{path} cannot be resumed: it is damaged at byte {at}, and the {n} bytes "
    "from there cannot be read (they may hold moves this seat already sent, which it would then sign "
    "differently); it is left as it is.",
    "resume_no_session": "{path} cannot be resumed: its header does not say where the other players are "
    "(its network session is empty or damaged), so the journal is left as it is.",
    "players_note": "Note: the list of known players {problem}.",
    "players_no_such": "No known player is named {name} or has such a key.",
    "players_forgot": "Forgot {name} (key {fingerprint}).",
    "players_none": "No known players yet: the players of each networked game are remembered here.",
    "players_same_name": "(!! another key has this name: not the same player)",
    "sim_strategy": "strategy",
    "sim_seats": "seats",
    "sim_wins": "wins",
    "sim_win_rate": "win rate",
    "sim_interval": "95% interval",
    "sim_pts_hand": "pts/hand",
    "sim_outs": "outs",
    "sim_default": "default",
    "sim_speed": "{hands} hands ({per_match} per match, {stalled} stalled) in {elapsed} s: {hps} hands/s, "
    "{mps} matches/s",
}
_EN.update(_EN_LISTS)

# click's own errors on the command line (their English is click's).
_EN_CLICK: dict[str, str] = {
    "click_try": "Try '{command} {option}' for help.",
    "click_no_such_option": "No such option {name}.",
    "click_no_such_command": "No such command {name}.",
    "click_missing_argument": "Missing argument {name}.",
    "click_missing_option": "Missing option {name}.",
    "click_option_needs_value": "Option {name} requires a value.",
    "click_invalid_value": "Invalid value: {message}",
    "click_invalid_value_for": "Invalid value for {name}: {message}",
    "click_aborted": "Aborted!",
    "click_path_missing": "{path} does not exist.",
    "click_path_is_folder": "{path} is a folder, not a file.",
    "click_path_is_file": "{path} is a file, not a folder.",
    "click_path_unreadable": "{path} cannot be read (no permission).",
    "click_path_unwritable": "{path} cannot be written (no permission).",
    "click_not_whole_number": "{value} is not a whole number.",
    "click_not_number": "{value} is not a number.",
    "click_not_in_range": "{value} is not in the range {range}.",
    "click_not_a_choice": "{value} is not one of {choices}.",
    # The command line's own mistakes that click's checks do not see.
    "usage_bot_and_level": "choose the bots by --bot or by --level, not both",
    "usage_offline_transcript": "an --offline game has no transcript to save",
    "usage_delay_without_watch": "paces a watched match: use it with --watch",
    "usage_no_bot": "name at least one bot",
}
_EN.update(_EN_CLICK)

# What the system says of a failure (an OSError's strerror), in the person's language: the
# common ones by their errno, the rest as the system says them (Translator.system).
SYSTEM_ERRORS: dict[int, tuple[str, str]] = {
    errno.ENOENT: ("oserror_enoent", "No such file or directory"),
    errno.EACCES: ("oserror_eacces", "Permission denied"),
    errno.EISDIR: ("oserror_eisdir", "Is a directory"),
    errno.ENOSPC: ("oserror_enospc", "No space left on device"),
    errno.EROFS: ("oserror_erofs", "Read-only file system"),
    errno.EDQUOT: ("oserror_edquot", "Disk quota exceeded"),
    errno.EPERM: ("oserror_eperm", "Operation not permitted"),
    errno.EADDRINUSE: ("oserror_eaddrinuse", "Address already in use"),
    errno.ECONNREFUSED: ("oserror_econnrefused", "Connection refused"),
    errno.ECONNRESET: ("oserror_econnreset", "Connection reset by peer"),
    errno.ETIMEDOUT: ("oserror_etimedout", "Connection timed out"),
    errno.ENETUNREACH: ("oserror_enetunreach", "Network is unreachable"),
    errno.EHOSTUNREACH: ("oserror_ehostunreach", "No route to host"),
    errno.EPIPE: ("oserror_epipe", "Broken pipe"),
    errno.ECONNABORTED: ("oserror_econnaborted", "Software caused connection abort"),
    errno.ENOTCONN: ("oserror_enotconn", "Transport endpoint is not connected"),
    errno.ENETDOWN: ("oserror_enetdown", "Network is down"),
    errno.ENETRESET: ("oserror_enetreset", "Network dropped connection on reset"),
    errno.EHOSTDOWN: ("oserror_ehostdown", "Host is down"),
}
_EN.update(SYSTEM_ERRORS.values())
_EN.update(AUDIT_WORDS)
_EN.update(FAULT_WORDS)
_EN.update(WIRE_WORDS)
_EN.update(PAKE_WORDS)
_EN.update(RULE_WORDS)
_EN.update(ILLEGAL_WORDS)
_EN.update(
    {  # A card in a sentence, by its rank (ace to king): why the rules refused a move says it so
        # in French and Italian (``la dame de pique``); English keeps the notation (``QS``).
        "card_the_1": "the ace of {suit}",
        **{f"card_the_{rank}": f"the {rank} of {{suit}}" for rank in range(2, 11)},
        "card_the_11": "the jack of {suit}",
        "card_the_12": "the queen of {suit}",
        "card_the_13": "the king of {suit}",
        # The refusals that name seats, said with the players' names where the interface has
        # them (``ui.problems.illegal_text``; English keeps the numbers, as the rules wrote them).
        "illegal_named_turn": "it is {who}'s turn, not {name}'s",
        "illegal_named_in_hand": "in {name}'s hand",
    }
)
_EN.update(BOT_WORDS)

# Messages that change with a number: (singular, plural) in English; each language has
# its own forms (French says "1 manche", "0 manche"; Italian "0 mani").
_EN_PLURAL: dict[str, tuple[str, str]] = {
    "net_standings": (
        "Standings after {hands} hand, when it stopped: {scores}",
        "Standings after {hands} hands, when it stopped: {scores}",
    ),
    "net_continued": (
        "{name} left the match ({reason}). The hand in progress does not count; the others play on"
        " without them from a fresh deal. Totals after {hands} hand: {scores}.",
        "{name} left the match ({reason}). The hand in progress does not count; the others play on"
        " without them from a fresh deal. Totals after {hands} hands: {scores}.",
    ),
    "net_continued_ends": (
        "{name} left the match ({reason}). The hand in progress does not count, and too few players"
        " remain to go on: the match ends on the totals after {hands} hand: {scores}.",
        "{name} left the match ({reason}). The hand in progress does not count, and too few players"
        " remain to go on: the match ends on the totals after {hands} hands: {scores}.",
    ),
}

_EN_PLURAL.update(
    {
        "hist_won": ("{names} won", "{names} won"),
        "hist_won_with": ("{names} won with {score}", "{names} won with {score} each"),
        "hist_verifying": (
            "Verifying {n} game (a full audit of each; --no-verify skips it)...",
            "Verifying {n} games (a full audit of each; --no-verify skips it)...",
        ),
        "replay_wrote": ("Wrote {path}: {n} hand.", "Wrote {path}: {n} hands."),
        "hist_older": (
            "({n} older game not shown: see more with -n {more})",
            "({n} older games not shown: see more with -n {more})",
        ),
    }
)
_EN_PLURAL.update(
    {  # p2pcards replay (the English says "cards" whatever the number, as it always did)
        "rp_stock": (
            "Stock ({n} cards, the top first): {cards}",
            "Stock ({n} cards, the top first): {cards}",
        ),
        "rp_departure": (
            '{name} left after {n} hand ({how}: "{reason}"), during hand {hand}: that hand is void,'
            " and {rest}; {name} keeps a total of {total}.",
            '{name} left after {n} hands ({how}: "{reason}"), during hand {hand}: that hand is void,'
            " and {rest}; {name} keeps a total of {total}.",
        ),
        "rp_nines_deal": (
            "{dealer} deals {n} cards each; the up card is {card}",
            "{dealer} deals {n} cards each; the up card is {card}",
        ),
        "rp_recycle": (
            "The stock is empty: the discards under {card} become the new stock ({n} cards)",
            "The stock is empty: the discards under {card} become the new stock ({n} cards)",
        ),
        "rp_neuf_deal": (
            "{dealer} deals {n} cards to each player and to the dummy; ",
            "{dealer} deals {n} cards to each player and to the dummy; ",
        ),
        "rph_dummy": ("Dummy ({n} cards)", "Dummy ({n} cards)"),
        "rph_stock_cards": ("{n} cards", "{n} cards"),
        "rph_cards": ("{n} card", "{n} cards"),
        "rph_tricks": ("{n} trick", "{n} tricks"),
    }
)
_EN_PLURAL["join_wrong_code"] = (
    "The host says that code is wrong: check it with the host and type it again ({left} try left).",
    "The host says that code is wrong: check it with the host and type it again ({left} tries left).",
)
_EN_PLURAL["join_no_host_code"] = (
    "No host on this network has the code {code}: check it with the host and type it again "
    "({left} try left).",
    "No host on this network has the code {code}: check it with the host and type it again "
    "({left} tries left).",
)
_EN_PLURAL["record_partial"] = (
    "Record of {n} finished hand written to {path} (the hand in progress is left out).",
    "Record of {n} finished hands written to {path} (the hand in progress is left out).",
)
_EN_PLURAL["players_games"] = ("{n} game, {first} to {last}", "{n} games, {first} to {last}")
_EN_PLURAL["players_games_day"] = ("{n} game, {first}", "{n} games, {first}")  # (all on one day)
_EN_PLURAL["sim_summary"] = (  # (its English has one form, "1 matches" too, as it always printed)
    "{game}: {n} matches, {players} players, seed {seed}, rules: {rules}; "
    "shared wins count 1/k to each winner",
    "{game}: {n} matches, {players} players, seed {seed}, rules: {rules}; "
    "shared wins count 1/k to each winner",
)
_EN_PLURAL["click_did_you_mean"] = ("Did you mean {options}?", "(Did you mean one of: {options}?)")
_EN_PLURAL["click_extra_arguments"] = (
    "Got unexpected extra argument ({arguments})",
    "Got unexpected extra arguments ({arguments})",
)
_EN_PLURAL.update(AUDIT_PLURAL)
_EN_PLURAL.update(RULE_PLURAL)


_GAME_WORDS: list[str] = []
"""The games whose own words (the ``words`` part of a game, such as
``p2pcards/games/neuf/words.py``) are in ``_EN`` already."""


def _english(key: str) -> str:
    """The English of ``key``; each game's own words are read the first time one is needed
    (so a command that shows no game loads none)."""
    text = _EN.get(key)
    if text is None and not _GAME_WORDS:
        _load_game_words()
        text = _EN.get(key)
    if text is None:
        raise KeyError(key)
    return text


def _load_game_words() -> None:
    for name in names():
        if name not in _GAME_WORDS:
            _GAME_WORDS.append(name)
            words = game(name).parts.words
            if words is not None:
                _EN.update(load(words))


def template() -> list[Message]:
    """Every message of the catalogs, in the order of this module, then each game's own:
    the ``.pot`` file's content."""
    _load_game_words()
    out = [Message(key, text) for key, text in _EN.items()]
    out += [Message(key, one, many, ["", ""]) for key, (one, many) in _EN_PLURAL.items()]
    return out


def catalog(lang: str) -> gettext.NullTranslations:
    """The translations of ``lang`` (English: none, the source strings are the English)."""
    if lang == DEFAULT_LANG:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[lang], fallback=True)


_SYSTEM_TEXTS = {os.strerror(number): number for number in SYSTEM_ERRORS} | {
    english: number for number, (_, english) in SYSTEM_ERRORS.items()
}
"""The errno of each text of :data:`SYSTEM_ERRORS` as this system and the catalog say it."""

_NAME_FIELDS = ("name", "names", "who", "ref_name", "peer")
"""Fields that hold players' names, before which French elides (``d'Alice``, ``qu'Ana``)."""
_VOWELS = frozenset("AEIOUaeiouÀÂÄÉÈÊËÎÏÔÖÙÛÜàâäéèêëîïôöùûüŒœ")


class Translator:
    """Says a message in one language, by key; a message without a translation is said in English."""

    __slots__ = ("_catalog", "lang")

    def __init__(self, lang: str = DEFAULT_LANG) -> None:
        if lang not in LANGS:
            raise ValueError(f"unknown language {lang!r}; choose from {', '.join(LANGS)}")
        self.lang = lang
        self._catalog = catalog(lang)

    def __call__(self, key: str, /, **values: object) -> str:
        text = self._catalog.pgettext(key, _english(key))
        if not values:
            return text
        return self._contract(text, values).format(**{name: self.said(v) for name, v in values.items()})

    def _contract(self, text: str, values: dict[str, object]) -> str:
        """French joins ``de`` and ``à`` with a title's article: ``une partie du Neuf``, not
        ``de Le Neuf`` (only for a game's title: a player's name is never changed), and
        elides ``de`` and ``que`` before a name that begins with a vowel: ``le tour d'Alice``.
        Italian says ``ad`` for ``a`` before a name that begins with an a: ``tocca ad Amelie``."""
        if self.lang == "it":
            for field in _NAME_FIELDS:
                value = values.get(field)
                if isinstance(value, str) and value[:1] in ("a", "A", "à", "À"):
                    text = re.sub(rf"\b([Aa]) \{{{field}\}}", rf"\1d {{{field}}}", text)
            return text
        if self.lang != "fr":
            return text
        for field in _NAME_FIELDS:
            value = values.get(field)
            if isinstance(value, str) and value[:1] in _VOWELS:
                for word, elided in (("de", "d'"), ("que", "qu'")):
                    text = text.replace(f"{word} {{{field}}}", f"{elided}{{{field}}}")
        game = values.get("game")
        if not isinstance(game, str) or not game.startswith("Le "):
            return text
        rest = game[3:].replace("{", "{{").replace("}", "}}")
        return text.replace("de {game}", f"du {rest}").replace("à {game}", f"au {rest}")

    def said(self, value: object) -> object:
        """``value`` in this language when it is a notice (or several) or a usage error said
        by its key (a refused rule option, a bot's budget), a number, what the system said or
        what was wrong with a peer's bytes, else as it is."""
        if isinstance(value, UsageError) and value.key:
            return self(value.key, **value.values)
        if isinstance(value, Notice):
            return self(value.key, **value.values)
        if isinstance(value, Notices):
            return value.sep.join(str(self.said(v)) for v in value.items)
        if isinstance(value, Number):
            return self.number(value)
        if isinstance(value, SystemSaid | OSError):
            return self.system(value)
        if isinstance(value, WireSaid):  # (the templates load with the wire, not before)
            from p2pcards.ui.problems import wire_text

            return wire_text(self, value)
        return value

    def system(self, error: OSError | str) -> str:
        """What the system said of a failure, in this language: an ``OSError`` (or a
        :class:`~p2pcards.say.SystemSaid`, or the text of one, as a transcript's problem
        holds it) by its errno when :data:`SYSTEM_ERRORS` has it, else as the system said it."""
        number = getattr(error, "errno", None)
        said = (error.strerror or str(error)) if isinstance(error, OSError) else str(error)
        if number is None and not isinstance(error, OSError):
            number = _SYSTEM_TEXTS.get(said)
        if self.lang == DEFAULT_LANG or number not in SYSTEM_ERRORS:
            return said
        return self(SYSTEM_ERRORS[number][0])

    def number(self, number: Number) -> str:
        """``number`` as this language writes it: a decimal comma in French and Italian, and
        thousands grouped by a narrow space (French) or a point (Italian)."""
        text = str(number)
        if self.lang == "fr":
            return text.replace(",", "\u202f").replace(".", ",")
        if self.lang == "it":
            return text.replace(",", "\0").replace(".", ",").replace("\0", ".")
        return text

    def problem(self, text: str, names: Sequence[str] = ()) -> str:
        """A problem the program said in English (a fault, or why the node stopped) in this
        language; a peer's own words as they are (see :mod:`p2pcards.ui.problems`). ``names``:
        the players of the table it happened at, by seat, to name a seat a move was refused for."""
        from p2pcards.ui.problems import problem_text

        return problem_text(self, text, names)

    def reason(self, text: str) -> str:
        """Why a player left (signed): the program's own reasons in this language, a person's
        own words as they are (see :func:`p2pcards.ui.problems.leave_reason`)."""
        from p2pcards.ui.problems import leave_reason

        return leave_reason(self, text)

    def person(self, name: str) -> str:
        """``name`` as this reader says it: ``play``'s name for the person at the terminal, the
        word for "you" in any language (``vous``, ``tu``), is said in this one."""
        return self("you") if name.strip().casefold() in you_words() else name

    def player(self, name: str) -> str:
        """``name`` in a report's sentence, in the third person: ``play``'s word for "you", in
        any language, is said as the player so named (``"you" left``)."""
        return self("audit_you_player", you=self("you")) if name.strip().casefold() in you_words() else name

    def text(self, key: str, english: str) -> str:
        """A message that is not in this module (the command line's help), by key and English."""
        return self._catalog.pgettext(key, english)

    def n(self, key: str, count: int, /, **values: object) -> str:
        """A message whose words follow ``count`` (its plural forms): ``1 hand``, ``2 hands``."""
        one, many = _EN_PLURAL[key]
        return self._contract(self._catalog.npgettext(key, one, many, count), values).format(**values)

    def rule_name(self, rule: str) -> str:
        """How a refusal names a rule of the engine (its id in English; words elsewhere)."""
        key = f"rulename_{rule}"
        return self(key) if self.has(key) else rule

    def has(self, key: str) -> bool:
        if key not in _EN and key not in _EN_PLURAL and not _GAME_WORDS:
            _load_game_words()
        return key in _EN or key in _EN_PLURAL

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


@functools.cache
def you_words() -> frozenset[str]:
    """The word for "you" in every language (casefolded): ``play``'s default name for the
    person at the terminal, in the language they played in."""
    return frozenset(Translator(lang)("you").casefold() for lang in LANGS)
