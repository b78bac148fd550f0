"""The English of what the bots' names and budgets refuse, by key (``UsageError.key``).

The interface's catalogs hold the French and the Italian under the same keys
(:mod:`p2pcards.ui.i18n` takes these messages in).
"""

from __future__ import annotations

from p2pcards.errors import UsageError

BOT_WORDS: dict[str, str] = {
    "bot_err_unknown": "unknown bot {name}; choose from {known}",
    "bot_err_no_budget": "an expert needs a time or an iteration budget",
    "bot_err_seconds": "an expert thinks more than 0 and at most {most} seconds a move",
    "bot_err_iterations": "an expert searches 1 to {most} deals a move",
    "bot_err_budget_words": (
        "expert budget {text} is neither seconds (expert:0.5) nor iterations (expert:300i)"
    ),
    "bot_err_budget_seconds": "expert budget {text} is not a number of seconds",
}
"""The bots' refusals, by key."""


def bot_error(key: str, **values: object) -> UsageError:
    """A refused bot name or budget, said by ``key`` (its English the message)."""
    return UsageError(BOT_WORDS[key].format(**values), key, values)
