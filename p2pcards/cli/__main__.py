"""``python -m p2pcards.cli``: the ``p2pcards`` command."""

from p2pcards.cli import main

main()
