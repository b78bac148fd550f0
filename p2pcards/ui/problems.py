"""Why a match stopped, or what an audit found wrong, in the player's language.

The layers below the interface say a problem in English, made from a template with
``str.format`` fields (the node's own in :mod:`p2pcards.net.verdicts`, the protocol's faults
in :mod:`p2pcards.protocol.faults`): the English is what transcripts and logs hold. Here a
text is read back against every template and said again under the template's key, each
field in place and, where a field is itself something said (a seat, a step's kind, another
problem, what was wrong with a peer's bytes), in the language too. A text that matches no
template (a peer signs any words) is shown as it is.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Sequence
from typing import Protocol

from p2pcards.cards import parse_card
from p2pcards.crypto.pake_words import PAKE_WORDS
from p2pcards.errors import CardParseError
from p2pcards.games.rule_words import ILLEGAL_PLACES, ILLEGAL_WORDS, RULE_WORDS
from p2pcards.net import verdicts
from p2pcards.protocol.faults import ERROR_KINDS, TEMPLATES
from p2pcards.protocol.notice import LINK_WORDS, NOTICES
from p2pcards.protocol.wire_words import WIRE_WORDS
from p2pcards.say import SystemSaid


class Translator(Protocol):
    """What this module asks of :class:`p2pcards.ui.i18n.Translator` (which calls it: so it
    is named here, not imported)."""

    lang: str

    def __call__(self, key: str, /, **values: object) -> str: ...

    def has(self, key: str) -> bool: ...

    def suit_name(self, suit: str) -> str: ...

    def join(self, names: list[str]) -> str: ...

    def rule_name(self, name: str) -> str: ...

    def system(self, error: str) -> str: ...

PROBLEM_KEYS = (
    ("NOBODY_ANSWERED", "problem_nobody_answered"),
    ("LOST_EVERY_REFUSED", "problem_lost_every_refused"),
    ("LOST_EVERY", "problem_lost_every"),
    ("EVERY_CLOSED", "problem_every_closed"),
    ("HEARD_NOBODY_REFUSED", "problem_heard_nobody_refused"),
    ("HEARD_NOBODY", "problem_heard_nobody"),
    ("STOPPED_BEFORE", "problem_stopped_before"),
    ("SILENT_PLAY", "problem_silent_play"),
    ("SILENT_ANSWER", "problem_silent_answer"),
    ("RELAYED_LATE", "problem_relayed_late"),
    ("SLOW_ANSWER", "problem_slow_answer"),
    ("RELAYED_SILENT", "problem_relayed_silent"),
    ("RELAYED_DISPUTE", "problem_relayed_dispute"),
    ("STOPPED_CLAIM_RELAYED", "problem_stopped_claim_relayed"),
    ("STOPPED_CLAIM", "problem_stopped_claim"),
    ("STOPPED_READING", "problem_stopped_reading"),
    ("READ_SLOWLY", "problem_read_slowly"),
    ("RELAY_IN_NAME", "problem_relay_in_name"),
    ("GAVE_TO_CARRY", "problem_gave_to_carry"),
    ("CARRIED_MALFORMED", "problem_carried_malformed"),
    ("MALFORMED_TO_CARRY", "problem_malformed_to_carry"),
    ("WENT_ON_RELAYED", "problem_went_on_relayed"),
    ("NOT_FOLLOWED", "problem_not_followed"),
)
"""The node's own words for a match that stopped for lack of connections or answers
(templates of ``net.verdicts``), and their messages in the catalogs."""

_SEAT = re.compile(r"\(seat (\d+)\)")
_NUMBERS = frozenset(
    {"step", "last", "steps", "sent", "in_step", "seat", "origin", "ref", "count", "hands", "shown", "before"}
    | {"round", "layer", "item", "trick", "seconds", "allowance", "size", "limit", "most"}
    | {"offset", "record", "first", "start", "end", "pairs", "held"}
)
"""Fields that hold a number: read as digits only, so that a text ending in another's words
(``replayed its record for step 4 (next hand)``) is read as the template that adds them."""
_NUMBER = r"\d+(?:\.\d+)?(?:e[+-]\d+)?"
_FORMS = {"where": r"\S+", "low": r"-?\d+", "high": r"-?\d+"}
"""Fields of a schema's words (``wire_words.SCHEMA_INTEGER``): a field of a body as the schema
names it (``turn.card``, one word), and the bounds of a range, below zero as well; so that
``record step must be an integer in 0..2^32-1`` is read as its own template alone."""
_POS = r"\(\d+, \d+\)|\d+"
"""A deal position: (round, index), or an index alone."""
_NESTED = frozenset({"problem", "why", "reason", "damage"})
"""Fields that carry another problem text, said in the language in turn (``damage``: what is
wrong with a transcript's structure, a template of :mod:`p2pcards.protocol.faults` too)."""
_BLAMED = re.compile(r"seat (\d+)|seats ((?:\d+, )*\d+ and \d+)")
"""The seats some problems not listed blame (``faults.UNLISTED_BLAME``)."""
_WIRE = frozenset({"error"})
"""Fields that carry an error's own words, such as what was wrong with a peer's bytes (the
text of a ``WireError``: :mod:`p2pcards.protocol.wire_words`)."""


def template_regex(template: str) -> re.Pattern[str]:
    """``template`` (``str.format`` fields) as a pattern that gives its fields back (a field
    named twice must read the same both times)."""
    return _regex(template, ())


@functools.cache
def _regex(template: str, forms: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    """:func:`template_regex`, each field of ``forms`` read in its own form."""
    own = dict(forms)
    parts = re.split(r"\{(\w+)\}", template)
    seen: set[str] = set()
    out = []
    for k, part in enumerate(parts):
        if k % 2 == 0:
            out.append(re.escape(part))
        elif part in seen:
            out.append(f"(?P={part})")
        else:
            seen.add(part)
            form = own.get(part) or (
                _NUMBER if part in _NUMBERS else _POS if part == "pos" else _FORMS.get(part, ".+?")
            )
            out.append(f"(?P<{part}>{form})")
    return re.compile("".join(out), re.DOTALL)


@functools.cache
def _templates() -> tuple[tuple[re.Pattern[str], str], ...]:
    """Every template's pattern and key: the node's, then the protocol's."""

    net = [(template_regex(getattr(verdicts, name)), key) for name, key in PROBLEM_KEYS]
    return (*net, *((template_regex(text), key) for key, text in TEMPLATES.items()))


@functools.cache
def _wire_templates() -> tuple[tuple[re.Pattern[str], str], ...]:
    """The pattern and key of every text a ``WireError`` is made from, and of what is wrong
    with a SPAKE2 message a peer sent (``BadPakeMessage``)."""
    return tuple((template_regex(text), key) for key, text in {**WIRE_WORDS, **PAKE_WORDS}.items())


def wire_text(tr: Translator, error: str) -> str:
    """What was wrong with a peer's bytes (``error``, the text of a ``WireError``) in the
    language of ``tr`` when a template of :mod:`p2pcards.protocol.wire_words` made it, each
    field as it is (a number, a peer's value); any other text (a schema's own words) as it is."""
    for pattern, key in _wire_templates():
        found = pattern.fullmatch(error)
        if found is not None:
            return tr(key, **found.groupdict())
    return error


@functools.cache
def _rule_templates() -> tuple[tuple[re.Pattern[str], str], ...]:
    """The pattern and key of every text a refused rule option is made from (a rule option
    out of bounds, a table of a number of players the game cannot seat: ``rule_words``)."""
    refusals = {k: v for k, v in RULE_WORDS.items() if k.startswith(("rule_err_", "rules_players_"))}
    return tuple((template_regex(text), key) for key, text in refusals.items())


_REPR = re.compile(r"([A-Z]\w*)\((.*)\)", re.DOTALL)
"""The ``repr`` of an error: its class's name, then its arguments."""


def error_text(tr: Translator, error: str) -> str:
    """An error's own words (a problem's ``error`` field) in the language of ``tr`` where the
    program made them: what was wrong with a peer's bytes, a rule option refused, or the
    ``repr`` of one of the program's own errors (:data:`~p2pcards.protocol.faults.ERROR_KINDS`:
    its kind in words, its text said in turn, or quoted as the program's English where no
    template made it); any other text as it is."""
    said = wire_text(tr, error)
    if said != error:
        return said
    for pattern, key in _rule_templates():
        found = pattern.fullmatch(error)
        if found is not None:
            return tr(key, **found.groupdict())
    found = _REPR.fullmatch(error)
    if found is not None and found.group(1) in ERROR_KINDS:
        try:
            detail = ast.literal_eval(found.group(2))
        except (ValueError, SyntaxError):
            return error
        if isinstance(detail, str):
            said = problem_text(tr, detail)
            if said == detail:
                said = error_text(tr, detail)
            if said == detail and tr.lang != "en":  # (no template made it: the program's English, quoted)
                said = tr("fault_error_words", text=detail)
            return tr(ERROR_KINDS[found.group(1)][0], detail=said)
    return error


_CARD = r"(?:10|[2-9AJQK])[SHDC]"
_ILLEGAL_FORMS = (
    ("card", _CARD),
    ("top", _CARD),
    ("other", _CARD),
    ("cards", rf"{_CARD}(?:, {_CARD})*"),
    ("suit", "[SHDC]"),
    ("led", "[SHDC]"),
    ("turn", r"\d+"),
    ("seat", r"\d+"),
    ("n", r"\d+"),
    ("held", r"\d+"),
    ("round", r"\d+"),
    ("trick", r"\d+"),
    ("seats", r"\[\d+(?:, \d+)*\]"),
    ("phase", "[a-z-]+"),
    ("thing", r"\S+|'[^']*'|\"[^\"]*\""),
)
"""How each field of a rule's refusal reads (``rule_words.ILLEGAL_WORDS``): a card as the
notation writes it (``QS``, ``10H``), a suit by its letter, a seat or a count in figures,
seats as a list (``[0, 1]``), a phase of a turn in one word, what was sent for a card (its
``repr``) one word or a quoted text; ``place`` (where a card is seen) any text."""

_NAMED = {"illegal_turn": "illegal_named_turn", "illegal_in_hand": "illegal_named_in_hand"}
"""The refusals that name seats, and the messages that name them by the players' names
(said where the interface has them)."""


@functools.cache
def _illegal_templates() -> tuple[tuple[re.Pattern[str], str], ...]:
    """The pattern and key of every refusal of the rules (where a card is seen apart: it is
    read as the ``place`` of another; a phase's name is read as a ``phase``)."""
    keys = [k for k in ILLEGAL_WORDS if k not in ILLEGAL_PLACES and not k.startswith("illegal_phase_")]
    return tuple((_regex(ILLEGAL_WORDS[key], _ILLEGAL_FORMS), key) for key in keys)


def card_words(tr: Translator, text: str) -> str:
    """A card written in the notation (``QS``) as the language says it in a sentence (``la
    dame de pique``, ``la donna di picche``); the notation itself in English."""
    if tr.lang == "en":
        return text
    try:
        card = parse_card(text)
    except CardParseError:
        return text
    return tr(f"card_the_{card.rank}", suit=tr.suit_name(card.suit))


def _seat_name(names: Sequence[str], seat: str) -> str | None:
    number = int(seat)
    return names[number] if 0 <= number < len(names) else None


def illegal_text(tr: Translator, detail: str, names: Sequence[str] = ()) -> str:
    """Why the rules refused a move (an ``IllegalAction``'s detail, in English) in the
    language of ``tr``: its cards said in words, its suits by their names, its seats by the
    players' ``names`` when they are given (the seats of the table it was refused at), else
    by their numbers; any other text as it is (and the English as it is, word for word)."""
    if tr.lang == "en":
        return detail
    for pattern, key in _illegal_templates():
        found = pattern.fullmatch(detail)
        if found is not None:
            return _illegal_said(tr, key, found.groupdict(), names)
    for key in ILLEGAL_PLACES:
        found = _regex(ILLEGAL_WORDS[key], _ILLEGAL_FORMS).fullmatch(detail)
        if found is not None:
            return _illegal_said(tr, key, found.groupdict(), names)
    return detail


def _illegal_said(tr: Translator, key: str, values: dict[str, str], names: Sequence[str]) -> str:
    if key in _NAMED and names:
        seats = {name: _seat_name(names, value) for name, value in values.items()}
        if all(seats.values()):
            named = {"turn": "who", "seat": "name"}
            return tr(_NAMED[key], **{named[name]: who for name, who in seats.items()})
    said: dict[str, object] = {}
    for name, value in values.items():
        if name in ("card", "top", "other"):
            said[name] = card_words(tr, value)
        elif name == "cards":
            said[name] = tr.join([card_words(tr, card) for card in value.split(", ")])
        elif name in ("suit", "led"):
            said[name] = tr.suit_name(value)
        elif name == "seats":
            said[name] = tr.join(re.findall(r"\d+", value))
        elif name == "phase":
            said[name] = tr(f"illegal_phase_{value}") if tr.has(f"illegal_phase_{value}") else value
        elif name == "place":
            said[name] = illegal_text(tr, value, names)
        else:
            said[name] = value
    return tr(key, **said)


@functools.cache
def _link_templates() -> tuple[tuple[re.Pattern[str], str], ...]:
    """The pattern and key of every notice that says why a link broke or could not be made
    again, those without a field first (``connection lost (the peer hung up)`` before
    ``connection lost ({why})``)."""
    keys = sorted(LINK_WORDS, key=lambda key: "{" in NOTICES[key])
    return tuple((template_regex(NOTICES[key]), key) for key in keys)


_TLS_SAID = frozenset({"tls_failed", "tls_lost"})
"""The notices whose ``why`` is what TLS said: a reason of OpenSSL's that no notice says is
quoted as its own (``openssl_said``), as a live node says it (``notice.tls_reason``)."""

_ERRNO = re.compile(r"(?:.*: )?\[Errno (\d+)\] .*", re.DOTALL)
"""What the system said, as Python writes an ``OSError`` (``socket connection broken: [Errno
104] Connection reset by peer``): said by its errno."""


def link_text(tr: Translator, text: str) -> str:
    """Why a link broke or could not be made again (its English, as a seat judged gone signs
    it), in the language of ``tr``: the link's notices, what TLS said, what the system said
    (by its errno, or its words), what was wrong with a peer's bytes; any other text as it is."""
    for pattern, key in _link_templates():
        found = pattern.fullmatch(text)
        if found is not None:
            values = found.groupdict()
            fields = {name: link_text(tr, v) if name == "why" else v for name, v in values.items()}
            if key in _TLS_SAID and fields.get("why") == values.get("why") and tr.lang != "en":
                fields["why"] = tr("openssl_said", reason=values["why"])  # (OpenSSL's own words, quoted)
            return tr(key, **fields)
    system = _ERRNO.fullmatch(text)
    if system is not None:
        return tr.system(SystemSaid(text, int(system.group(1))))
    said = wire_text(tr, text)
    return said if said != text else tr.system(text)


def _kind(tr: Translator, kind: str) -> str:
    key = f"audit_kind_{kind.replace('-', '_')}"
    return tr(key) if tr.has(key) else kind


def _field(tr: Translator, name: str, value: str, names: Sequence[str] = ()) -> str:
    """One field read back from a text, said in the language when it is something said
    (``names``: the players of the table, by seat, where the interface has them)."""
    if name == "who":  # "Ann went on without Bob and Cid went on without Dee" (verdicts.WENT_ON_WITHOUT)
        pair = template_regex(verdicts.WENT_ON_WITHOUT)
        pairs = []
        for part in value.split(" and "):
            found = pair.fullmatch(part)
            if found is None:
                return value
            pairs.append(tr("problem_went_on_without", **found.groupdict()))
        return f" {tr('audit_and')} ".join(pairs)
    if name in ("names", "gone"):  # "Ann (seat 0) and Bob": the seat and the "and" in the language
        named = _SEAT.sub(lambda m: f"({tr('audit_seat', seat=m.group(1))})", value)
        return named.replace(" and ", f" {tr('audit_and')} ")
    if name == "blamed":  # "seat 3", "seats 1, 2 and 4"
        found = _BLAMED.fullmatch(value)
        if found is None:
            return value
        if found.group(1) is not None:
            return tr("audit_seat", seat=found.group(1))
        seats = re.split(r", | and ", found.group(2))
        listed = ", ".join(seats[:-1]) + f" {tr('audit_and')} " + seats[-1]
        return tr("fault_seats", seats=listed)
    if name == "kind" or name.endswith("_kind"):
        return _kind(tr, value)
    if name == "kinds":
        return f" {tr('fault_or')} ".join(_kind(tr, k) for k in value.split(" or "))
    if name in _NESTED:
        return problem_text(tr, value, names)
    if name == "detail":  # why the rules refused a move (faults.ILLEGAL_MOVE)
        return illegal_text(tr, value, names)
    if name in _WIRE:
        return error_text(tr, value)
    if name == "said":  # a leaver's reason as quoted (repr): the program's own in the language
        inner = value[1:-1] if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"" else None
        if inner is not None and "\\" not in inner:
            said = leave_reason(tr, inner)
            return said if said != inner else value
        return value
    if name == "rule":
        return tr.rule_name(value)
    return value


def problem_text(tr: Translator, problem: str, names: Sequence[str] = ()) -> str:
    """``problem`` in the language of ``tr`` when a template of the program made it; any
    other text (a peer's own words) as it is. ``names``, when given, are the names of the
    players of the table it happened at, by seat: a seat a move was refused for is named so."""
    for pattern, key in _templates():
        found = pattern.fullmatch(problem)
        if found is not None:
            values = found.groupdict()
            return tr(key, **{name: _field(tr, name, value, names) for name, value in values.items()})
    return leave_reason(tr, problem)  # a seat judged gone at a table too small to go on without it


_GONE = re.compile(r"lost connection and did not come back within (\d+(?:\.\d+)?) s(?: \((.*)\))?")
"""``protocol.sitting.TIMED_OUT`` and what follows it (not imported: the match's modules load
after the lobby)."""


def leave_reason(tr: Translator, reason: str) -> str:
    """Why a player left, in the player's language when it is one of the program's own reasons
    (the leaver signs any text: another one is shown as it is)."""
    known = {
        "quit": "reason_quit",
        verdicts.TURN_TIMED_OUT: "reason_timed_out",
        verdicts.INTERRUPTED: "reason_interrupted",
        verdicts.FINGERPRINT_DIFFERED: "reason_fingerprint",
        verdicts.LEFT_BEHIND: "reason_left_behind",
    }
    if reason in known:
        return tr(known[reason])
    found = template_regex(verdicts.NO_PLAY).fullmatch(reason)
    if found:
        return tr("reason_no_play", **found.groupdict())
    found = _GONE.fullmatch(reason)
    if found:  # (the last attempt's error, if any, as it was)
        detail = found.group(2)  # (said after a semicolon: the reason is itself said in brackets)
        spent = template_regex(verdicts.ALLOWANCE_SPENT).fullmatch(detail or "")
        if spent is not None:  # (the detail of a peer gone at once: away too long over the match)
            detail = tr("reason_away_too_long", **spent.groupdict())
        elif detail:  # why its link broke or failed: what was wrong with what it sent, what TLS or the
            detail = link_text(tr, detail)  # system said ("Connection refused"), no answer...
        return tr("reason_gone", seconds=found.group(1)) + (tr("audit_semicolon") + detail if detail else "")
    return link_text(tr, reason)  # (a link that broke: a seat blamed for it, before the match ran)
