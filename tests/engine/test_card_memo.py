"""memo_by_content: card facts remembered per card content are exact, whatever the cards (engine speed, issue 16)."""

from __future__ import annotations

from manaforge.v1.cards_pb2 import MagicCard

from engine_core.cards import memo_by_content


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
