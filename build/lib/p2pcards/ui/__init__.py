"""Terminal interface: strings (i18n), rendering, input parsing, display and the local game loop.

Rendering (``render``, ``neuf_render``), input parsing and the human seat
(``prompt``, ``neuf_prompt``) and the running commentary (``display``,
``neuf_display``) know nothing about who shuffles or where the other seats'
moves come from. ``screen`` bundles them per game, chosen by the game's name,
so that the networked table view (``netgame``) serves every game unchanged;
``local`` and ``neuf_local`` are the in-process game loops that plug bots and
one human together.
"""
