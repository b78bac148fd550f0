"""Nines, a Crazy Eights game where the 9s are wild (2 to 6 players, penalty points).

Everything that is this game lives in this folder: the rules engine and its
registry entry (``rules``), the bots (``bots``), its steps on the protocol's
table (``adapter``), its record and replay (``record``, ``replay``) and its
terminal (``screen``, ``display``, ``render``, ``prompt``). The code around it
reaches it through :data:`GAME` (:class:`p2pcards.games.base.Game`).
"""

from p2pcards.games.nines.rules import GAME

__all__ = ["GAME"]
