"""Live states (engine_core.live): twins serialize to the bytes of their messages, and every game plays the same on
live states as through protobuf messages (issue 16)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from manaforge.v1.common_pb2 import Event, GameConfig, Header, Pending
from manaforge.v1.games.blueprints_pb2 import BlueprintsPlayer
from manaforge.v1.games.magicka_pb2 import MagickaCast, MagickaState, MagickaTarget
from manaforge.v1.games.manufactory_pb2 import ManufactoryState

from engine_core import GAMES, Game
from engine_core import game as game_module
from engine_core.bots import ismcts
from engine_core.errors import InvalidConfigError
from engine_core.game import event
from engine_core.live import Twin, clone, is_untouched, twin
from engine_core.registry import find_game

LiveMagicka = twin(MagickaState)


def _bytes(message: Any) -> bytes:
    data: bytes = message.SerializeToString(deterministic=True)
    return data


def test_a_twin_serializes_to_its_messages_bytes_presence_included() -> None:
    header = Header(version=3)
    header.pending.SetInParent()  # present though empty: serialized as an empty field
    header.config.options["mode"] = "x"
    live = twin(Header).from_proto(header)
    assert _bytes(live) == _bytes(header)
    assert live.HasField("pending") and not live.HasField("outcome")
    assert live == header and live.to_proto() == header

    live.ClearField("pending")
    header.ClearField("pending")
    assert not live.HasField("pending")
    assert _bytes(live) == _bytes(header)

    live.outcome.finished = True  # writing a field makes a sub-message present, as in protobuf
    assert live.HasField("outcome")


def test_optional_scalars_keep_their_presence() -> None:
    player = twin(BlueprintsPlayer)()
    assert player.taken == 0 and not player.HasField("taken")
    player.taken = 0
    assert player.HasField("taken")
    assert _bytes(player) == _bytes(BlueprintsPlayer(taken=0))
    player.ClearField("taken")
    assert _bytes(player) == b""


def test_presence_is_asked_only_of_fields_that_have_it() -> None:
    with pytest.raises(ValueError, match="no field 'turn' with presence"):
        LiveMagicka().HasField("turn")


def test_repeated_messages_take_twins_and_messages_alike() -> None:
    state = LiveMagicka()
    state.creatures.add(number=1, attack=2)
    state.creatures.append(state.creatures[0].copy())
    state.beams.extend([MagickaState().beams.add(spell=4, target=MagickaTarget(seat=1))])
    assert all(isinstance(item, Twin) for item in [*state.creatures, *state.beams])
    assert [c.number for c in state.creatures] == [1, 1]
    assert state.beams[0].target.seat == 1 and state.beams[0].HasField("target")


def test_copies_share_nothing_but_the_catalogue_and_the_config() -> None:
    state = twin(ManufactoryState)()
    state.header.config.CopyFrom(GameConfig(game="manufactory", seats=2))
    state.catalogue.append(ManufactoryState().catalogue.add(name="Card"))
    state.players.add().groups.add(cards=[1, 2])
    copy = state.copy()
    copy.players[0].groups[0].cards.append(3)
    copy.belt.append(7)
    del copy.catalogue[:]
    assert state.players[0].groups[0].cards == [1, 2] and not state.belt and len(state.catalogue) == 1
    assert copy.header.config is state.header.config  # never changed once new_game has set it


def test_new_live_games_share_their_checked_config_and_the_record_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    game = find_game("manufactory")
    config = GameConfig(game="manufactory", seats=3)
    first, second = game.new_game(config, 1, live=True), game.new_game(config, 2, live=True)
    assert first.header.config is second.header.config  # made once: a live state's config never changes
    assert first.header.config == game.check_config(config)  # every option filled in, as new_game always did
    assert game.new_game(config, 1).header.config == game.check_config(config)  # the message path copies it in
    with pytest.raises(InvalidConfigError):
        game.new_game(GameConfig(game="manufactory", seats=9), 1, live=True)  # refused every time: not remembered

    monkeypatch.setattr(game_module, "LIVE_CONFIGS_LIMIT", 4)
    for seats in (2, 3, 4):
        for name in ("", "manufactory"):  # the config as given is the key: two spellings of one config
            game.new_game(GameConfig(game=name, seats=seats), 1, live=True)
            assert len(game_module._LIVE_CONFIGS) <= 4


def test_copy_from_and_clone_work_across_kinds() -> None:
    cast = twin(MagickaCast)()
    cast.CopyFrom(MagickaCast(caster=2, target=MagickaTarget(seat=1, creature=3), responders=[1]))
    assert cast.target.creature == 3 and cast.responders == [1] and cast._present()
    assert clone(cast) == cast and clone(cast) is not cast
    message = MagickaCast(spell=5)
    assert clone(message) == message and type(clone(message)) is MagickaCast
    empty = Pending()
    assert twin(Pending).from_proto(empty) == empty


def _random_config(game: Game[Any, Any], rand: random.Random) -> GameConfig:
    seats = rand.randint(game.info.min_seats, game.info.max_seats)
    options = {o.name: rand.choice(o.choices) for o in game.info.options if o.choices and rand.random() < 0.5}
    return GameConfig(game=game.info.name, seats=seats, options=options)


@pytest.mark.parametrize("game", GAMES, ids=[g.info.name for g in GAMES])
def test_live_states_play_exactly_as_messages(game: Game[Any, Any]) -> None:
    """The same random games, once through messages (converted at every call) and once on live states: the same
    state bytes, legal actions, events, views and renders at every step."""
    rand = random.Random(16)
    for _ in range(3):
        config, seed = _random_config(game, rand), rand.getrandbits(63)
        message, live = game.new_game(config, seed), game.new_game(config, seed, live=True)
        assert isinstance(live, Twin) and not isinstance(message, Twin)
        for step in range(300):
            assert _bytes(live) == _bytes(message)
            if game.is_terminal(message):
                break
            seat = rand.choice(game.pending_seats(message))
            legal = game.legal_actions(message, seat)
            assert [_bytes(a) for a in game.legal_actions(live, seat)] == [_bytes(a) for a in legal]
            if step % 5 == 0:
                for viewer in [None, *range(config.seats)]:
                    view, live_view = game.view(message, viewer), game.view(live, viewer)
                    assert _bytes(live_view) == _bytes(view)
                    assert game.render(live_view, viewer) == game.render(view, viewer)
            action = rand.choice(legal)
            message, events = game.apply(message, seat, action)
            live, live_events = game.apply(live, seat, action)
            assert [_bytes(e) for e in live_events] == [_bytes(e) for e in events]
        assert isinstance(live, Twin) and not isinstance(message, Twin)


@pytest.mark.parametrize("game", GAMES, ids=[g.info.name for g in GAMES])
def test_live_states_that_share_parts_never_change_each_other(game: Game[Any, Any]) -> None:
    """Games may let a live state share parts with the state it was made from (copy on write): `apply` then never
    changes its input, and every earlier state still plays on exactly as its message does, whatever its successors
    did (a bot's search branches from one state many times)."""
    rand = random.Random(61)
    for _ in range(3):
        config, seed = _random_config(game, rand), rand.getrandbits(63)
        history = [(game.new_game(config, seed), game.new_game(config, seed, live=True))]
        for _step in range(250):
            message, live = history[-1]
            if game.is_terminal(message):
                break
            seat = rand.choice(game.pending_seats(message))
            action = rand.choice(game.legal_actions(message, seat))
            before = _bytes(live)
            next_live, _ = game.apply(live, seat, action)
            assert _bytes(live) == before, "apply changed its input state"
            history.append((game.apply(message, seat, action)[0], next_live))
            # branch from an earlier state: it must still be exactly its message
            old_message, old_live = history[rand.randrange(len(history))]
            assert _bytes(old_live) == _bytes(old_message)
            if not game.is_terminal(old_message):
                seat = rand.choice(game.pending_seats(old_message))
                action = rand.choice(game.legal_actions(old_message, seat))
                branch, _ = game.apply(old_live, seat, action)
                branch_message = game.apply(old_message, seat, action)[0]
                # then on in place, as a bot's search steps its worlds (ismcts.step): now and then for longer, so
                # that a part the branch took earlier changes again in place (a ManaSurge hand played out)
                for _ in range(40 if _step % 5 == 0 else 3):
                    assert _bytes(branch) == _bytes(branch_message)
                    if game.is_terminal(branch_message):
                        break
                    seat = rand.choice(game.pending_seats(branch_message))
                    action = rand.choice(game.legal_actions(branch_message, seat))
                    ismcts.step(game, branch, seat, action)
                    branch_message = game.apply(branch_message, seat, action)[0]
                assert _bytes(branch) == _bytes(branch_message)
                assert _bytes(old_live) == _bytes(old_message)
        for message, live in history:
            assert _bytes(live) == _bytes(message)


@pytest.mark.parametrize(
    "fields", [{}, {"actor": 0}, {"audience": 2, "cards": [3, 4]}, {"actor": 1, "audience": 0, "cards": (5,)}]
)
def test_events_are_the_twins_their_constructor_makes(fields: dict[str, Any]) -> None:
    made, constructed = event("T", "text", **fields), twin(Event)(type="T", text="text", **fields)
    assert type(made) is type(constructed) and made == constructed and _bytes(made) == _bytes(constructed)
    assert [made.HasField(name) for name in ("actor", "audience")] == [
        constructed.HasField(name) for name in ("actor", "audience")
    ]


def test_a_cleared_field_is_empty_and_of_its_kind() -> None:
    state = twin(ManufactoryState)()
    state.catalogue.append(ManufactoryState().catalogue.add(name="Card"))
    state.players.add()
    state.belt.append(3)
    for name in ("catalogue", "players", "belt"):
        kind = type(getattr(state, name))
        state.ClearField(name)
        assert getattr(state, name) == [] and type(getattr(state, name)) is kind
    assert _bytes(state) == b""


def _midgame(name: str, seats: int, seed: int, until: Callable[[Any, int], bool]) -> Any:
    """A live state of random play, from the first one (after so many steps) that `until(state, steps)` accepts."""
    game = find_game(name)
    rand = random.Random(seed)
    state = game.new_game(GameConfig(game=name, seats=seats), seed, live=True)
    steps = 0
    while not until(state, steps):
        seat = rand.choice(game.pending_seats(state))
        state, _ = game.apply(state, seat, rand.choice(game.legal_actions(state, seat)))
        steps += 1
    return state


def _manasurge_midgame(seed: int = 5) -> Any:
    return _midgame("manasurge", 3, seed, lambda state, _: len(state.table) >= 2)


def test_a_step_copy_shares_the_named_items_and_parts_and_copies_the_rest() -> None:
    from engine_core.games.manasurge import sharing as rules

    state = _manasurge_midgame()
    before = _bytes(state)
    copied = rules.step_copy(state)
    assert _bytes(copied) == before
    assert all(a is b for a, b in zip(copied.players, state.players, strict=True))
    assert all(a is b for a, b in zip(copied.table, state.table, strict=True))
    assert copied.header.rng is state.header.rng and copied.header.pending is state.header.pending
    assert copied.header is not state.header and copied.deck is not state.deck and copied.deck == state.deck
    assert copied.players is not state.players  # the lists are the states' own: only their items are shared

    assert is_untouched(copied.players)  # every player still the one `state` holds
    player = rules.own_player(copied, 1)  # taken once, then the state's own
    assert player is not state.players[1] and rules.own_player(copied, 1) is player
    assert not is_untouched(copied.players)
    player.hand.clear()
    player.stones += 5
    assert _bytes(state) == before  # the state it came from never sees the change
    assert rules.own_player(state, 1) is not player  # ... and takes its own copy before changing its own

    message = state.to_proto()
    assert rules.own_player(message, 0) is message.players[0]  # a protobuf message owns its parts
    assert not is_untouched(message.players) and not is_untouched(state.copy().players)


def test_shared_items_forget_what_they_owned_when_items_move() -> None:
    from engine_core.games.manasurge import sharing as rules

    copied = rules.step_copy(_manasurge_midgame())
    first = rules.own_played(copied, 0)
    assert copied.table.owned == 1
    del copied.table[0]  # a removal moves the items: every one counts as shared again
    assert copied.table.owned == 0
    assert rules.own_played(copied, 0) is not first


def _magicka_midgame(seed: int = 7) -> Any:
    return _midgame("magicka", 2, seed, lambda _, steps: steps == 30)


def test_a_step_copy_shares_the_decks_and_piles_until_a_rule_takes_one() -> None:
    from engine_core.games.magicka import sharing

    state = _magicka_midgame()
    before = _bytes(state)
    copied = sharing.step_copy(state)
    assert all(getattr(copied, name) is getattr(state, name) for name in sharing.PILES)
    deck = sharing.own_pile(copied, "element_deck")  # taken once, then the copy's own
    assert deck is not state.element_deck and deck == state.element_deck
    assert sharing.own_pile(copied, "element_deck") is deck
    deck.pop()
    assert _bytes(state) == before  # the state it came from never sees the change
    assert sharing.own_pile(state, "element_deck") is not deck  # ... and takes its own before changing it
    again = sharing.step_copy(copied)  # a pile the copy owns is shared on by the next copy, not copied again
    assert again.element_deck is deck and sharing.own_pile(again, "element_deck") is not deck

    message = state.to_proto()
    assert sharing.own_pile(message, "spell_discard") is message.spell_discard  # a message owns its fields
    fresh = state.copy()
    assert sharing.own_pile(fresh, "spell_deck") is fresh.spell_deck  # so does a full copy


def test_step_copier_refuses_a_field_the_message_lacks() -> None:
    from engine_core.live import step_copier

    with pytest.raises(TypeError, match="no field"):
        step_copier(LiveMagicka, items=("wizzards",))
    with pytest.raises(TypeError, match="no field"):
        step_copier(LiveMagicka, share=("header.rngg",))
    with pytest.raises(TypeError, match="no field wizards"):
        step_copier(LiveMagicka, lists=("wizards",))  # shared lists are of scalars: wizards are items
    with pytest.raises(TypeError, match="no field decks"):
        step_copier(LiveMagicka, lists=("decks",))


def test_a_live_states_pending_decision_outcome_and_rng_are_replaced_not_changed() -> None:
    from engine_core.game import finish, set_pending
    from engine_core.live import own_part

    state = _manasurge_midgame()
    pending, outcome, rng = state.header.pending, state.header.outcome, state.header.rng
    kept = (_bytes(pending), _bytes(outcome), _bytes(rng))
    set_pending(state, [2], prompt="next")
    finish(state, [1], [3.0, 4.0, 1.0], "done")
    drawn = own_part(state, "rng")
    drawn.counter += 1
    assert (_bytes(pending), _bytes(outcome), _bytes(rng)) == kept  # a step copy sharing them sees no change
    assert list(state.header.outcome.winners) == [1] and state.header.outcome.finished
    assert state.header.rng is drawn and rng is not drawn

    message = state.to_proto()
    assert own_part(message, "rng") is message.header.rng
    set_pending(message, [0], prompt="again")
    assert list(message.header.pending.seats) == [0]
