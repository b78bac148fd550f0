"""High Card, a tiny game that lives only in the tests: the proof that a game is one folder.

Each seat is dealt two cards; from the dealer's left, each plays one of them face
up; the highest card (by rank, Ace high, then by suit: clubs, diamonds, hearts,
spades) wins the hand's point. A match is ``hands`` hands (3 by default); the
most points wins. It registers with :func:`p2pcards.games.base.register` and
nothing outside this folder names it.
"""

from third_game.rules import GAME

__all__ = ["GAME"]
