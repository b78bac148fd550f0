"""The network layer: trio TCP links, the full mesh, timeouts and persistence."""
