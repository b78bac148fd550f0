"""What is wrong with bytes a peer sent (the text of a :class:`~p2pcards.protocol.wire.WireError`),
as templates.

Each text is made from a template of this module with ``str.format`` fields. It lands inside
a problem (``malformed frame: {error}``, :mod:`p2pcards.protocol.faults`) that transcripts,
logs and ``audit --json`` hold in English, so a template never changes; the interface reads
a text back against every template and says it in the player's language under the
template's key (:data:`WIRE_WORDS`; :mod:`p2pcards.ui.problems`). A text no template made (a
peer's own words) is shown as it is.

The fields: ``size``, ``limit``, ``most``, ``count`` and ``seat`` are numbers (``low`` and
``high`` too, below zero as well); ``frame`` is a frame's kind as the wire names it
(``abort``), ``type`` and ``expected`` a body's type (``turn``) and ``where`` a field of a body as the schema
names it (``turn.card``, ``join.roster[2][0]``); ``value`` a peer's value, ``missing`` and
``extra`` lists of field names, ``theirs`` and ``ours`` versions, and ``cause`` what the
msgpack library said, each shown as it is.
"""

from __future__ import annotations

# -- bounded decoding of untrusted bytes (p2pcards.protocol.wire)

EXTENSION_TYPES = "extension types are not allowed"
MAP_KEY_NOT_TEXT = "a map key that is not text"
TEXT_NOT_UTF8 = "text that is not valid UTF-8"
TOO_BIG = "{size} bytes exceeds the limit of {limit}"
TRUNCATED = "truncated msgpack"
UNDECODABLE = "undecodable msgpack ({cause})"
TRAILING = "trailing bytes after the msgpack object"
FRAME_TOO_BIG = "a frame of more than {limit} bytes"
NESTED_TOO_DEEP = "a frame nested too deeply"
UNDECODABLE_STREAM = "undecodable stream ({cause})"

# -- records

RECORD_RAW = "a record is raw bytes with a 64-byte signature"
RECORD_MAP = "a record is a map with keys v, game, step, seat, prev, type, body"
VERSION_MISMATCH = "protocol version mismatch: peer speaks {theirs}, this node {ours}"
RECORD_GAME = "record game id must be 16 bytes"
RECORD_STEP = "record step must be an integer in 0..2^32-1"
RECORD_SEAT = "record seat must be an integer in 0..5"
RECORD_PREV = "record prev must be 32 bytes"

# -- the frames of a match

FRAME_NOT_MAP = "a frame must be a map"
RECORD_FRAME_KEYS = "a record frame has exactly the keys v, kind, raw, sig"
EVIDENCE_KEYS = "an evidence frame has exactly the keys v, kind, records"
EVIDENCE_SIZE = "evidence holds 1..{most} records"
EVIDENCE_ITEM = "each evidence item is [raw, sig]"
ABORT_KEYS = "an abort frame has exactly the keys v, kind, step, reason"
ABORT_REASON = "an abort reason is text of at most {most} characters"
NEED_KEYS = "a need frame has exactly the keys v, kind, step, have, last"
NEED_HAVE = "the have list of a need frame holds at most 6 seats 0..5"
NEED_LAST = "the last digest of a need frame is 32 bytes"
RELAY_KEYS = "a relay frame has exactly the keys v, kind, from, to, frame"
RELAY_SEATS = "a relay frame names two different seats 0..5"
RELAY_FRAME = "a relay frame carries a frame as bytes"
RELAYED_RELAY = "a relayed frame cannot be a relay frame"
UNKNOWN_KIND = "unknown frame kind {value}"
FRAME_STEP = "the step of a {frame} frame must be an integer in 0..2^32-1"

# -- the lobby (p2pcards.protocol.lobby) and the links between seats (p2pcards.net.session)

LOBBY_NOT_MAP = "a lobby frame must be a map"
MATCH_TOO_EARLY = "a message of the match ({frame}) came before the match started"
LOBBY_KEYS = "a lobby frame has exactly the keys v, kind, body"
NOT_LINK_HELLO = "not a link hello for this game"
SEAT_NOT_ITS = "claims seat {seat}, which it may not take"
KEY_NOT_PROVEN = "could not prove it holds seat {seat}'s key"
EXPECTED_TYPE = "expected {expected}, got {type}"

# -- the schema of a record's or a lobby message's body (p2pcards.protocol.messages, .lobby)

UNKNOWN_RECORD_TYPE = "unknown record type {value}"
UNKNOWN_LOBBY_TYPE = "unknown lobby message type {value}"
BODY_NOT_MAP = "{type} body must be a map"
BODY_FIELDS = "{type} body fields wrong (missing {missing}, unexpected {extra})"
SCHEMA_INTEGER = "{where} must be an integer in {low}..{high}"
SCHEMA_BYTES = "{where} must be {size} bytes"
SCHEMA_BOOL = "{where} must be true or false"
SCHEMA_SCALAR = "{where} must be a 32-byte scalar"
SCHEMA_ZERO = "{where} must not be zero"
SCHEMA_TEXT = "{where} must be text of at most {most} characters"
SCHEMA_UNSAFE = "{where} must not contain control, bidi or invisible characters"
SCHEMA_BLANK = "{where} must not be blank"
SCHEMA_SUIT = "{where} must be one of S, H, D, C"
SCHEMA_LIST = "{where} must be a list of {low}..{high} items"
SCHEMA_ITEMS = "{where} must be a list of {count} items"
SCHEMA_RULE_VALUE = "{where} must be a boolean, an integer, text, nil, or a short list of those"
SCHEMA_RULES = "{where} must be a map of at most {most} options"
SCHEMA_RULE_KEYS = "{where} keys must be short text"
SCHEMA_PASS_KIND = "{where} must be shuffle or lock"
SCHEMA_IP = "{where} must be an IP address"
SCHEMA_SEAT = "{where} must be a list of 4 or 5 items"
SCHEMA_SEAT_MORE = "{where}[4] must be a map of 'also' and/or 'seen'"

# -- a seat's journal (p2pcards.protocol.journal)

NOT_RECORD_ENTRY = "not a record entry"

WIRE_WORDS: dict[str, str] = {
    f"wire_{name.lower()}": text for name, text in dict(globals()).items() if name.isupper()
}
"""Every template above by its key (``wire_`` and the constant's name): the English the
interface's catalogs translate."""
