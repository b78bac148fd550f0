"""Terminal interface: strings (i18n), what every game's screen shares, and the local game loop.

Text layout (``render``), the console and its prompts (``prompt``) and the
screen interface (``screen``) know nothing about a particular game: each
game's screen is in its own folder (``p2pcards/games/nines/screen.py``), chosen
by the game's name, so that the networked table view (``netgame``) and the
local game (``local``) serve every game unchanged.
"""
