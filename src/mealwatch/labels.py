"""The complaint label set, one-line definitions and the urgency rule.

Everything that names a complaint label imports it from here.
"""

from __future__ import annotations

from collections.abc import Iterable

#: label -> one-line definition (order is the canonical label order)
DEFINITIONS: dict[str, str] = {
    "foreign_object": "insects, worms, lizard, hair, stones, glass, plastic found in the food",
    "spoiled_food": "stale, rotten, foul-smelling, sour, mouldy, expired or rancid ingredients, yesterday's food",
    "illness": "children fell sick after eating: vomiting, stomach ache, diarrhoea, fainting, taken to hospital",
    "insufficient_quantity": "portions too small, food ran out, not every child got food",
    "menu_not_followed": "a prescribed item missing or substituted (no dal, no egg or fruit on its day), "
    "the same food every day, a sabzi with no vegetables",
    "poor_hygiene": "dirty kitchen, utensils or water, flies, cooking near toilets or garbage, cooks without handwash",
    "meal_not_served": "no meal today or for days, kitchen closed, very late, "
    "cooking stopped for want of gas, fuel or grain",
    "poor_taste_or_cooking": "undercooked, raw, burnt, watery, too salty or spicy, tasteless",
    "staff_misconduct": "cook or head teacher absent, drunk or rude, caste discrimination, children made to cook "
    "or wash pots, grain stolen, fake attendance",
    "other": "anything else sent to the same complaint line (a question about the menu, praise, a broken wall, "
    "a scholarship)",
}

#: the complaint labels in canonical order
LABELS: tuple[str, ...] = tuple(DEFINITIONS)

URGENCY_LEVELS: tuple[str, ...] = ("high", "medium", "low")
HIGH_URGENCY: frozenset[str] = frozenset({"illness", "foreign_object"})
MEDIUM_URGENCY: frozenset[str] = frozenset({"spoiled_food", "poor_hygiene", "meal_not_served"})

#: separator of labels inside one CSV cell
LABEL_SEPARATOR = ";"


def urgency(labels: Iterable[str]) -> str:
    """Urgency of a complaint carrying ``labels``: "high", "medium" or "low".

    ``illness`` or ``foreign_object`` -> high; ``spoiled_food``, ``poor_hygiene`` or
    ``meal_not_served`` -> medium; anything else (including labels outside the
    complaint set, as in a user's own data) -> low.
    """
    found = set(labels)
    if found & HIGH_URGENCY:
        return "high"
    if found & MEDIUM_URGENCY:
        return "medium"
    return "low"


def urgency_rank(level: str) -> int:
    """Sort key: 0 for high, 1 for medium, 2 for low."""
    return URGENCY_LEVELS.index(level)
