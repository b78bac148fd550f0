"""The game adapters: how each game plays on the generic table (the only part of
the protocol layer that knows a particular game)."""
