"""Cryptography of the mental-poker layer: pure functions, no I/O except the identity key file.

* :mod:`~p2pcards.crypto.group` - P-256 elements (x-coordinates) and scalar multiplication.
* :mod:`~p2pcards.crypto.encoding` - card index to a hashed curve point and back.
* :mod:`~p2pcards.crypto.kdf` - commitments and labelled derivation of scalars and permutations.
* :mod:`~p2pcards.crypto.poker` - shuffle, lock and open passes, and their verification.
* :mod:`~p2pcards.crypto.identity` - Ed25519 identities, signatures and key files.

The normative byte layouts and test vectors are in ``protocol.md`` ("Cryptography").
"""
