"""One error hierarchy, split by whose fault an error is.

* :class:`UsageError` - the local user or caller got something wrong (a typo at a
  prompt, a bad option, misuse of an API). Nobody else is to blame.
* :class:`IllegalAction` - a move breaks a rule of the game. It names the seat
  that tried it and the rule, so a replica can blame a peer with it.
* :class:`RemoteProtocolError` - a peer sent something malformed, dishonest or
  out of turn. It names the peer; after it, that peer is not trusted again.
* :class:`LocalProtocolError` - this node's own code asked the protocol for
  something impossible (a bug here, not an attack).
* :class:`TranscriptError` - a transcript file is unreadable or inconsistent.
"""

from __future__ import annotations

from collections.abc import Mapping


class P2PCardsError(Exception):
    """Base of every error p2pcards raises on purpose."""


class UsageError(P2PCardsError):
    """The local user or caller asked for something invalid. ``key`` and ``values``, when
    given, name the sentence among the English of the layer that raised it (the games' rule
    words, the bots' words), so that the interface can say it in the player's language; the
    message is its English."""

    def __init__(self, message: str, key: str = "", values: Mapping[str, object] | None = None) -> None:
        self.key = key
        self.values = dict(values or {})
        super().__init__(message)


class CardParseError(UsageError, ValueError):
    """Text that is not a card or a suit in any notation of ``docs/rules-nines.md``."""


class KeyFileError(UsageError):
    """An identity key file that cannot be used: ``kind`` says why (``missing``,
    ``unreadable``, ``not-a-file``, ``too-open``, ``corrupt``), ``detail`` what the
    system said or the file's mode, so that the interface can say it in any language."""

    def __init__(self, kind: str, path: str, message: str, detail: str = "") -> None:
        self.kind = kind
        self.path = path
        self.detail = detail
        super().__init__(message)


class RuleOptionError(UsageError, ValueError):
    """An unknown, out-of-range or inconsistent rule option (said by a key of the games' rule
    words, ``games/rule_words.py``)."""


class IllegalAction(P2PCardsError):
    """A move that breaks a rule; ``seat`` tried it, ``rule`` names the rule. ``detail`` says
    how in English; ``key`` and ``values``, when given, name it among the games' words
    (``games/rule_words.ILLEGAL_WORDS``), so that the interface can say it in any language."""

    def __init__(
        self,
        seat: int | None,
        rule: str,
        detail: str,
        key: str = "",
        values: Mapping[str, object] | None = None,
    ) -> None:
        self.seat = seat
        self.rule = rule
        self.detail = detail
        self.key = key
        self.values = dict(values or {})
        who = "table" if seat is None else f"seat {seat}"
        super().__init__(f"{who}: {detail} [rule: {rule}]")


class RemoteProtocolError(P2PCardsError):
    """A peer misbehaved; ``peer`` is its seat (or None before it has one)."""

    def __init__(self, peer: int | None, problem: str, *, record: int | None = None) -> None:
        self.peer = peer
        self.problem = problem
        self.record = record
        who = "unknown peer" if peer is None else f"seat {peer}"
        where = "" if record is None else f" (record {record})"
        super().__init__(f"{who}: {problem}{where}")


class LocalProtocolError(P2PCardsError):
    """This node used the protocol state machine wrongly (a local bug)."""


class TranscriptError(P2PCardsError):
    """A transcript file that cannot be read or parsed at all."""


class JoinRefused(UsageError):
    """The host refused to seat us (wrong code, table full, name taken...)."""

    def __init__(self, reason: str, message: str) -> None:
        self.reason = reason
        super().__init__(message)


class PeerUnreachable(P2PCardsError):
    """A connection to a host or peer could not be made or was lost."""
