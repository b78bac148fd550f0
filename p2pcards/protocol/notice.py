"""Lines for the people at a table that the layers below the UI write (the lobby, the links).

Each is an English sentence, so a log or a test reads it as it is, that also carries
its key and values: a UI says it in the player's language instead
(:mod:`p2pcards.ui.i18n` holds the translations under the same keys).
"""

from __future__ import annotations

from collections.abc import Iterable

NOTICES: dict[str, str] = {
    "notice_joined": "{name} joined from {peer}",
    "notice_joined_again": "{name} joined again from {peer}: the start had not reached them",
    "notice_left_table": "{name} left the table",
    "notice_wrong_code": "refused {name} from {peer}: wrong invitation code",
    "notice_code_closed": "{count} wrong invitation codes were tried: someone may be guessing this table's"
    " code, so no more codes are checked. Those seated keep their seats; to seat anyone else, stop (Ctrl-C)"
    " and host a new table, which gets a new code.",
    "notice_left_came_back": "refused {name} from {peer}: they left the game, which went on without them",
    "notice_seated": "seated at a table of {game} ({players} players); waiting for the others",
    "notice_patient": "only one person plays at this table: the bots wait for them (up to a day a turn)",
    "notice_busy": "the host is busy; trying again in {pause} s",
    "notice_try_next": "not joined at {where} ({error}); trying the next host that answered",
    "notice_relayed": "cannot reach {name} (seat {seat}) directly ({why}): its messages go through the host",
    "notice_punched": "linked with {name} (seat {seat}) through both routers (hole punching)",
    "notice_direct": "linked directly with {names}",
    "notice_reconnecting": "{name} (seat {seat}) lost connection: reconnecting ({left} left)",
    "notice_back": "{name} (seat {seat}) is back after {seconds} s",
    "notice_rejoining": "linking again with {name} (seat {seat}) ({left} left)",
    "notice_rejoined": "linked again with {name} (seat {seat})",
    "notice_gone": "{name} (seat {seat}) did not come back within {seconds} s",
    "notice_not_rejoined": "{name} (seat {seat}) did not answer within {seconds} s of your return",
    "why_self_not_listening": "this seat does not listen",
    "why_not_listening": "it does not listen",
    "why_punch_failed": "hole punching failed",
    "why_no_link": "no link from it",
    "why_no_answer_in_time": "no answer in time",
    "notice_left_behind": "{name} (seat {seat}) is gone: the seats that carried its messages to you went on"
    " without it",
    "notice_through_others": "{name} (seat {seat}) is still at the table, but its own link with you did not"
    " come back: its messages go through the others",
    "notice_refused_connection": "refused a connection from {peer}: {error}",
    "notice_refused_link": "refused a link from {peer}: {error}",
    "notice_not_saved": "could not save the transcript to {path}: {error}",
    "notice_known_new_key": "WARNING: {name} (seat {seat}) comes with a key you have never seen ({new}); the"
    " {name} you played with until {last} had {old}. It may be someone else, put there by the host: compare"
    " the table fingerprint before you play on (or it is {name} on a new machine)",
    "notice_known_renamed": "WARNING: {name} (seat {seat}) has the key of the player you knew as {known}"
    " (last seen {last}): the same person under a new name, or someone showing you another table",
    "notice_known_unreadable": "the list of known players {problem}",
    "notice_mapped": "your router forwards {outside} from the internet to port {port} here ({how}),"
    " until you leave",
    "notice_no_mapping": "no router opened port {port} ({why}): a seat that cannot dial you reaches you"
    " through the host",
    "notice_no_host": "no host with code {code} answered on this network within {seconds} s; ask the host"
    " for its address and run p2pcards join ADDRESS",
    "notice_no_search": "cannot search this network for code {code} ({error}): ask the host for its address"
    " and run p2pcards join ADDRESS",
    "notice_discovery_ipv4": "it works over IPv4, and --bind {bind} is not an IPv4 address",
    "notice_unreachable_host": "cannot reach the host at {where} ({why})",
    "notice_host_refused": "the host refused: {why}",
    "notice_host_refused_words": 'the host refused, in its own words: "{words}"',
    "notice_host_protocol_error": "protocol error: {why}",
    "notice_still_busy": "{why} (still busy after {seconds} s of retries)",
    "notice_host_unreadable": "the host sent something unreadable ({why})",
    "notice_host_game_unplayable": "the host plays a game this version cannot play: {why}",
    "usage_name_empty": "a name cannot be empty",
    "usage_name_unsafe": "a name cannot contain control, bidi or invisible characters",
    "notice_no_host_seated": "none of the {n} hosts that answered seated you ({failures})",
    "notice_host_plain": "protocol version mismatch: the host does not encrypt its links (older p2pcards)",
    "notice_host_version": "protocol version mismatch: the host speaks {theirs}, this program {ours}",
    "notice_host_unexpected": "the host sent an unexpected {kind} message",
    "notice_host_roster_inconsistent": "the host announced an inconsistent roster",
    "notice_host_roster_keys": "the host announced a roster with unusable or repeated keys",
    "notice_link_failed": "link to {name} (seat {seat}) failed: {why}",
    "notice_host_closed": "the host closed the connection ({why})",
    "notice_host_hung_up": "the host closed the connection",
    "notice_link_hung_up": "connection lost (the peer hung up)",
    "notice_link_lost": "connection lost ({why})",
    "notice_link_lost_sending": "connection lost while sending ({why})",
    "notice_lobby_rejoin": "not at the table any more ({why}): joining again",
    "notice_host_left_lobby": (
        "the host closed its table before the game began: nothing answers at {where} any more"
    ),
    "notice_join_retry": "the connection broke while joining ({why}): trying again",
    "notice_host_silent": "the host stopped answering",
    "notice_slow_joiner": "{name} (from {peer}) did not finish joining in time: the network path is too"
    " slow or loses too many packets",
    "notice_join_slow_retry": "the handshake with the host was too slow ({why}): trying again",
    "notice_path_too_slow": "could not join the host at {where}: the network path to it is too slow or"
    " loses too many packets ({why})",
    "notice_host_gave_up": "the host gave up waiting for a step of the handshake",
    "notice_host_hung_up_late": "the host closed the connection after {seconds} s, before the handshake"
    " was done",
    "notice_host_silent_after_code": "no answer from the host within {seconds} s of proving the code",
    "notice_lobby_too_long": "the game did not start within {minutes} minutes of waiting at the table",
    "notice_host_no_tls": "the host at {peer} did not complete the TLS handshake",
    "notice_host_no_encryption": "no encrypted connection with the host at {peer}: {why}",
    "notice_host_middle": "the host's encryption key does not match its signed key: someone may be in the"
    " middle",
    "notice_host_no_proof": "the host could not prove it knows the code: not the table you were invited to",
    "refusal_wrong_code": "wrong invitation code",
    "refusal_table_full": "the table is full",
    "refusal_started": "the game has already started",
    "refusal_version": "protocol version mismatch",
    "refusal_name_taken": "that name is already taken at this table",
    "refusal_name_taken_by": "the name {name} is already taken at this table",
    "refusal_name_blank": "a name of nothing but spaces is no name at this table: choose another",
    "refusal_bad_signature": "the join signature does not match the key",
    "refusal_bad_key": "that public key cannot be used",
    "refusal_same_key": "that key already has a seat at this table",
    "refusal_same_key_mine": "your key already has a seat at this table (a second seat played from this "
    "computer needs a data directory of its own: P2PCARDS_HOME=DIR p2pcards join ...; a seat that "
    "--bot plays has a key of its own)",
    "refusal_busy": "the host has too many connections waiting; try again shortly",
    "refusal_left": "you left this game, and it went on without you: a player who leaves cannot come back",
    "refusal_slow": "the host stopped waiting: a step of the handshake took too long (the network path"
    " between you is too slow or loses too many packets)",
    "refusal_code_closed": "the host checks no more codes: too many wrong ones were tried at its table; ask"
    " the host for a new table with a new code",
    "notice_seated_elsewhere": "the host lists this seat with port {port}, not the port this program"
    " listens on ({mine}): either your key already sits at this table from an earlier run of the program"
    " (that seat goes back to the game only with p2pcards resume, from that run's data directory), or the"
    " host would send every message of this seat through itself",
    "portmap_no_answer": "{method}: no answer",
    "portmap_no_answer_mapping": "{method}: no answer to the mapping request",
    "portmap_late": "{method}: the router did not answer in time",
    "portmap_no_upnp": "UPnP: the miniupnpc package is not installed",
    "portmap_pcp_natpmp_no_answer": "PCP and NAT-PMP: no answer",
    "portmap_pcp_natpmp_error": "PCP and NAT-PMP: {error}",
    "file_unreadable": "cannot read {path}: {error}",
    "file_not_regular": "cannot read {path}: it is not a file (a device or a pipe, say)",
    "file_empty": "not a p2pcards transcript: the file is empty",
    "file_too_big": "not a p2pcards transcript: {size} bytes exceeds the limit of {limit}",
    "file_no_marker": "not a p2pcards transcript (no format marker)",
    "file_undecodable": "not a p2pcards transcript: {detail}",
    "file_key_twice": "not a p2pcards transcript (the key {name} appears twice)",
    "file_too_many_records": "not a p2pcards transcript: over {limit} records",
    "file_cut_before_marker": "not a p2pcards transcript: it ends before its format marker (truncated)",
    "file_cut_before_records": "the transcript file is cut short before its first record (truncated)",
    "file_records_not_list": "transcript records must be a list",
    "file_version": "unsupported transcript version {version}",
    "file_trailing": "{n} trailing bytes after the transcript: the file was altered",
    "journal_not": "not a p2pcards journal",
    "journal_version": "unsupported journal version {version}",
    "journal_damaged": "the journal's header is damaged",
    "journal_not_or_damaged": "not a p2pcards journal, or its header is damaged",
    "journal_in_use": "{path} is in use: another p2pcards plays this game from it now; stop that one first",
    "journal_unreadable": "cannot read {path}: {why}",
    "journal_other_key": "{path} is the journal of another player's key: it cannot be resumed here",
    "journal_header_damaged": "{path} is damaged: {why}",
    "history_no_game": "there is no game {k} in the history: its games are numbered 1 to {n} ({folder})",
    "history_no_game_one": "there is no game {k} in the history: it holds one game, number 1 ({folder})",
    "history_no_game_empty": "there is no game {k}: the history holds none yet ({folder})",
    "keyfile_cannot_create": "cannot create your identity key in {folder}: {error}; give p2pcards a "
    "folder it can write with P2PCARDS_HOME=FOLDER",
    "keyfile_missing": "no identity key file at {path}",
    "keyfile_unreadable": "cannot read the identity key file {path}: {detail}",
    "keyfile_not_a_file": "the identity key file {path} is not a regular file",
    "keyfile_too_open": "the identity key file {path} has permissions {detail}, which let other users "
    "read it; fix with: chmod 600 {path}",
    "keyfile_corrupt": "the identity key file {path} is damaged (not a p2pcards key file); it is left "
    "as it is: move it away and a new identity is made, under which the players who knew you "
    "will be warned of a new key",
    # What TLS said of a connection (``net.tls``, ``net.link``): a handshake that failed, a
    # certificate that is not the one expected, a link broken.
    "tls_plain": "it speaks p2pcards without encryption (an older version)",
    "tls_garbage": "not a p2pcards TLS connection",
    "tls_failed": "TLS handshake failed ({why})",
    "tls_closed": "the connection closed during the TLS handshake",
    "tls_no_certificate": "the peer presented no certificate",
    "tls_certificate_unreadable": "the peer's certificate is unreadable",
    "tls_not_ed25519": "the peer's certificate does not hold an Ed25519 key",
    "tls_no_binding": "the TLS session offers no channel binding",
    "tls_other_key": "the address the host listed for seat {seat} answered with another key than seat"
    " {seat}'s: the host's roster may be wrong, or someone may be in the middle",
    "tls_lost": "TLS: {why}",
    # Why a link broke, when the system or TLS did not say (``net.link``).
    "why_broken_before": "the connection was broken already",
    "why_closed_here": "this end had closed the connection",
    "why_sent_after_eof": "this end had said it would send nothing more",
    "why_send_interrupted": "an earlier send was interrupted",
    # Why a seat could not link again with a peer (``net.session``, ``net.relay``): the detail
    # of a seat judged gone, which the first ``continue`` record signs.
    "relink_failed": "the new link failed: {why}",
    "relink_no_answer": "no answer from {where}",
    "relink_no_host_address": "the host's address is not known",
    "relink_no_carrier": "no seat linked with this one is here to carry its frames to seat {seat}",
}
"""The English of every notice, by key."""

TLS_REASONS = (
    "WRONG_VERSION_NUMBER",
    "UNSUPPORTED_PROTOCOL",
    "NO_PROTOCOLS_AVAILABLE",
    "TLSV1_ALERT_PROTOCOL_VERSION",
    "INAPPROPRIATE_FALLBACK",
    "TLSV1_ALERT_INAPPROPRIATE_FALLBACK",
    "UNEXPECTED_MESSAGE",
    "UNEXPECTED_RECORD",
    "UNEXPECTED_CCS_MESSAGE",
    "UNEXPECTED_EOF_WHILE_READING",
    "SSLV3_ALERT_UNEXPECTED_MESSAGE",
    "DECRYPTION_FAILED_OR_BAD_RECORD_MAC",
    "SSLV3_ALERT_BAD_RECORD_MAC",
    "TLSV1_ALERT_DECRYPTION_FAILED",
    "TLSV1_ALERT_DECRYPT_ERROR",
    "TLSV1_ALERT_DECODE_ERROR",
    "TLSV1_ALERT_RECORD_OVERFLOW",
    "RECORD_LAYER_FAILURE",
    "PACKET_LENGTH_TOO_LONG",
    "BAD_PACKET_LENGTH",
    "EXCESSIVE_MESSAGE_SIZE",
    "LENGTH_MISMATCH",
    "BAD_LENGTH",
    "BAD_EXTENSION",
    "HTTP_REQUEST",
    "HTTPS_PROXY_REQUEST",
    "SSLV3_ALERT_HANDSHAKE_FAILURE",
    "SSLV3_ALERT_ILLEGAL_PARAMETER",
    "TLSV1_ALERT_INTERNAL_ERROR",
    "TLSV1_ALERT_INSUFFICIENT_SECURITY",
    "TLSV1_ALERT_USER_CANCELLED",
    "TLSV1_ALERT_ACCESS_DENIED",
    "TLSV13_ALERT_MISSING_EXTENSION",
    "TLSV13_ALERT_CERTIFICATE_REQUIRED",
    "NO_SHARED_CIPHER",
    "NO_SHARED_GROUPS",
    "NO_SUITABLE_KEY_SHARE",
    "BAD_KEY_SHARE",
    "NO_SHARED_SIGNATURE_ALGORITHMS",
    "NO_SUITABLE_SIGNATURE_ALGORITHM",
    "MISSING_SIGALGS_EXTENSION",
    "BAD_SIGNATURE",
    "CERTIFICATE_VERIFY_FAILED",
    "PEER_DID_NOT_RETURN_A_CERTIFICATE",
    "SSLV3_ALERT_BAD_CERTIFICATE",
    "SSLV3_ALERT_UNSUPPORTED_CERTIFICATE",
    "SSLV3_ALERT_CERTIFICATE_UNKNOWN",
    "SSLV3_ALERT_CERTIFICATE_EXPIRED",
    "SSLV3_ALERT_CERTIFICATE_REVOKED",
    "TLSV1_ALERT_UNKNOWN_CA",
    "APPLICATION_DATA_AFTER_CLOSE_NOTIFY",
    "TLSV1_UNRECOGNIZED_NAME",
    "TLSV1_ALERT_NO_APPLICATION_PROTOCOL",
)
"""The reasons OpenSSL gives most for a TLS failure (``ssl.SSLError.reason``): each is a
notice, ``ssl_`` and the reason in lower case, whose English is what was shown before (the
reason in lower case, in words: ``wrong version number``); another reason is shown so, in
English (:func:`tls_reason`)."""

NOTICES.update({f"ssl_{reason.lower()}": reason.lower().replace("_", " ") for reason in TLS_REASONS})
NOTICES["openssl_said"] = "{reason}"
"""Another reason of OpenSSL's, as it says it (in lower case, in words): in English the reason
alone, as before; in another language a sentence that quotes it as OpenSSL's own words."""


LINK_WORDS = (
    "notice_link_hung_up",
    "notice_link_lost",
    "notice_link_lost_sending",
    "why_no_answer_in_time",
    *(key for key in NOTICES if key.startswith(("tls_", "ssl_", "why_", "relink_"))),
)
"""The notices that say why a link broke or could not be made again: a seat judged gone
signs the last one's English as the detail of its reason, which the interface reads back
against these to say it in the player's language (``ui.problems.link_text``)."""


def tls_reason(reason: str) -> str:
    """What TLS said (``reason``: an ``ssl.SSLError``'s reason, or its type's name when it has
    none) in words: a notice to be said in the player's language when it is one of
    :data:`TLS_REASONS`, else the reason in lower case, as it is, quoted in the player's
    language as OpenSSL's (``openssl_said``)."""
    key = f"ssl_{reason.lower()}"
    return Notice(key) if key in NOTICES else Notice("openssl_said", reason=reason.lower().replace("_", " "))


class Notice(str):
    """A notice: its English text, with ``key`` and ``values`` to say it in another language.

    A value may be a notice too (or a :class:`Notices`): it is said in the same language.
    """

    key: str
    values: dict[str, object]

    def __new__(cls, key: str, **values: object) -> Notice:
        self = super().__new__(cls, NOTICES[key].format(**values))
        self.key = key
        self.values = values
        return self


class Notices(str):
    """Several notices as one value, in English joined by ``sep``; a UI says each in its language."""

    items: tuple[str, ...]
    sep: str

    def __new__(cls, items: Iterable[str], sep: str = "; ") -> Notices:
        kept = tuple(items)
        self = super().__new__(cls, sep.join(kept))
        self.items = kept
        self.sep = sep
        return self


def refusal_key(reason: str) -> str:
    """The key of the notice for a refusal ``reason`` of the lobby (``wrong-code``...)."""
    return "refusal_" + reason.replace("-", "_")


def refusal(reason: str, name: str | None = None) -> Notice | None:
    """The notice for a refusal ``reason`` of the lobby, None for another. Said to the
    joiner (which gives its ``name``): a name taken is named, and a key already seated is
    the joiner's own, with how a second seat is played from one computer."""
    if reason == "name-taken" and name is not None:
        if not name.strip():
            return Notice("refusal_name_blank")
        return Notice("refusal_name_taken_by", name=repr(name))
    if reason == "same-key" and name is not None:
        return Notice("refusal_same_key_mine")
    key = refusal_key(reason)
    return Notice(key) if key in NOTICES else None


def message_of(error: BaseException) -> str:
    """What ``error`` says: the notice it was raised with (to be said in the player's
    language), else its text."""
    message = error.args[0] if len(error.args) == 1 else None
    return message if isinstance(message, Notice) else str(error)
