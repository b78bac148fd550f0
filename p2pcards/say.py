"""How the layers below the interface say a sentence to a person, in that person's language.

The audit's report and the games' descriptions of their rules write text for people
without knowing the interface: each text method takes a :class:`Say`, which says a
message by key (``say("audit_winner", names=...)``) and, with :meth:`Say.n`, a message
whose words follow a number. The English of those messages lives beside the code that
says them (a plain dictionary by key), and :class:`English` says it: the default, so a
log, a test or the JSON record reads the same English as ever. The interface passes its
:class:`~p2pcards.ui.i18n.Translator` instead, whose catalogs hold the French and the
Italian under the same keys.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol


class Number:
    """A number written for a person: ``format(value, spec)`` in English (``2.5``,
    ``1,755``); a :class:`~p2pcards.ui.i18n.Translator` writes it with its language's
    decimal comma and thousands separator (``2,5`` and ``1 755`` in French, ``1.755`` in
    Italian), so that a figure never reads as another number."""

    __slots__ = ("spec", "value")

    def __init__(self, value: float, spec: str = "g") -> None:
        self.value = value
        self.spec = spec

    def __str__(self) -> str:
        return format(self.value, self.spec)

    def __repr__(self) -> str:
        return f"Number({self.value!r}, {self.spec!r})"


class SystemSaid(str):
    """What the system said of a failure (an ``OSError``'s ``strerror``, in English), with its
    ``errno``: a :class:`~p2pcards.ui.i18n.Translator` says the common ones in its language
    (``No such file or directory``, ``Connection refused``), by that number."""

    errno: int | None

    def __new__(cls, text: str, errno: int | None = None) -> SystemSaid:
        self = super().__new__(cls, text)
        self.errno = errno
        return self


class WireSaid(str):
    """What was wrong with the bytes a peer sent (the text of a
    :class:`~p2pcards.protocol.wire.WireError`, in English, made from a template of
    :mod:`p2pcards.protocol.wire_words`, or of a SPAKE2 message it could not use, from
    :mod:`p2pcards.crypto.pake_words`): a :class:`~p2pcards.ui.i18n.Translator` says it in
    its language by that template, and any other text as it is."""


def system_said(error: OSError) -> SystemSaid:
    """What the system said of ``error``, to be said in the person's language."""
    return SystemSaid(error.strerror or str(error), error.errno)


class Say(Protocol):
    """Says a message by key, its ``{fields}`` filled with ``values``."""

    def __call__(self, key: str, /, **values: object) -> str: ...

    def n(self, key: str, count: int, /, **values: object) -> str:
        """A message whose words follow ``count``: ``1 hand``, ``2 hands``."""
        ...

    def problem(self, text: str, names: Sequence[str] = ()) -> str:
        """A problem text (a fault the protocol found, in English) in this language; ``names``
        (the players of the table it happened at, by seat) name a seat a move was refused for."""
        ...

    def person(self, name: str) -> str:
        """A player's name as said here: ``play`` names the person at the terminal by the word
        for "you" in their language, which a reader of another language reads in theirs."""
        ...

    def player(self, name: str) -> str:
        """A player's name as a report's sentences say it, in the third person: ``play``'s
        word for "you", in any language, is said as the player so named."""
        ...

    def number(self, number: Number) -> str:
        """A number as this language writes it (``2.5`` in English, ``2,5`` in French)."""
        ...

    def reason(self, text: str) -> str:
        """Why a player left, as it signed it: in this language when the program wrote it
        (``quit``, ``interrupted``), else as signed (the leaver's own words)."""
        ...


class English:
    """Says messages in English, from dictionaries by key (``plural``: singular and plural)."""

    __slots__ = ("_one", "_plural")

    def __init__(
        self, messages: Mapping[str, str], plural: Mapping[str, tuple[str, str]] | None = None
    ) -> None:
        self._one = messages
        self._plural = plural or {}

    def __call__(self, key: str, /, **values: object) -> str:
        text = self._one[key]
        return text.format(**values) if values else text

    def n(self, key: str, count: int, /, **values: object) -> str:
        one, many = self._plural[key]
        return (one if count == 1 else many).format(**values)

    def problem(self, text: str, names: Sequence[str] = ()) -> str:
        """A problem text as it is: the protocol says it in English already."""
        return text

    def person(self, name: str) -> str:
        """A name as it is (the interface's translator says ``play``'s "you" in English too)."""
        return name

    def player(self, name: str) -> str:
        """A name as it is (the interface's translator says ``play``'s "you" as a third person)."""
        return name

    def number(self, number: Number) -> str:
        """A number as English writes it."""
        return str(number)

    def reason(self, text: str) -> str:
        """A leaver's reason as it is: the program writes its own in English."""
        return text
