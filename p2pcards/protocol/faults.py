"""The protocol's problem texts: whose fault a failed match is, and why, as templates.

Each fault is an English sentence (its subject, when it has none, is the seat blamed) made
from a template of this module with ``str.format`` fields. The English is what the
transcripts and the tests hold, so it never changes; the interface reads a text back
against every template and says it in the player's language under the template's key
(:data:`FAULTS`; :mod:`p2pcards.ui.i18n` holds the translations under the same keys).

The fields are named for what they carry, so that the interface knows which to say in the
language too: ``seat``/``origin``/``ref`` are seat numbers; ``kind`` and ``*_kind`` a step's
or a record's kind (``kinds``: several, joined by " or "); ``problem``, ``why`` and
``reason`` another problem text; ``names`` players' names, ``name``/``ref_name`` one;
``said`` a peer's quoted words, ``error`` and ``detail`` an error's own words; ``rule``
a rule of the engine; ``damage`` what is wrong with a transcript's own structure (another
template of this module), ``blamed`` the seats some problems blame (``seat 3``, ``seats 1
and 2``); ``field``, ``value``, ``expected`` and ``byte`` what a damaged file holds, as it
is. Any other field is a number or a card, said as it is.
"""

from __future__ import annotations

# -- the step log (p2pcards.protocol.steplog): frames, records, their order and chain

MALFORMED_FRAME = "malformed frame: {error}"
RELAYED_UNCARRIABLE = "relayed a frame from seat {origin}, which it cannot carry to this seat"
RELAY_IN_RELAY = "a relay frame inside a relay frame"
RECORD_NOT_AT_TABLE = "a record by seat {seat}, which is not at this table"
ANOTHER_GAME = "a record of another game"
RECORD_NOT_SIGNED = "a record for step {step} not validly signed by seat {seat}"
RELAY_WHERE_TABLE = "sent a relay frame where a table frame belongs"
RELAYED_RELAY = "relayed a relay frame"
RECORD_NOT_IN_ROSTER = "record by seat {seat}, not in the roster"
RECORD_AFTER_END = "record for step {step} after the match ended"
SENT_NOT_AT_TABLE = "sent a record by seat {seat}, which is not at this table"
SENT_ANOTHER_GAME = "sent a record of another game"
SENT_FORGED_NEXT = (
    "sent a forged record: one for step {step} of a table that may continue this one, in the name"
    " of {name}, who did not sign it"
)
SENT_NOT_AT_NEXT = (
    "sent a record for step {step} of a table that may continue this one, by seat {seat}, which is"
    " not at that table"
)
BAD_SIGNATURE = "bad signature: its record for step {step} is not validly signed by seat {seat}"
FORWARDED_BAD_SIGNATURE = (
    "bad signature: passed on a record for step {step} that is not validly signed by seat {seat}"
)
OWN_LINK = "sent a record authored by seat {seat} on its own link"
REPLAYED = "replayed its record for step {step}"
OUT_OF_ORDER = "sent its records out of order (step {step} after step {last})"
TOO_MANY_AHEAD = "sent too many records ahead of the game"
EQUIVOCATION = "equivocation: two different signed records for step {step}"
NOT_EXPECTED = "sent a record for step {step}, where it was not expected"
FORWARDED_NOT_AT_TABLE = "forwarded a record by seat {seat}, which is not at this table"
PROVES_NOTHING = "forwarded evidence that proves nothing (copies of records already held)"
STOPPED_INSTEAD = "stopped instead of sending its record for step {step} (it said: {said})"
WITHHOLDS = (
    "withholds its records until asked for them ({count} steps): "
    "each came only in its answer to this seat's need"
)
WRONG_RECORD = "sent a {sent_kind} record where a {kind} step expects {kinds}"
SKIPPED = "skipped step {step} (sent step {sent} first)"
BROKEN_CHAIN = "broken chain: its record for step {step} does not follow the records before it here"
RECORD_IN_STEP = "record for step {step} in step {in_step}"

# -- the table (p2pcards.protocol.core): its terms, continuing, the hand's secrets and moves

LEFT_MATCH = "{name} left the match"
GOES_ON_WITHOUT = "the match goes on without {names}"
AHEAD_WRONG_STEP = "carries a pass of the next hand in a {kind} step"
AHEAD_OUT_OF_TURN = "sent a {kind} pass of the next hand out of its turn"
AHEAD_COMMITMENT = "a shuffle pass of the next hand carries a commitment, a lock none"
NEXT_HAND = "{problem} (next hand)"
FILE_OTHER_TERMS = (
    "{name} (seat {seat}) signed other terms (version, game, rules, roster or clock) than"
    " {ref_name} (seat {ref}): the host may have told one of them other"
    " terms, or one of them changed them; a file cannot show which"
)
DISAGREES = "disagrees on the table (version, game, rules, roster or clock)"
OTHER_TERMS = (
    "{name} (seat {seat}) signed other terms (version, game, rules, roster or clock) than the host and"
    " this seat: the host may have told {name} other terms, or {name} changed them; nobody"
    " can tell which"
)
CONTINUES_ANOTHER = "continues another table, or without another seat"
FEWER_STEPS = "says it completed {steps} steps, fewer than it signed"
OTHER_HISTORY = (
    "{name} continues from another history than this node's"
    " (at step {step}): someone showed the two of them different records"
)
HANDS_BY_STEP = "says {hands} hands were scored by step {step}"
FEWER_HANDS = "says {hands} hands were scored, fewer than this node saw"
CUT_SECRET = "cut secret does not match its commitment"
KEYS_BEFORE_LOCK = "sent deal keys with its reveal before its lock pass"
OTHER_SECRET_NEXT = "commits to another secret than its pass of the next hand did"
FIRST_SHUFFLE_AGAIN = "sent its first shuffle pass again, made already"
KEYS_NO_DEAL = "sent deal keys with its reveal where no deal follows"
FIRST_SHUFFLE_SEAT = "sent a first shuffle pass, which only seat 0 makes"
OTHER_SECRET_THIS = "commits to another secret than its pass of this hand did"
LOCK_KEYS_NO_DEAL = "lock pass carries keys where no deal follows"
DISPUTE_FALSE = "{why}: false, every key and pass of the hand verified"
HAND_SECRET = "hand secret does not match its commitment"
WRONG_RESULT = "signed totals or winners other than the scores of the hands played"
ILLEGAL_MOVE = "illegal move: {detail} (rule {rule})"

# -- the card ledger (p2pcards.protocol.ledger): passes and keys against the secrets

PASS_WRONG_ROUND = "{kind} pass for the wrong round or of the wrong size"
PASS_NOT_DECK = "{kind} pass is not a valid deck: {error}"
KEYS_WRONG_POSITIONS = "published keys for the wrong positions"
KEY_OUTSIDE_ORDER = "published a key outside the group order"
PASS_WRONG_LAYER = "{kind} pass for the wrong layer or of the wrong size"
PASS_NOT_POINTS = "{kind} pass is not a valid list of points: {error}"
DISHONEST_SHUFFLE = "dishonest shuffle in round {round}"
DISHONEST_LOCK = "dishonest lock in round {round}"
WRONG_ROUND_KEY = "published a wrong key for position {pos} of round {round}"
DISHONEST_LAYER = "dishonest {kind} pass in layer {layer}"
WRONG_LAYER_KEY = "published a wrong key for item {item} of layer {layer}"

# -- a sitting (p2pcards.protocol.sitting): the tables of one match

NO_LONGER_AT_TABLE = "seat {seat} is no longer at the table"
WENT_ON_WITHOUT = "the others went on without this seat: every one of them judged it gone"
LEFT_NOBODY_REMAINS = "{name} left the match (it said: {said}): nobody remains to play on"
ANOTHER_TABLE = "the match goes on at another table"

# -- the audit (p2pcards.protocol.audit)

FILE_ALTERED = "file checksum mismatch: the file was altered"
MALFORMED_RECORD = "malformed record: {error}"
CUT_SHORT = "the file is cut short after record {last}: the rest, and the file's checksum, are missing"
NO_RECORD = "the transcript holds no record"
EDITED = "record out of order or repeated: the file was edited"
FIRST_NOT_JOIN = "the first record is not a join record"
FIRST_NOT_SIGNED = "the first record is not validly signed by a seat of the roster it names"
IMPOSSIBLE_TABLE = "signed a join record that names an impossible table: {error}"
SIGNATURE_FAILS = "the record's signature does not verify"
AUDIT_FAILED = "the audit could not check this record ({error})"
ENDS_EARLY = "the transcript ends before the match did (step {step} waits for seat {seats})"

_junk = (
    " taken for junk and not checked: over {most} records are unreadable, of another game or not"
    " validly signed by a player"
)
JUNK_REST_ONE = "the rest of the file, 1 record from record {start} on, is" + _junk
JUNK_REST = "the rest of the file, {count} records from record {start} on, is" + _junk
JUNK_BEFORE_ONE = "records {start} to {end} (1 record, before the first record that reads) are" + _junk
JUNK_BEFORE = "records {start} to {end} ({count} records, before the first record that reads) are" + _junk

UNLISTED_ONE = "1 more problem of single records (records {first} to {last}) is not listed"
UNLISTED = "{count} more problems of single records (records {first} to {last}) are not listed"
UNLISTED_ONE_BLAME = (
    "1 more problem of single records (records {first} to {last}; some of them blame {blamed}) is not listed"
)
UNLISTED_BLAME = (
    "{count} more problems of single records (records {first} to {last}; some of them blame {blamed})"
    " are not listed"
)

CHAIN_IN_FILE = (
    "the record of {name} (seat {seat}) for step {step} does not follow the records before it in "
    "this file: {name} signed another history, or a record before it was changed (its author may "
    "have shown {name} another one, or saved this file); a file cannot show which"
)

CHAIN_OWN = (
    "its record for step {step} does not follow the records of step {before} in this file, every "
    "one of them its own: it signed two histories"
)

CLAIMS_MORE_ONE = (
    "the audit could not check this record: every continue record claims more of the table "
    "it continues than the file holds ({hands} hand scored there, the file "
    "shows {shown}), so the totals carried from it are not known"
)
CLAIMS_MORE = (
    "the audit could not check this record: every continue record claims more of the table "
    "it continues than the file holds ({hands} hands scored there, the file "
    "shows {shown}), so the totals carried from it are not known"
)

# -- the transcript file (p2pcards.protocol.transcript): where its own structure is damaged

_damaged = "the file's structure is damaged at byte offset {offset}, "
DAMAGED_IN = _damaged + "in record {record}: {damage}"
DAMAGED_BEFORE = _damaged + "before record {record}: {damage}"
DAMAGED_AFTER = _damaged + "after record {record}: {damage}"
DAMAGED_BEFORE_FIRST = _damaged + "before the first record: {damage}"

TOO_MUCH_DAMAGE_ONE = "too much damage: the last 1 byte are not read"
TOO_MUCH_DAMAGE = "too much damage: the last {count} bytes are not read"
FIELD_COUNT = "the number of fields there says {count}, the file has {pairs}"
CHECKSUM_FRAMING = "the checksum's field name or header is altered; the checksum itself is intact"
MARKER_UNREADABLE = "the {field} cannot be read instead of {expected}"
MARKER_OTHER = "the {field} reads {value} instead of {expected}"
FIRST_BYTE = "its first byte ({byte}) does not open the transcript's map"
AFTER_END_ONE = "1 byte follows the end of the transcript"
AFTER_END = "{count} bytes follow the end of the transcript"
FIELD_NAME = "a field name reads {value} instead of {expected}"
REST_UNREADABLE_ONE = "the rest of the file (1 byte) cannot be read"
REST_UNREADABLE = "the rest of the file ({count} bytes) cannot be read"
SKIPPED_BYTES_ONE = "1 byte cannot be read and are skipped"
SKIPPED_BYTES = "{count} bytes cannot be read and are skipped"
SKIPPED_LOST_ONE = "1 byte cannot be read and are skipped (a record may be lost)"
SKIPPED_LOST = "{count} bytes cannot be read and are skipped (a record may be lost)"
BYTES_ALTERED = "the bytes there are altered; record {record} after them is intact and was read"
FRAMING_ALTERED = "its framing is altered; its signed bytes are intact and were read"
RECORD_COUNT = "the number of records there says {count}, the file holds {held}"

# -- the games' adapters (p2pcards.games.*.adapter): cards shown, drawn and played

ILLEGAL_SEEN = "illegal move seen with all cards shown: {detail} (rule {rule})"
ILLEGAL_SEEN_IN_TRICK = "illegal move seen with all cards shown in trick {trick}: {detail} (rule {rule})"
UP_CARD = "the up card does not open to a card"
DEALT_NOT_CARD = "dealt position {pos} does not open to a card"
DEALT_TWICE = "dealt the same card twice"
DISPUTED = "disputed a card ({reason})"
SAME_POSITION = "shows the same position twice"
NEITHER_DEALT = "played a card it was neither dealt nor drew (deal position {pos})"
ONLY_DRAWN = "after drawing only the drawn card may be played"
KEY_OUTSIDE_GROUP = "shows a key outside the group order"
SHOWED_OTHER = "showed {card} from position {pos}, which holds another card"
TWO_NINES = "two 9s must declare a suit"
DRAWN_NOT_CARD = "the drawn position {pos} does not open to a card"
PLAY_WRONG_TYPE = "sent a {kind} record for a play"
NEUF_ONE_CARD = "a play in Le Neuf shows exactly one card and names no suit"
NOT_HELD = "played a card it does not hold (deal position {pos})"
DUMMY_IMPOSSIBLE = "the dummy opened to impossible cards: {detail}"
DUMMY_NOT_CARD = "position {pos} of the dummy does not open to a card"

TEMPLATES: dict[str, str] = {
    f"fault_{name.lower()}": text for name, text in dict(globals()).items() if name.isupper()
}
"""Every template above by its key (``fault_`` and the constant's name)."""

ERROR_KINDS: dict[str, tuple[str, str]] = {
    "LocalProtocolError": ("fault_error_local", "this program misused its own protocol state: {detail}"),
    "UsageError": ("fault_error_usage", "the rules engine refused a request: {detail}"),
    "RuleOptionError": ("fault_error_rule_option", "a rule option was refused: {detail}"),
    "CardParseError": ("fault_error_card", "not a card: {detail}"),
    "IllegalAction": ("fault_error_illegal", "an illegal move: {detail}"),
    "RemoteProtocolError": ("fault_error_remote", "a fault: {detail}"),
    "TranscriptError": ("fault_error_transcript", "a transcript that cannot be read: {detail}"),
}
"""The program's own errors (``p2pcards.errors``) that an error inside the audit may be
(:data:`AUDIT_FAILED`'s ``error`` is its ``repr``, ``LocalProtocolError('...')``), by the
name of their class: the key and the English of the words that say which it is, its text
the ``detail``. The interface says them in the player's language; another error (a bug
elsewhere, ``KeyError(3)``) is shown as its ``repr``."""

FAULT_WORDS: dict[str, str] = {
    **TEMPLATES,
    "fault_or": "or",
    "fault_seats": "seats {seats}",
    **dict(ERROR_KINDS.values()),
    "fault_error_words": "{text}",
}
"""The English the interface's catalogs translate: the templates, the word between the
kinds of :data:`WRONG_RECORD`'s ``kinds``, the seats (more than one) a problem not
listed blames (:data:`UNLISTED_BLAME`'s ``blamed``: ``seat 3``, ``seats 1 and 2``), the
words for the program's own errors (:data:`ERROR_KINDS`), and the text of such an error that
no template made, as it is in English and quoted as the program's own words elsewhere."""
