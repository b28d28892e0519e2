"""What every registered game must satisfy, as plain checks the tests (and anyone adding a game) can run.

`card_refs` finds every card a message shows: fields marked `[(manaforge.v1.card) = true]` in the schema hold card
ids, or card messages whose `id` is the card. `check_playout` plays one seeded random game and checks the
invariants of the Game protocol at every step; `check_texts` the words a player reads: distinct labels for the
actions of one decision, seats named only as "seat N", facts for every card shown, card notes only about the seat's
own visible cards and never depending on what the seat may not see.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from manaforge.v1 import common_pb2
from manaforge.v1.common_pb2 import Event, GameConfig

from engine_core import rng as _rng
from engine_core.errors import GameOverError, NotYourTurnError, RulesError
from engine_core.game import Game, visible_events
from engine_core.live import message
from engine_core.spaces import encoder_for

_CARD = common_pb2.card
T = TypeVar("T")


class Chooser:
    """Random choices for test playouts and fuzzing, drawn from the engine's own generator (seeded, no globals)."""

    def __init__(self, seed: int) -> None:
        self._rng = _rng.new_rng(seed ^ 0x5EED)

    def choice(self, items: Sequence[T]) -> T:
        return items[_rng.randbelow(self._rng, len(items))]

    def randrange(self, n: int) -> int:
        return _rng.randbelow(self._rng, n)

    def randint(self, low: int, high: int) -> int:
        return low + _rng.randbelow(self._rng, high - low + 1)

    def random(self) -> float:
        return _rng.next_u64(self._rng) / 2**64

    def uniform(self, low: float, high: float) -> float:
        return low + (high - low) * self.random()

    def sample(self, items: Sequence[T], k: int) -> list[T]:
        pool = list(items)
        _rng.shuffle(self._rng, pool)
        return pool[:k]


def _is_card_field(fd: FieldDescriptor) -> bool:
    opts = fd.GetOptions()
    return bool(opts.HasExtension(_CARD) and opts.Extensions[_CARD])


def card_refs(message: Message) -> set[int]:
    """Every card id that `message` shows, through its card-marked fields, at any depth."""
    found: set[int] = set()
    _collect(message, found)
    return found


def _collect(message: Message, found: set[int]) -> None:
    for fd, value in message.ListFields():
        is_card = _is_card_field(fd)
        repeated = fd.is_repeated
        values = list(value) if repeated else [value]
        if fd.type == FieldDescriptor.TYPE_MESSAGE:
            entry = fd.message_type
            if entry is not None and entry.GetOptions().map_entry:
                values = list(value.values())
                if entry.fields_by_name["value"].type != FieldDescriptor.TYPE_MESSAGE:
                    if is_card:
                        found.update(int(v) for v in values)
                    continue
            for item in values:
                if is_card and "id" in item.DESCRIPTOR.fields_by_name:
                    found.add(int(item.id))
                _collect(item, found)
        elif is_card:
            found.update(int(v) for v in values)


@dataclass
class PlayoutReport:
    actions: int = 0
    finished: bool = False
    log: list[tuple[int, bytes]] = field(default_factory=list)


class ConformanceError(AssertionError):
    pass


def _fail(game: Game[Any, Any], seed: int, step: int, what: str) -> ConformanceError:
    return ConformanceError(f"{game.info.name} seed {seed} step {step}: {what}")


def mutate(action: Message, rand: Chooser) -> Message:
    """A copy of `action` with one field set at random: the raw material of illegal actions."""
    copy = type(action)()
    copy.CopyFrom(action)
    target = copy
    fields: list[FieldDescriptor] = list(target.DESCRIPTOR.fields)  # type: ignore[arg-type]
    if not fields:
        return copy
    fd = rand.choice(fields)
    if fd.type == FieldDescriptor.TYPE_MESSAGE and not fd.is_repeated:
        inner = getattr(target, fd.name)
        inner_fields: list[FieldDescriptor] = list(inner.DESCRIPTOR.fields)
        if not inner_fields:
            target.ClearField(fd.name)
            return copy
        target, fd = inner, rand.choice(inner_fields)
    _randomize(target, fd, rand)
    return copy


def _random_scalar(fd: FieldDescriptor, rand: Chooser) -> Any:
    if fd.type == FieldDescriptor.TYPE_BOOL:
        return rand.random() < 0.5
    if fd.type == FieldDescriptor.TYPE_STRING:
        return rand.choice(["", "x", "<b>bold</b>", "a" * 5000, "\x00\x07", "Urza"])
    if fd.type == FieldDescriptor.TYPE_BYTES:
        return b"\x00" * rand.randint(0, 4)
    if fd.type == FieldDescriptor.TYPE_ENUM:
        return rand.choice([v.number for v in fd.enum_type.values]) if fd.enum_type else 0
    if fd.type in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return rand.uniform(-5, 50)
    unsigned = fd.type in (
        FieldDescriptor.TYPE_UINT32,
        FieldDescriptor.TYPE_UINT64,
        FieldDescriptor.TYPE_FIXED32,
        FieldDescriptor.TYPE_FIXED64,
    )
    return rand.choice([0, 1, 2, 3, 5, 7, 12, 40, 99, 1000]) if unsigned else rand.randint(-3, 60)


def _randomize(target: Message, fd: FieldDescriptor, rand: Chooser) -> None:
    if fd.type == FieldDescriptor.TYPE_MESSAGE:
        target.ClearField(fd.name)
        return
    if fd.is_repeated:
        values = getattr(target, fd.name)
        if values and rand.random() < 0.5:
            del values[rand.randrange(len(values))]
        else:
            values.append(_random_scalar(fd, rand))
        return
    setattr(target, fd.name, _random_scalar(fd, rand))


def check_playout(
    game: Game[Any, Any],
    seats: int,
    seed: int,
    options: dict[str, str] | None = None,
    *,
    full: bool = True,
    choose: Callable[[Chooser, list[Any]], Any] | None = None,
) -> PlayoutReport:
    """Play one seeded random game, checking the Game protocol's invariants at every step.

    full=False keeps the cheap checks (legal actions exist and apply, conservation, termination) and samples the
    expensive ones (views, fuzzed actions, round trips) on a few steps.
    """
    rand = Chooser(seed)
    config = GameConfig(game=game.info.name, seats=seats, options=options or {})
    state = game.new_game(config, seed)
    initial = game.new_game(config, seed)
    if state.SerializeToString(deterministic=True) != initial.SerializeToString(deterministic=True):
        raise _fail(game, seed, 0, "the same seed gave two different initial states")
    deck = sorted(game.cards(state))
    report = PlayoutReport()
    for step in range(game.info.max_actions + 1):
        deep = full or step % 37 == 0
        if deep:
            _check_views(game, state, seats, seed, step)
        if game.is_terminal(state):
            _check_finished(game, state, seats, seed, step)
            report.finished = True
            break
        pending = game.pending_seats(state)
        if not pending:
            raise _fail(game, seed, step, "the game is not over but no seat has a decision pending")
        seat = rand.choice(pending)
        legal = game.legal_actions(state, seat)
        if not legal:
            raise _fail(game, seed, step, f"seat {seat} is pending but has no legal action")
        if deep:
            check_texts(game, state, seat, legal, seed, step)
            _check_legal_apply(game, state, seat, legal, seed, step, rand)
            _check_out_of_turn(game, state, seats, pending, legal[0], seed, step)
            _check_fuzz(game, state, seat, legal, seed, step, rand)
        action = choose(rand, legal) if choose else rand.choice(legal)
        before = state.SerializeToString(deterministic=True)
        new_state, events = game.apply(state, seat, action)
        if state.SerializeToString(deterministic=True) != before:
            raise _fail(game, seed, step, "apply changed its input state")
        if deep:
            _check_events(game, new_state, events, seats, seed, step)
            _check_seat_words(game, (e.text for e in events), "an event", seed, step)
        state = new_state
        report.log.append((seat, action.SerializeToString(deterministic=True)))
        report.actions += 1
        if sorted(game.cards(state)) != deck:
            raise _fail(game, seed, step, f"cards not conserved after {game.describe(state, action)}")
    else:
        raise _fail(game, seed, game.info.max_actions, f"no end within {game.info.max_actions} actions")
    _check_replay(game, config, seed, report, state)
    return report


def _check_views(game: Game[Any, Any], state: Any, seats: int, seed: int, step: int) -> None:
    data = state.SerializeToString(deterministic=True)
    if game.state_from_bytes(data) != state:
        raise _fail(game, seed, step, "state does not survive a serialize/parse round trip")
    for seat in [None, *range(seats)]:
        view = game.view(state, seat)
        if view.header.HasField("rng"):
            raise _fail(game, seed, step, f"the view of seat {seat} holds the rng")
        shown = card_refs(view)
        leaked = shown & game.hidden_cards(state, seat)
        if leaked:
            raise _fail(game, seed, step, f"the view of seat {seat} shows hidden cards {sorted(leaked)}")
        check_view_texts(game, state, seat, view, shown, game.render(view, seat), seed, step)


# A seat in words is "seat N" and nothing else (clients put the seat's name in its place): no "wizard 0",
# "player 2", "Seat 1", "owner 3", "seat(s) [0, 1]".
SEAT_WORDS = re.compile(
    r"\b(?i:wizard|player|owner|controller|caster|designer|artist|writer|voter)s?\s*#?\d"
    r"|\b(?i:seats)\s*#?\d|\bseat(?:\s*#|\d|\s{2,}\d|\(s\)|s?\s*\[)|\b(?:Seat|SEAT)S?\s*#?\d"
)


_SUSPECT_WORDS = (
    "wizard",
    "player",
    "owner",
    "controller",
    "caster",
    "designer",
    "artist",
    "writer",
    "voter",
    "seats",
    "seat(",
    "seat[",
    "seat#",
    "seat  ",
    "seat #",
    "seat [",
)
_SEAT_DIGIT = re.compile(r"seat\d|Seat|SEAT")


def _suspect(text: str) -> bool:
    """Whether `text` may name a seat wrongly: a quick look before the full pattern (views are long)."""
    low = text.lower()
    return any(word in low for word in _SUSPECT_WORDS) or _SEAT_DIGIT.search(text) is not None


def seat_word_faults(text: str) -> list[str]:
    """The places where `text` names a seat other than as "seat N" (lower case, one space, a number)."""
    return [m.group(0) for m in SEAT_WORDS.finditer(text)]


def _check_seat_words(game: Game[Any, Any], texts: Iterable[str], what: str, seed: int, step: int) -> None:
    search = SEAT_WORDS.search
    for text in texts:
        if _suspect(text) and search(text):
            raise _fail(
                game, seed, step, f"{what} names a seat other than as 'seat N' ({seat_word_faults(text)}): {text!r}"
            )


def check_texts(game: Game[Any, Any], state: Any, seat: int, legal: list[Any], seed: int = 0, step: int = 0) -> None:
    """The words of one decision: the legal actions' labels are distinct and name seats as "seat N", and so does the
    prompt. (`_check_views` checks each view's words, card facts and card notes.)"""
    labels: dict[str, Any] = {}
    for action in legal:
        label = game.describe(state, action)
        if label in labels:
            raise _fail(game, seed, step, f"two legal actions of seat {seat} read {label!r}")
        labels[label] = action
    _check_seat_words(game, labels, "an action's label", seed, step)
    _check_seat_words(game, [game.header(state).pending.prompt], "the prompt", seed, step)


def check_view_texts(
    game: Game[Any, Any],
    state: Any,
    viewer: int | None,
    view: Any,
    shown: set[int],
    text: str,
    seed: int = 0,
    step: int = 0,
) -> None:
    """One view's words: its rendering names seats as "seat N"; every card it shows (`shown`) has facts; the
    viewer's card notes name seats as "seat N", concern only cards it sees, and are the same from its own view as
    from the whole state (they cannot depend on what the viewer may not see)."""
    if _suspect(text) and SEAT_WORDS.search(text):
        _check_seat_words(game, text.splitlines(), f"the view of seat {viewer}", seed, step)
    missing = shown - set(game.card_facts(view))
    if missing:
        raise _fail(game, seed, step, f"cards {sorted(missing)[:8]} shown to seat {viewer} have no facts")
    if viewer is None:
        return
    notes = game.card_notes(state, viewer)
    if not notes:
        if game.card_notes(view, viewer):
            raise _fail(game, seed, step, f"the card notes of seat {viewer} depend on what it may not see")
        return
    _check_seat_words(game, notes.values(), "a card note", seed, step)
    unseen = set(notes) - (shown - game.hidden_cards(state, viewer))
    if unseen:
        raise _fail(game, seed, step, f"card notes of seat {viewer} about cards it cannot see: {sorted(unseen)}")
    if game.card_notes(view, viewer) != notes:
        raise _fail(game, seed, step, f"the card notes of seat {viewer} depend on what it may not see")


def _check_events(game: Game[Any, Any], state: Any, events: list[Event], seats: int, seed: int, step: int) -> None:
    for seat in [None, *range(seats)]:
        shown: set[int] = set()
        for e in visible_events(events, seat):
            shown |= card_refs(e)
        leaked = shown & game.hidden_cards(state, seat)
        if leaked:
            raise _fail(game, seed, step, f"events seen by seat {seat} show hidden cards {sorted(leaked)}")


def _check_legal_apply(
    game: Game[Any, Any], state: Any, seat: int, legal: list[Any], seed: int, step: int, rand: Chooser
) -> None:
    sample = legal if len(legal) <= 24 else rand.sample(legal, 24)
    for action in sample:
        try:
            game.apply(state, seat, action)
        except RulesError as exc:
            raise _fail(game, seed, step, f"legal action {game.describe(state, action)!r} was refused: {exc}") from exc


def _check_out_of_turn(
    game: Game[Any, Any], state: Any, seats: int, pending: list[int], action: Any, seed: int, step: int
) -> None:
    for other in range(seats):
        if other in pending:
            continue
        if game.legal_actions(state, other):
            raise _fail(game, seed, step, f"seat {other} is not pending but has legal actions")
        try:
            game.apply(state, other, action)
        except NotYourTurnError:
            continue
        raise _fail(game, seed, step, f"seat {other} acted out of turn")


def _check_fuzz(
    game: Game[Any, Any], state: Any, seat: int, legal: list[Any], seed: int, step: int, rand: Chooser
) -> None:
    before = state.SerializeToString(deterministic=True)
    for _ in range(4):
        candidate = mutate(rand.choice(legal), rand)
        try:
            game.apply(state, seat, candidate)
        except RulesError as exc:
            if not str(exc):
                raise _fail(game, seed, step, "a refusal without a message") from exc
            continue
        finally:
            if state.SerializeToString(deterministic=True) != before:
                raise _fail(game, seed, step, "a refused action changed the state")
        if not game.info.free_text and candidate not in legal:
            raise _fail(game, seed, step, f"accepted an action not among the legal ones: {candidate}")


def _check_finished(game: Game[Any, Any], state: Any, seats: int, seed: int, step: int) -> None:
    outcome = game.outcome(state)
    if any(not 0 <= w < seats for w in outcome.winners):
        raise _fail(game, seed, step, f"winners out of range: {list(outcome.winners)}")
    for seat in range(seats):
        if game.legal_actions(state, seat):
            raise _fail(game, seed, step, "legal actions after the game ended")
    try:
        game.apply(state, 0, game.action_type())
    except GameOverError:
        return
    raise _fail(game, seed, step, "an action was accepted after the game ended")


def _check_replay(game: Game[Any, Any], config: GameConfig, seed: int, report: PlayoutReport, final: Any) -> None:
    state = game.new_game(config, seed)
    for seat, data in report.log:
        state, _ = game.apply(state, seat, game.action_from_bytes(data))
    if state.SerializeToString(deterministic=True) != final.SerializeToString(deterministic=True):
        raise _fail(game, seed, report.actions, "replaying the seed and actions gave a different final state")


def hidden_from(game: Game[Any, Any], state: Any, seat: int) -> list[int | None]:
    """The other seats (None: a spectator) that cannot tell which of its legal actions `seat` took: two actions
    that `seat` itself tells apart (its view, as rendered, differs) leave their view and the events they see the
    same. Empty when everyone sees the choice. A hidden choice (`Game.is_hidden_choice`) is one where this is not
    empty: a face-down card, a secret vote, a gift only the giver and receiver see."""
    outcomes = []
    for action in game.legal_actions(state, seat):
        after, events = game.apply(state, seat, action)
        outcomes.append((after, events, game.render(game.view(after, seat), seat)))
    blind: list[int | None] = []
    for other in [None, *(s for s in range(game.header(state).config.seats) if s != seat)]:
        seen: dict[tuple[bytes, ...], str] = {}
        for after, events, own in outcomes:
            key = (
                game.view(after, other).SerializeToString(deterministic=True),
                *(e.SerializeToString(deterministic=True) for e in visible_events(events, other)),
            )
            if seen.setdefault(key, own) != own:
                blind.append(other)
                break
    return blind


@dataclass
class SpacesReport:
    actions: int = 0
    finished: bool = False
    overflows: dict[str, int] = field(default_factory=dict)  # lists longer than their bound: path -> length
    shared: int = 0  # decisions where legal actions shared an index (games whose Spaces are not exact)


def check_spaces(
    game: Game[Any, Any], seats: int, seed: int, options: dict[str, str] | None = None, every: int = 1
) -> SpacesReport:
    """Play one seeded random game and check, every `every` steps, the game's spaces (engine_core.spaces): each
    legal action of the pending seat has an index in the action space, read from the seat's view (distinct indices
    where the game declares its spaces exact); each seat's observation is in range and shows exactly the cards its
    view shows (so never a card hidden from it), lists longer than their bound aside (reported)."""
    rand = Chooser(seed)
    config = game.check_config(GameConfig(game=game.info.name, seats=seats, options=options or {}))
    spaces = game.spaces(config)
    encoder = encoder_for(game, config)
    state = game.new_game(config, seed, live=True)
    report = SpacesReport()
    for step in range(game.info.max_actions + 1):
        if step % every == 0:
            for seat in range(seats):
                view = game.view(state, seat)
                overflows = encoder.overflows(view)
                for path, length in overflows.items():
                    report.overflows[path] = max(report.overflows.get(path, 0), length)
                indices, values = encoder.encode(view, seat)
                if any(not 0 <= i < encoder.size for i in indices):
                    raise _fail(game, seed, step, f"an observation index of seat {seat} is out of range")
                shown = encoder.cards_shown(indices, values)
                leaked = shown & game.hidden_cards(state, seat)
                if leaked:
                    raise _fail(game, seed, step, f"the observation of seat {seat} shows hidden cards {sorted(leaked)}")
                # card_refs reads set fields only: card id 0 in a plain int field is a default it cannot see
                if not overflows and shown - {0} != card_refs(message(view)) - {0}:
                    raise _fail(game, seed, step, f"the observation of seat {seat} does not show its view's cards")
        if game.is_terminal(state):
            report.finished = True
            break
        seat = rand.choice(game.pending_seats(state))
        legal = game.legal_actions(state, seat)
        if step % every == 0:
            view = game.view(state, seat)
            indices = [spaces.index(view, seat, action) for action in legal]
            if len(set(indices)) < len(indices):
                if spaces.exact:
                    raise _fail(game, seed, step, f"legal actions of seat {seat} share an action index")
                report.shared += 1
        state, _ = game.apply(state, seat, rand.choice(legal))
        report.actions += 1
    return report
