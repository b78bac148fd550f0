"""The rules engines refuse every illegal move by a text of ``games/rule_words.ILLEGAL_WORDS``
(its key and values on the ``IllegalAction``), whose English is the detail as it always was,
word for word: transcripts, audits and outside verifiers hold and compare it."""

from __future__ import annotations

import pytest
from illegal_cases import NEUF, NINES, Case, refusal

from p2pcards.games.rule_words import ILLEGAL_PLACES, ILLEGAL_WORDS

CASES: dict[str, Case] = {
    **{f"nines: {k}": c for k, c in NINES.items()},
    **{f"neuf: {k}": c for k, c in NEUF.items()},
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_refusal_says_its_english_as_before(name: str) -> None:
    case = CASES[name]
    e = refusal(case)
    assert (e.rule, e.key) == (case.rule, case.key), e
    assert e.detail == case.english
    assert ILLEGAL_WORDS[e.key].format(**e.values) == e.detail
    assert str(e).endswith(f"{e.detail} [rule: {e.rule}]")


def test_every_refusal_of_the_words_is_provoked() -> None:
    """Each text a move can be refused with is provoked above (where a card is seen, each
    place, and each phase a refusal names as well)."""
    details = [refusal(c).detail for c in CASES.values()]
    keys = {refusal(c).key for c in CASES.values()}
    left = {k for k in ILLEGAL_WORDS if not k.startswith("illegal_phase_")} - keys - set(ILLEGAL_PLACES)
    assert not left
    for key in ILLEGAL_PLACES:
        place = ILLEGAL_WORDS[key].format(seat=1)
        assert any(d.endswith(place) for d in details), key
