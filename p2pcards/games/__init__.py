"""The games: one folder each (``nines``, ``neuf``), and what every game provides (``base``)."""
