"""Le Neuf, a trick-taking game for exactly 3 players with a dummy hand and private looks.

Everything that is this game lives in this folder: the rules engine and its
registry entry (``rules``), the bots (``bots``), its steps on the protocol's
table (``adapter``), its record and replay (``record``, ``replay``), its
terminal (``screen``, ``display``, ``render``, ``prompt``) and its offline
game (``local``). The code around it reaches it through :data:`GAME`
(:class:`p2pcards.games.base.Game`).
"""

from p2pcards.games.neuf.rules import GAME

__all__ = ["GAME"]
