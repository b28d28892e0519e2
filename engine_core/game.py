"""The Game protocol every engine implements, and the helpers games share.

A game is a `Game` subclass in its own folder under `engine_core/games/`. Its state is the protobuf message
`<Name>State` whose field 1 is the common `Header` (config, version, rng, pending decision, outcome); its actions
are `<Name>Action` messages. The base class does the bookkeeping every game shares (config and options, turn
checks, copying, version, views without the rng) and calls the game's hooks, which only handle the case where the
game is in progress and the seat may act:

    _setup(state)                        deal, shuffle, set the first pending decision
    _legal_actions(state, seat)          every action the seat may take now
    _apply(state, seat, action)          validate (raise IllegalActionError naming the rule), mutate, return events
    _redact(view, seat)                  remove what `seat` (None: a spectator) may not see
    describe(state, action)              one line of plain text for an action: distinct among one decision's
                                         legal actions, seats named only as "seat N", "at yourself" when it aims
                                         at the acting seat
    render(view, seat)                   a view as plain text for the terminal
    _catalogue(config)                   what every designed card does (CardFacts), from the game's card definitions
    card_notes(state, seat)              why each of the seat's own cards that no legal action uses cannot be used

plus, for the conformance tests: `cards(state)` (every card id, wherever it is) and `hidden_cards(state, seat)`;
and, for research environments (envs/), `spaces(config)`: the fixed action space (engine_core.spaces).
`apply` never mutates its input: it works on a copy, so a rejected action leaves the state untouched.

Live states (engine_core.live): a plain-Python twin of the state message, with the same fields and the same protobuf
API, at plain-Python speed. Protobuf stays at the edges: `new_game` and `state_from_bytes` give messages, and `apply`,
`view` and `legal_actions` take either kind and give back the kind they were given. The hooks are written against
the protobuf API only, so the same code runs on both: on messages for the services (one move at a time, no
conversion: a `CopyFrom` as always), on twins for playouts, which convert once (`new_game(..., live=True)` or
`live(state)`; `message(state)` gives the message again). tests/engine/test_live.py plays every game both ways.
"""

from __future__ import annotations

import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from math import exp
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Final, Generic, Protocol, TypeVar

from google.protobuf.any_pb2 import Any as AnyMessage
from google.protobuf.message import DecodeError, Message
from manaforge.v1.cards_pb2 import MagicCard
from manaforge.v1.common_pb2 import BoardSquare, CardFacts, DecisionKind, Event, GameConfig, Header, Outcome, Rng

from engine_core.errors import (
    GameOverError,
    InvalidConfigError,
    MalformedActionError,
    NotYourTurnError,
)
from engine_core.live import Twin, message, twin
from engine_core.rng import new_rng

if TYPE_CHECKING:
    from engine_core.budget import Budgets
    from engine_core.spaces import Spaces

TURN = DecisionKind.DECISION_KIND_TURN
RESPONSE = DecisionKind.DECISION_KIND_RESPONSE
SIMULTANEOUS = DecisionKind.DECISION_KIND_SIMULTANEOUS


class GameState(Protocol):
    """What every game's state message has: the common header as field 1."""

    @property
    def header(self) -> Header: ...


S = TypeVar("S", bound=Message)
A = TypeVar("A", bound=Message)


@dataclass(frozen=True)
class Option:
    """A named variant option. Values travel as strings (`GameConfig.options`)."""

    name: str
    default: str
    choices: tuple[str, ...] = ()
    description: str = ""

    def parse(self, value: str) -> str:
        if self.choices and value not in self.choices:
            raise InvalidConfigError(
                f"option {self.name}", f"{value!r} is not one of {', '.join(self.choices)} ({self.description})"
            )
        return value


@dataclass(frozen=True)
class FreeText:
    """A free-text field an action carries (`GameInfo.free_text`): where it lies in the action, what a client asks
    for, its limits in words, and the rules' own check (raises IllegalActionError naming the limit)."""

    path: tuple[str, ...]  # field names from the action down to the string
    what: str  # "the card's name"
    limits: str  # "up to 30 characters"
    check: Callable[[str], None]
    lines: int = 1  # more than 1: asked line by line


@dataclass(frozen=True)
class FreeTextForm:
    """What a client asks before it sends an action that carries free text: the choice's label and the fields."""

    label: str  # the choice as offered before the texts are written ("draw the art")
    fields: tuple[FreeText, ...]


@dataclass(frozen=True)
class GameInfo:
    """Static facts about a game."""

    name: str  # registry name, lower_snake_case
    title: str
    min_seats: int
    max_seats: int
    description: str = ""
    options: tuple[Option, ...] = ()
    max_actions: int = 20_000  # every game ends within this many actions (checked by the conformance tests)
    free_text: bool = False  # actions carry free text: legal_actions lists examples, not every accepted action
    extra: Mapping[str, str] = field(default_factory=dict)

    def option(self, name: str) -> Option:
        for option in self.options:
            if option.name == name:
                return option
        raise InvalidConfigError("options", f"{self.title} has no option {name!r}")


class Game(ABC, Generic[S, A]):
    """A rules engine: pure functions over protobuf states. Subclasses set the class attributes and hooks."""

    info: ClassVar[GameInfo]
    state_type: type[S]
    action_type: type[A]
    bot_budget: ClassVar[Budgets | None] = None  # the ismcts level's settings, or by seat count (`make arena`)
    live_states: ClassVar[bool] = True  # the rules run on plain-Python twins of the state message (engine_core.live)
    live_type: ClassVar[type[Any] | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.live_states:
            cls.live_type = twin(cls.state_type)

    # ----- the public API -------------------------------------------------------------------------------------

    def new_game(self, config: GameConfig, seed: int, *, live: bool = False) -> S:
        """A new game from a config (seat count, options) and a seed (chosen by the server): the protobuf message,
        or with `live` the engine's live state (for playouts: bots, benches)."""
        state = self.live_type() if self.live_type is not None else self.state_type()
        header: Any = self.header(state)
        if type(header) is _LiveHeader:
            header.config = self._live_config(config)
        else:
            header.config.CopyFrom(self.check_config(config))
        header.rng.CopyFrom(new_rng(seed))
        self._setup(state)
        return state if live else self.message(state)

    def _live_config(self, config: GameConfig) -> Any:
        """The checked config of a live state: made once per game and config, and shared by every state that uses it
        (a live state's config is never changed once set: engine_core.live.FROZEN)."""
        key = (self.info.name, config.SerializeToString(deterministic=True))
        found = _LIVE_CONFIGS.get(key)
        if found is None:
            if len(_LIVE_CONFIGS) >= LIVE_CONFIGS_LIMIT:
                _LIVE_CONFIGS.clear()
            found = _LIVE_CONFIGS[key] = _LiveConfig.from_proto(self.check_config(config))
        return found

    def check_config(self, config: GameConfig) -> GameConfig:
        """The config with every option filled in; InvalidConfigError when it cannot be played."""
        info = self.info
        if config.game and config.game != info.name:
            raise InvalidConfigError("game", f"config names {config.game!r}, not {info.name!r}")
        if not info.min_seats <= config.seats <= info.max_seats:
            raise InvalidConfigError(
                "player count", f"{info.title} is for {info.min_seats}-{info.max_seats} players, not {config.seats}"
            )
        checked = GameConfig(game=info.name, seats=config.seats)
        for name in config.options:
            info.option(name)  # unknown option names are refused
        for option in info.options:
            checked.options[option.name] = option.parse(config.options.get(option.name, option.default))
        return checked

    def legal_actions(self, state: S, seat: int) -> list[A]:
        """Every action `seat` may take now; empty when it is not the seat's decision or the game is over."""
        header = state.header  # type: ignore[attr-defined]
        if header.outcome.finished or seat not in header.pending.seats:
            return []
        return self._legal_actions(state, seat)  # read-only: a message is read as it is, without converting it

    def apply(self, state: S, seat: int, action: A) -> tuple[S, list[Event]]:
        """The state after `seat` takes `action`, and the events it caused. `state` itself is never changed.

        A live state gives a live state and live events, a message gives a message and `Event` messages."""
        header = state.header  # type: ignore[attr-defined]
        if header.outcome.finished:
            raise GameOverError()
        if seat not in header.pending.seats:
            raise NotYourTurnError(seat, list(header.pending.seats))
        if not isinstance(action, self.action_type):
            raise MalformedActionError(
                "action type", f"{self.info.title} takes {self.action_type.DESCRIPTOR.full_name} actions"
            )
        live = type(state) is self.live_type
        new = self.step_copy(state) if live else self.copy(state)
        events = self._apply(new, seat, action)
        new_header = new.header  # type: ignore[attr-defined]
        version = new_header.version = new_header.version + 1
        for event in events:
            event.version = version
        if live:
            return new, events
        return new, [message(event) for event in events]  # the rules make events as twins

    def step_copy(self, state: S) -> S:
        """The copy `apply` makes of a live state before the rules change it. A game whose rules copy a part on
        write (they make it the state's own before changing it) shares the other parts here."""
        return self.copy(state)

    def view(self, state: S, seat: int | None) -> S:
        """What `seat` may see (None: a spectator). The only way a state leaves the server. A live state gives a
        live view (for bots' playouts), a message a message (redacted as it is, without converting it)."""
        view = self.copy(state)
        self.header(view).ClearField("rng")
        self._redact(view, seat)
        return view

    def outcome(self, state: S) -> Outcome:
        return self.header(state).outcome

    def is_terminal(self, state: S) -> bool:
        return state.header.outcome.finished  # type: ignore[attr-defined, no-any-return]

    def pending_seats(self, state: S) -> list[int]:
        header = state.header  # type: ignore[attr-defined]
        return [] if header.outcome.finished else header.pending.seats[:]  # a slice: half the cost of list()

    @staticmethod
    def header(state: Message) -> Header:
        return state.header  # type: ignore[attr-defined, no-any-return]

    def copy(self, state: S) -> S:
        if isinstance(state, Twin):
            copied: S = state.copy()
            return copied
        new = self.state_type()
        new.CopyFrom(state)
        return new

    def live(self, state: S) -> S:
        """The engine's live state for a message (a new object), or the state itself when it is live already, or
        the message itself for a game without live states."""
        if self.live_type is None or isinstance(state, Twin):
            return state
        made: S = self.live_type.from_proto(state)
        return made

    def message(self, state: S) -> S:
        """The protobuf message of a state (a new message for a live state)."""
        return message(state)

    # ----- parse/format pairs -----------------------------------------------------------------------------------

    def state_from_bytes(self, data: bytes) -> S:
        state: S = self._parse(self.state_type, data, "state")
        return state

    def action_from_bytes(self, data: bytes) -> A:
        action: A = self._parse(self.action_type, data, "action")
        return action

    def action_from_any(self, packed: AnyMessage) -> A:
        if packed.TypeName() != self.action_type.DESCRIPTOR.full_name:
            raise MalformedActionError(
                "action type",
                f"{self.info.title} takes {self.action_type.DESCRIPTOR.full_name}, not {packed.TypeName()}",
            )
        return self.action_from_bytes(packed.value)

    def state_from_any(self, packed: AnyMessage) -> S:
        if packed.TypeName() != self.state_type.DESCRIPTOR.full_name:
            raise MalformedActionError("state type", f"expected {self.state_type.DESCRIPTOR.full_name}")
        return self.state_from_bytes(packed.value)

    @staticmethod
    def _parse(message_type: type[Any], data: bytes, what: str) -> Any:
        try:
            return message_type.FromString(data)
        except DecodeError as exc:
            raise MalformedActionError(f"{what} encoding", f"not a valid {message_type.DESCRIPTOR.full_name}") from exc

    # ----- hooks ------------------------------------------------------------------------------------------------

    @abstractmethod
    def _setup(self, state: S) -> None:
        """Deal and set the first pending decision. Options are in `options(state)`, randomness in the header rng."""

    @abstractmethod
    def _legal_actions(self, state: S, seat: int) -> list[A]:
        """Every legal action; called only while the game runs and `seat` is pending."""

    @abstractmethod
    def _apply(self, state: S, seat: int, action: A) -> list[Event]:
        """Validate and apply in place; called only while the game runs and `seat` is pending."""

    @abstractmethod
    def _redact(self, view: S, seat: int | None) -> None:
        """Remove in place what `seat` may not see (the rng is already gone)."""

    @abstractmethod
    def describe(self, state: S, action: A) -> str:
        """One line of plain text for an action, as a player would say it."""

    @abstractmethod
    def render(self, view: S, seat: int | None) -> str:
        """A view as plain text, for the terminal client and golden playthroughs."""

    # ----- what the cards do (GetCatalogue, SeatView.card_notes) -------------------------------------------------

    def catalogue(self, config: GameConfig) -> list[CardFacts]:
        """What every card the game can show under `config` does, by id (ascending): the game's `_catalogue`, made
        once per game and options and shared (never change the messages). The seat count may be 0 (any count)."""
        checked = self.check_config(
            GameConfig(game=config.game, seats=config.seats or self.info.min_seats, options=config.options)
        )
        key = (self.info.name, tuple(sorted(checked.options.items())))
        found = _CATALOGUES.get(key)
        if found is None:
            if len(_CATALOGUES) >= LIVE_CONFIGS_LIMIT:
                _CATALOGUES.clear()
            found = _CATALOGUES[key] = sorted(self._catalogue(checked), key=_by_id)
        return found

    def _catalogue(self, config: GameConfig) -> list[CardFacts]:
        """Every designed card's facts under the checked `config` (default: none). A booster game's Magic cards are
        dealt by the seed and carry their facts in the view (`card_facts`), so they are not listed here."""
        return []

    def board(self, config: GameConfig) -> list[BoardSquare]:
        """The squares of the game's board, by id (ascending), for a client that draws it (GetCatalogue): name,
        effect, the track each lies on and where a pawn walks from it. Default: none (a game without a board)."""
        return []

    def card_facts(self, view: S) -> dict[int, CardFacts]:
        """The facts of every card `view` can show, by id: the catalogue's, and each MagicCard the view holds."""
        facts = {card.id: card for card in self.catalogue(self.header(view).config)}
        for magic in magic_cards(view):
            facts[magic.id] = magic_card_facts(magic)
        return facts

    def how_to_play(self) -> str:
        """The game explained for a new player (markdown): HOW_TO_PLAY.md in the game's folder (`GameInfo`)."""
        name = self.info.name
        found = _HOW_TO_PLAY.get(name)
        if found is None:
            path = Path(sys.modules[type(self).__module__].__file__ or "").with_name("HOW_TO_PLAY.md")
            found = _HOW_TO_PLAY[name] = path.read_text(encoding="utf-8") if path.is_file() else ""
        return found

    def card_notes(self, state: S, seat: int, legal: list[A] | None = None) -> dict[int, str]:
        """For `seat`'s own cards that no legal action uses now: why not, in a few plain words ("needs Fire and
        Fire", "only in answer to a die roll", "not your turn"), by card id. Only what `seat` may know: a note never
        depends on another seat's hidden cards (the conformance suite checks it). `legal`: the seat's legal actions
        when the caller has them already (a view update lists them anyway). Default: none."""
        return {}

    def free_text(self, action: A) -> FreeTextForm | None:
        """The free texts `action` carries (a game with `GameInfo.free_text`), for a client to ask its player before
        sending it: a legal action of such a game is an example, its texts to be written. None: no free text."""
        return None

    def timeout_action(self, state: S, seat: int) -> A | None:
        """The action taken for a pending seat that does not answer in time (e.g. pass in a response window).

        None: the decision waits for the seat. The gateway schedules a server-side timer whenever this is not None.
        """
        return None

    # ----- bot hooks (engine_core.bots) --------------------------------------------------------------------------

    def sample_world(self, view: S, seat: int, rng: Rng) -> S:
        """A full state consistent with `seat`'s view, for ISMCTS: every card hidden from the seat dealt again at
        random (with `rng`) from the cards the seat has not seen, hidden choices of others filled in plausibly, and a
        fresh header rng drawn from `rng`. It must conserve cards (same `cards()` multiset as the true state) and
        play to the end. Never reads anything but `view`."""
        raise NotImplementedError(f"{self.info.name} has no sample_world")

    def heuristic_action(self, view: S, seat: int, legal: list[A], rng: Rng) -> A:
        """The `heuristic` bot level: a fast hand-written strategy over the seat's view and legal actions."""
        raise NotImplementedError(f"{self.info.name} has no heuristic bot")

    def is_hidden_choice(self, view: S, seat: int) -> bool:
        """Whether `seat`'s decision now is one the others cannot see until it is revealed (a face-down card, a
        secret vote, a gift only the giver and the receiver see) or take at the same time (a simultaneous decision),
        read from the seat's view. Bots draw such a choice from a mixed strategy (`engine_core.bots.hidden`), so that
        nothing a client sees predicts it. Default: a simultaneous decision. A game whose other decisions hide the
        choice says so here; the bots' tests find every decision whose choice another seat cannot tell apart
        (`conformance.hidden_from`) and check that the game says so."""
        return self.header(view).pending.kind == SIMULTANEOUS

    def choice_ratings(self, view: S, seat: int, legal: list[A]) -> list[float]:
        """The heuristic's rating of each legal action at a hidden choice (`is_hidden_choice`), higher better, in
        units of a clear preference: the heuristic draws from a quantal response over them, never an action rated
        more than 4 below the best (`engine_core.bots.hidden`). Needed by every game with a heuristic and hidden
        choices (the bots' tests check it); without it a bot makes a hidden choice at random."""
        raise NotImplementedError(f"{self.info.name} has no choice_ratings")

    def evaluate(self, state: S) -> list[float]:
        """A static evaluation for bots: each seat's estimated chance of winning from the full `state` (one value per
        seat in [0, 1], summing to about 1). ISMCTS cuts its playouts short and backs this up where a game has it."""
        raise NotImplementedError(f"{self.info.name} has no static evaluation")

    @staticmethod
    def win_chances(strengths: Sequence[float], scale: float) -> list[float]:
        """Softmax of each seat's strength: a lead of `scale` makes a seat about e times as likely to win."""
        best = max(strengths)
        weights = [exp((strength - best) / scale) for strength in strengths]
        total = sum(weights)
        return [weight / total for weight in weights]

    # ----- environments (envs/: PettingZoo, OpenSpiel; engine_core.spaces) ---------------------------------------

    def spaces(self, config: GameConfig) -> Spaces:
        """The game's fixed action space at `config` (named parts of numbered actions, and where each legal action
        lies in it, read from the seat's view and the action alone), and the bounds of its views' lists beyond the
        seat count. The observation is derived from the state's schema (engine_core.spaces.ViewEncoder)."""
        raise NotImplementedError(f"{self.info.name} has no action space")

    def card_count(self, config: GameConfig) -> int:
        """How many card ids a game at `config` has (they are 0 .. n-1): read from a new game."""
        return max(self.cards(self.new_game(config, 0, live=True)), default=-1) + 1

    def cards(self, state: S) -> list[int]:
        """Every card id of the game, wherever it lies (hands, decks, piles, play). Conserved by every action."""
        return []

    def hidden_cards(self, state: S, seat: int | None) -> set[int]:
        """Card ids `seat` may not see now (other hands, decks, face-down cards)."""
        return set()


# ----- helpers for games ------------------------------------------------------------------------------------------


_LiveEvent: Any = twin(Event)
_LiveHeader: Any = twin(Header)
_LivePending: Any = _LiveHeader._messages["pending"]
_LiveOutcome: Any = _LiveHeader._messages["outcome"]
_new = object.__new__
_LiveConfig: Any = _LiveHeader._messages["config"]
_LIVE_CONFIGS: dict[tuple[str, bytes], Any] = {}  # (game, config bytes) -> its checked, frozen twin
LIVE_CONFIGS_LIMIT = 1 << 10  # configs kept before the record starts again (a config is the client's to choose)


_HOW_TO_PLAY: dict[str, str] = {}
_CATALOGUES: dict[tuple[str, tuple[tuple[str, str], ...]], list[CardFacts]] = {}


def _by_id(facts: CardFacts) -> int:
    return facts.id


def magic_cards(message: Message) -> list[MagicCard]:
    """Every MagicCard a state or view holds in its top-level repeated fields (the booster games' faces)."""
    found: list[MagicCard] = []
    for fd, value in message.ListFields():
        if fd.message_type is MagicCard.DESCRIPTOR and fd.is_repeated:
            found += value
    return found


def magic_card_facts(card: MagicCard) -> CardFacts:
    """A Magic card's facts, as a booster game shows them: its type line, mana cost and rules text."""
    power = f" ({card.power}/{card.toughness})" if card.power or card.toughness else ""
    colours = [_COLOUR_NAMES.get(c, c) for c in card.colors] or ["colorless"]
    return CardFacts(
        id=card.id,
        name=card.name,
        kind="Magic card",
        cost=card.mana_cost,
        effect=(card.type_line + power + (f": {card.text}" if card.text else "")).strip(),
        timing="",
        tags=[tag for tag in (*colours, f"mana value {card.mana_value}", card.rarity, "foil" * card.foil) if tag],
    )


_COLOUR_NAMES: Final = {"W": "white", "U": "blue", "B": "black", "R": "red", "G": "green"}


def options(state: GameState) -> Mapping[str, str]:
    return state.header.config.options


def seat_count(state: GameState) -> int:
    return state.header.config.seats


def set_pending(state: GameState, seats: Iterable[int], kind: DecisionKind.ValueType = TURN, prompt: str = "") -> None:
    """The decision the game waits for. A live state gets a new pending decision (its step copies may share the
    old one: engine_core.live.step_copier); a message's is written in place."""
    header: Any = state.header
    if type(header) is _LiveHeader:
        pending = header.pending = _new(_LivePending)
        pending._set = True  # as SetInParent
        pending.seats = list(seats)
        pending.kind = kind
        pending.prompt = prompt
        return
    pending = header.pending
    pending.SetInParent()  # as writing its fields would in protobuf, even when they are all defaults
    pending.seats[:] = seats
    pending.kind = kind
    pending.prompt = prompt


def finish(state: GameState, winners: Sequence[int], scores: Sequence[float] = (), reason: str = "") -> None:
    """The game's end. As with `set_pending`, a live state gets a new outcome."""
    header: Any = state.header
    if type(header) is _LiveHeader:
        header.outcome = _LiveOutcome()
    outcome = header.outcome
    outcome.finished = True
    outcome.winners[:] = winners
    outcome.scores[:] = scores
    outcome.reason = reason
    set_pending(state, [], DecisionKind.DECISION_KIND_UNSPECIFIED, "")


def event(
    type_: str, text: str, *, actor: int | None = None, audience: int | None = None, cards: Iterable[int] = ()
) -> Event:
    """A past-tense event. `audience` None: public; otherwise private to that seat.

    The rules make events as twins (engine_core.live), half the cost of an `Event` message; `apply` converts them
    into messages at the edge, with the state. A step makes one or more, so the twin's slots are filled here
    directly, without the keyword arguments of its constructor (the same twin: tests/engine/test_live.py)."""
    made = _new(_LiveEvent)
    made._set = False
    made.type = type_
    made._actor = actor  # proto3 optional fields: None when absent (engine_core.live)
    made._audience = audience
    made.text = text
    made.cards = list(cards)
    made.seq = 0
    made.version = 0
    return made  # type: ignore[no-any-return]


def visible_events(events: Iterable[Event], seat: int | None) -> list[Event]:
    """The events `seat` may see: public ones and its own (a spectator: public only)."""
    return [e for e in events if not e.HasField("audience") or (seat is not None and e.audience == seat)]


def seat_name(seat: int) -> str:
    return f"seat {seat}"


def seats_text(seats: Iterable[int]) -> str:
    """Seats in words, each as "seat N" (clients put names there): "seat 0", "seat 0 and seat 2", "seat 0, seat 1
    and seat 2"; empty for none."""
    named = [f"seat {seat}" for seat in seats]
    return " and ".join(named) if len(named) < 3 else ", ".join(named[:-1]) + " and " + named[-1]


TEXT_WIDTH: Final = 100  # the widest line of a game's text (`render`), for terminals


def wrap(text: str, width: int = TEXT_WIDTH, indent: str = "", more: str = "") -> list[str]:
    """`text` in lines of at most `width` characters, broken at spaces (a longer word keeps its own line), never
    inside "seat N": the first line after `indent`, the others after `more`. textwrap's plain case, at a fraction
    of its cost (renders run once per seat per move)."""
    lines: list[str] = []
    lead = indent
    room = width - len(indent)
    while len(text) > room:
        cut = text.rfind(" ", 0, room + 1)
        if cut >= 4 and text.endswith("seat", 0, cut) and (cut == 4 or not text[cut - 5].isalnum()):
            cut = text.rfind(" ", 0, cut - 4)  # never between "seat" and its number (clients put a name there)
        if cut <= 0:  # a word longer than the line: it keeps a line of its own
            cut = text.find(" ", max(room, 1))
            if cut < 0:
                break
        lines.append(lead + text[:cut])
        text = text[cut + 1 :]
        lead = more
        room = width - len(more)
    lines.append(lead + text)
    return lines
