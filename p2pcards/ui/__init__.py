"""Terminal interface: strings (i18n), rendering, input parsing, display and the local game loop.

Rendering (``render``), input parsing and the human seat (``prompt``) and the
running commentary (``display``) know nothing about who shuffles or where the
other seats' moves come from, so a networked table can reuse them unchanged;
``local`` is the in-process game loop that plugs bots and one human together.
"""
