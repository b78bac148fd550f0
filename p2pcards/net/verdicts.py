"""What a node says when a match stops for lack of connections or answers, and why a seat leaves.

Each text is a template the node fills with names, steps and seconds; the interface says
it again in the player's language (``p2pcards.ui.problems``, ``p2pcards.ui.netgame``), so a
template changes only together with its translations. These are the node's own verdicts; the
faults the table finds in a record are worded where they are found (``p2pcards.protocol``).
"""

from __future__ import annotations

ALLOWANCE_SPENT = "away {seconds} s in all over the match, the most a player may be"
"""What a peer that was away too long over the match is said to have done (``ABSENCE_ALLOWANCE``)."""


STAYED_AWAY = "it did not come back"
"""Why a peer counts as gone when no attempt to relink it failed with an error of its own."""


FINGERPRINT_DIFFERED = "the table fingerprint differed"
"""The reason a seat signs when its player leaves because they read other digits than the
others (a split table): the others are told it as such."""


NOBODY_ANSWERED = (
    "none of the others answered within {seconds} s of this seat's return: the match may have "
    "ended, or gone on without it"
)
"""Why a seat back from a crash stops when no peer links with it again within its grace."""


LOST_EVERY = (
    "lost every connection at step {step} and none came back in time: this node's own connection "
    "may be down"
)


LOST_EVERY_REFUSED = (
    "lost every connection at step {step} and none came back in time; dialled again, {gone}"
    " refused the connection: nothing listens there any more (its program may have ended)"
)


EVERY_CLOSED = "every connection closed at step {step} ({kind}); this node cannot tell who left"


HEARD_NOBODY = (
    "heard from nobody while waiting {seconds} s for {names} at step {step}: this node's own "
    "connection may be down"
)


HEARD_NOBODY_REFUSED = (
    "heard from nobody while waiting {seconds} s for {names} at step {step}; dialled again, {gone}"
    " refused the connection: nothing listens there any more (its program may have ended)"
)


STOPPED_BEFORE = "{names} stopped before step {step}; this node cannot tell why"


SILENT_PLAY = "timed out: the table's turn clock of {seconds} s ran out, and {names} neither played nor left"
"""A seat named for its turn: ``seconds`` is the turn clock the table agreed (the host's), not
the time waited, which adds ``LEAVE_WAIT`` for the seat's signed leave (the seat's own node
leaves, signed, when its clock runs out: only one that neither plays nor leaves is named)."""


SILENT_ANSWER = "timed out: {names} did not answer within {seconds} s"


SLOW_ANSWER = (
    "timed out: {names} did not answer within {seconds} s, having been late {allowance} s in all"
    " already, the most a seat may be over the match"
)


RELAYED_LATE = (
    "timed out: {names}, reached only through a relay, did not answer within {seconds} s, late"
    " {allowance} s in all already, the most over a match: what carried it may have held it up;"
    " cannot tell who is at fault"
)


RELAYED_SILENT = (
    "timed out waiting for {names} at step {step}, reached only through a relay "
    "(the seats linked with both may drop what they carry): cannot tell who is at fault"
)


RELAYED_DISPUTE = (
    "a chain dispute about {names} saw no proof in time; it is reached only through a relay: "
    "cannot tell who is at fault"
)


STOPPED_CLAIM = "{names} stopped the match; its claim: {claim}"


STOPPED_READING = "stopped reading: a frame waited {seconds} s to be delivered"


READ_SLOWLY = (
    "read too slowly: this seat's frames waited {seconds} s in all to be taken, the most a seat"
    " may hold another up over the match"
)


RELAY_IN_NAME = "sent a relay frame in the name of seat {origin}, for seat {seat}"


GAVE_TO_CARRY = "gave this seat, to carry to seat {seat}, {problem}"


CARRIED_MALFORMED = "carried a malformed frame: {error}"


MALFORMED_TO_CARRY = "a malformed frame ({error})"


WENT_ON_WITHOUT = "{name} went on without {gone}"


WENT_ON_RELAYED = (
    "timed out waiting for {names} at step {step}: {who}, whom this node reaches only through a relay "
    "too: cannot tell who is at fault"
)


NOT_FOLLOWED = (
    "{names} did not go on without {gone} within {seconds} s (they may still hear from {gone}): "
    "cannot tell who is at fault"
)


STOPPED_CLAIM_RELAYED = (
    "{names} stopped the match (said through a relay, which may have made it up); its claim: {claim}"
)
"""The problems of a match that stops for lack of connections or answers, as the node says
them (the interface says them in the player's language: ``p2pcards.ui.problems``)."""


NO_PLAY = "did not play within {seconds} s"
"""The reason a seat signs when it leaves because its own turn's time ran out (read back in
the player's language by ``p2pcards.ui.netgame.leave_reason``)."""


LEFT_BEHIND = "the seats that passed on its messages went on without it"
"""Why a node judges gone a seat it reaches only through a relay (``_follow_the_others``)."""


TURN_TIMED_OUT = "timed out"
"""The problem of a run this seat left because its own turn time ran out (status "aborted")."""


INTERRUPTED = "interrupted"
"""The problem of a run this seat left because the program was interrupted (status "aborted")."""
