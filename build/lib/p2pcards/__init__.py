"""p2pcards."""
