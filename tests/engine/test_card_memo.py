"""memo_by_content: card facts remembered per card content are exact, whatever the cards (engine speed, issue 16)."""

from __future__ import annotations

from manaforge.v1.cards_pb2 import MagicCard
from manaforge.v1.games.manufactory_pb2 import ManufactoryState

from engine_core.cards import memo_by_content
from engine_core.live import is_frozen, twin


def test_memo_answers_by_content_not_by_name() -> None:
    calls: list[str] = []

    def colours(card: MagicCard) -> str:
        calls.append(card.name)
        return "".join(card.colors)

    memo = memo_by_content(colours)
    white = MagicCard(name="a", colors=["W"])
    blue = MagicCard(name="a", colors=["U"])  # same name, other card: a scenario's hand-made cards do this
    assert memo(white) == "W"
    assert memo(blue) == "U"
    assert memo(MagicCard(name="a", colors=["W"])) == "W"  # an equal card: answered from the memo
    assert calls == ["a", "a"]
    white.colors.append("U")  # a changed card is another key
    assert memo(white) == "WU"


def test_memo_keys_include_the_card_id() -> None:
    memo = memo_by_content(lambda card: card.id)
    assert [memo(MagicCard(id=i, name="x")) for i in (3, 4, 3)] == [3, 4, 3]


def test_a_frozen_card_is_answered_by_identity() -> None:
    """A card in a live state's catalogue never changes again (engine_core.live.freeze): its facts are found by
    identity, without serializing it; a card that is not frozen is still looked up by content."""
    calls: list[str] = []

    def count(card: MagicCard) -> int:
        calls.append(card.name)
        return len(calls)

    memo = memo_by_content(count)
    state = twin(ManufactoryState)()
    state.catalogue.append(MagicCard(name="frozen"))
    frozen = state.catalogue[0]
    assert is_frozen(frozen)
    assert memo(frozen) == memo(frozen) == 1
    loose = MagicCard(name="loose")
    assert not is_frozen(loose)
    assert memo(loose) == 2
    loose.name = "changed"  # not frozen: a change is seen
    assert memo(loose) == 3
    assert calls == ["frozen", "loose", "changed"]
