"""``python -m p2pcards`` runs the command line."""

from p2pcards.cli import main

main()
