"""Look at Us, We're R&D's rules as module functions: the roles of each round, the setup, the legal actions (the
ones made here are shared, never changed, and decoded once), each action applied (validated first): the design
turns, the art, the words, the secret votes and the reveal. Every change to a design, a ballot, the rng or the
results takes it first (sharing.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache, lru_cache
from operator import attrgetter
from typing import Any, Final

from manaforge.v1.cards_pb2 import MagicCard
from manaforge.v1.common_pb2 import Event
from manaforge.v1.games.rnd_pb2 import (
    RndAction,
    RndAward,
    RndBallot,
    RndCategory,
    RndDesign,
    RndPhase,
    RndState,
    RndVote,
    RndWriting,
)

from engine_core import rng as random
from engine_core.cards import CARD_SET_OPTION, find_set
from engine_core.cards.booster import draw_faces, shared_cards
from engine_core.errors import IllegalActionError, MalformedActionError
from engine_core.game import (
    SIMULTANEOUS,
    FreeText,
    FreeTextForm,
    Option,
    event,
    finish,
    options,
    seat_count,
    seats_text,
    set_pending,
)
from engine_core.games.rnd import taste
from engine_core.games.rnd.design import (
    ART_LINES,
    ART_WIDTH,
    AWARD_NAMES,
    AWARDS,
    CATEGORIES,
    CATEGORY_NAMES,
    FLAVOUR_MAX,
    NAME_MAX,
    POWER_TOUGHNESS,
    TYPE,
    any_card_has,
    card_facts,
    check_art,
    check_flavour,
    check_name,
    copy_category,
    design_title,
    wanted_categories,
)
from engine_core.games.rnd.sharing import own_ballot, own_design, pass_turn
from engine_core.games.rnd.twins import add_ballot, add_copy, add_design, add_result, add_vote
from engine_core.live import own_part

DESIGN: Final = RndPhase.RND_PHASE_DESIGN
ART: Final = RndPhase.RND_PHASE_ART
WRITING: Final = RndPhase.RND_PHASE_WRITING
VOTING: Final = RndPhase.RND_PHASE_VOTING
RESULTS: Final = RndPhase.RND_PHASE_RESULTS
PHASE_NAMES: Final = {DESIGN: "design", ART: "art", WRITING: "writing", VOTING: "voting", RESULTS: "results"}
PACK_BOUND: Final = 20  # cards in one draft booster, with room to spare for imported sets
VOTE_PROMPT: Final = "vote in secret: most powerful, least functional, most flavorful"
ART_PROMPT: Final = f"draw the art: up to {ART_LINES} lines of {ART_WIDTH} characters"
PACKS_OPTION: Final = Option(
    "packs",
    "1",
    ("1", "2"),
    "boosters opened into the pack (the rulebook says 1; a second gives more variety to a large table)",
)


SELF_VOTES_OPTION: Final = Option(
    "self_votes",
    "allowed",
    ("allowed", "forbidden"),
    "allowed: vote for any card; forbidden: not for a card you drew the art for or wrote (every seat works on "
    "every card, so those two are the closest to 'your own')",
)


TIES_OPTION: Final = Option(
    "ties",
    "shared",
    ("shared", "random"),
    "cards tied for the most votes of an award: shared: all of them win it; random: one of them, drawn at random",
)


def designers(seats: int, round_: int) -> list[int]:
    """The designers of a round, in turn order: clockwise from the writer's left."""
    return [(round_ + 2 + k) % seats for k in range(seats - 2)]


def artist_of(round_: int) -> int:
    return round_


def writer_of(seats: int, round_: int) -> int:
    return (round_ + 1) % seats


# Legal actions without free text are built once and shared between calls (callers never modify an action).
_COPIES: Final = {category: RndAction(copy=category) for category in CATEGORIES}
_DRAW_ANOTHER: Final = RndAction(draw_another=True)
_EXPECTED: Final = {DESIGN: ("copy", "draw_another"), ART: ("art",), WRITING: ("writing",), VOTING: ("vote",)}


_award_of: Final = attrgetter("award")


# The actions made here (legal actions are shared between calls, and callers never modify an action), decoded once:
# id -> (the action, the phase it belongs to, the rule, its arguments). Any other action is decoded by `_apply`.
_Decoded = tuple[RndAction, int, Callable[..., list[Event]], tuple[Any, ...]]


_DECODED: Final[dict[int, _Decoded]] = {}


DECODED_LIMIT: Final = 1 << 14


def _known(action: RndAction, phase: RndPhase.ValueType, rule: Callable[..., list[Event]], *args: Any) -> RndAction:
    """Remember how `action` (made here, never changed) is applied: `rule(state, seat, *args)` in `phase`."""
    if len(_DECODED) >= DECODED_LIMIT:
        _DECODED.clear()
        for made in (*_COPIES.values(), _DRAW_ANOTHER):
            _decode_own(made)
    _DECODED[id(action)] = (action, phase, rule, args)  # the reference keeps the id from being reused
    return action


def _decode_own(action: RndAction) -> None:
    choice = action.WhichOneof("choice")
    if choice == "copy":
        _known(action, DESIGN, _apply_copy, action.copy)
    elif choice == "draw_another":
        _known(action, DESIGN, _apply_draw_another)


@cache
def _art_example(kind: str) -> RndAction:
    """The art phase's example action: `taste.sketch` of a design of that kind."""
    return _known(RndAction(art="\n".join(taste.SKETCHES[kind])), ART, _apply_art, "\n".join(taste.SKETCHES[kind]))


@lru_cache(maxsize=4096)  # keyed by a state's facts: bounded, a client may send any state
def _writing_example(round_: int, color: str, kind: str) -> RndAction:
    """The writing phase's example action: `taste.card_name` and `taste.flavour` from the round's example rng."""
    example = random.new_rng(round_)
    name, flavour = taste.name_for(color, kind, example), taste.flavour(example)
    return _known(RndAction(writing=RndWriting(name=name, flavour=flavour)), WRITING, _apply_writing, name, flavour)


@lru_cache(maxsize=4096)  # keyed by a state's facts: bounded, a client may send any state
def _art_for(type_line: str) -> RndAction:
    return _art_example(taste.kind(type_line))


@lru_cache(maxsize=4096)  # keyed by a state's facts: bounded, a client may send any state
def _writing_for(round_: int, mana_cost: str, type_line: str) -> RndAction:
    return _writing_example(round_, taste.color(mana_cost), taste.kind(type_line))


@lru_cache(maxsize=4096)  # keyed by a state's facts: bounded, a client may send any state
def _turn_prompt(wanted: tuple[RndCategory.ValueType, ...]) -> str:
    return f"copy one of: {', '.join(CATEGORY_NAMES[c] for c in wanted)} (or draw another)"


@lru_cache(maxsize=4096)  # keyed by a state's facts: bounded, a client may send any state
def _vote_actions(awards: tuple[RndAward.ValueType, ...], eligible: tuple[int, ...]) -> tuple[RndAction, ...]:
    """The votes for each award still open, for each eligible design (few combinations: at most 8 seats)."""
    return tuple(_vote_action(award, d) for award in awards for d in eligible)


_OPEN_VOTES: Final[dict[tuple[int, ...], tuple[RndAction, ...]]] = {}


def _open_votes(key: tuple[int, ...]) -> tuple[RndAction, ...]:
    """`_vote_actions` for a table where self-votes are allowed, by (designs, awards voted for): remembered."""
    actions = _OPEN_VOTES.get(key)
    if actions is None:
        if len(_OPEN_VOTES) >= 4096:  # keyed by a state's facts: bounded, a client may send any state
            _OPEN_VOTES.clear()
        voted = key[1:]
        awards = tuple(award for award in AWARDS if award not in voted)
        actions = _OPEN_VOTES[key] = _vote_actions(awards, tuple(range(key[0])))
    return actions


@lru_cache(maxsize=4096)  # keyed by a state's facts: bounded, a client may send any state
def _vote_action(award: RndAward.ValueType, design: int) -> RndAction:
    return _known(RndAction(vote=RndVote(award=award, design=design)), VOTING, _apply_vote, award, design)


ART_FORM: Final = FreeTextForm(
    "draw the art",
    (FreeText(("art",), "the art", f"up to {ART_LINES} lines of {ART_WIDTH} characters", check_art, ART_LINES),),
)


WRITING_FORM: Final = FreeTextForm(
    "write the card's name and flavour text",
    (
        FreeText(("writing", "name"), "the card's name", f"up to {NAME_MAX} characters", check_name),
        FreeText(("writing", "flavour"), "the flavour text", f"up to {FLAVOUR_MAX} characters", check_flavour),
    ),
)


def setup(state: RndState) -> None:
    opts = options(state)
    card_set = find_set(opts[CARD_SET_OPTION.name])
    # the cards `open_packs` opens, shared from game to game (faces are never changed)
    faces = shared_cards(card_set, draw_faces(card_set, state.header.rng, int(opts[PACKS_OPTION.name])))
    state.faces.extend(faces)
    state.card_count = len(faces)
    state.pack.extend(face.id for face in faces)
    random.shuffle(state.header.rng, state.pack)
    seats = seat_count(state)
    designs, ballots = state.designs, state.ballots
    for round_ in range(seats):
        add_design(designs, artist_of(round_), writer_of(seats, round_))
    for _ in range(seats):
        add_ballot(ballots)
    _start_round(state, 0, [])


def _start_round(state: RndState, round_: int, events: list[Event]) -> None:
    state.round = round_
    state.phase = DESIGN
    state.design_turns = 0
    design = own_design(state, round_)
    team = designers(seat_count(state), round_)
    events.append(
        event(
            "RoundStarted",
            f"card {round_ + 1} of {len(state.designs)}: seat {design.artist} is the artist, seat "
            f"{design.writer} the writer, {seats_text(team)} the designer{'s' * (len(team) > 1)}",
        )
    )
    _start_turn(state, events, _fill_blanks(state, design, wanted_categories(design), events))


def _start_turn(state: RndState, events: list[Event], wanted: tuple[RndCategory.ValueType, ...]) -> None:
    seats = state.header.config.seats  # seat_count()
    designer = state.designer = (state.round + 2 + state.design_turns % (seats - 2)) % seats  # designers()
    state.draws_this_turn = 0
    _draw_useful(state, events, wanted)
    pass_turn(state, designer, _turn_prompt(wanted))


def _draw(state: RndState, events: list[Event]) -> tuple[MagicCard, frozenset[RndCategory.ValueType]]:
    """Draw the top card of the pack (the pile reshuffled into it when it ran out): the card and its categories."""
    drawn, pack = state.drawn, state.pack
    if drawn:  # _put_aside()
        state.discard.extend(drawn)
        del drawn[:]
    if not pack:
        random.shuffle_into(own_part(state, "rng"), pack, state.discard)
        events.append(event("PackReshuffled", "the pack ran out: the drawn cards were shuffled into a new pack"))
    card_id = pack.pop()
    drawn.append(card_id)
    state.pack_size = len(pack)
    state.draws_this_turn += 1
    card = state.faces[card_id]
    designer = state.designer
    facts = card_facts(card)
    events.append(event("CardDrawn", f"seat {designer} drew {facts.drawn_line}", actor=designer))
    return card, facts.categories


def _draw_useful(state: RndState, events: list[Event], wanted: tuple[RndCategory.ValueType, ...]) -> None:
    """Draw until the card offers one of the open categories `wanted`. Ends: every open category is on some
    card of the pack (`_fill_blanks`), and a pass through the pack and then the reshuffled pile sees every
    card."""
    card, categories = _draw(state, events)
    while categories.isdisjoint(wanted):
        events.append(event("CardPutAside", f"{card.name} has none of the open categories: drew another"))
        card, categories = _draw(state, events)


def _put_aside(state: RndState) -> None:
    state.discard.extend(state.drawn)
    del state.drawn[:]


def _fill_blanks(
    state: RndState, design: RndDesign, wanted: tuple[RndCategory.ValueType, ...], events: list[Event]
) -> tuple[RndCategory.ValueType, ...]:
    """An open category that no card of the pack has can never be drawn: it is left blank. Returns the open
    categories left."""
    faces = state.faces
    left = wanted
    for category in wanted:
        if not any_card_has(faces, category):
            add_copy(design.copies, category, -1)
            events.append(
                event("CategoryLeftBlank", f"no card in the pack has a {CATEGORY_NAMES[category]}: left blank")
            )
            left = tuple([c for c in left if c != category])
    return left


def _apply_copy(state: RndState, seat: int, category: RndCategory.ValueType) -> list[Event]:
    design = state.designs[state.round]
    card = state.faces[state.drawn[0]]
    if category not in CATEGORIES:
        raise MalformedActionError("category", "copy one of: casting cost, card type, card text, power/toughness")
    wanted = wanted_categories(design)
    if category not in wanted:
        raise IllegalActionError(
            "fill each category once",
            f"the {CATEGORY_NAMES[category]} is already filled"
            if category in {c.category for c in design.copies}
            else "power & toughness only 'if the card has a type that requires it' (copy a creature type first)",
        )
    if category not in card_facts(card).categories:
        raise IllegalActionError(
            "draw another",
            f"{card.name} has no {CATEGORY_NAMES[category]}: 'if it's missing the category you want, draw another'",
        )
    design = own_design(state, state.round)
    copy_category(design, card, category, seat)
    events = [
        event(
            "CategoryCopied",
            f"seat {seat} copied the {CATEGORY_NAMES[category]} from {card.name}",
            actor=seat,
        )
    ]
    _put_aside(state)
    # open_categories(design) now: the category is filled, and a type that needs one opens power and toughness
    wanted = tuple([c for c in wanted if c != category])
    if category == TYPE and design.needs_power_toughness:
        wanted += (POWER_TOUGHNESS,)
    wanted = _fill_blanks(state, design, wanted, events)
    if wanted:
        state.design_turns += 1
        _start_turn(state, events, wanted)
    else:
        design.complete = True
        state.phase = ART
        events.append(event("DesignCompleted", f"card {state.round + 1}'s design is complete"))
        pass_turn(state, design.artist, ART_PROMPT)
    return events


def _apply_draw_another(state: RndState, seat: int) -> list[Event]:
    card = state.faces[state.drawn[0]]
    wanted = wanted_categories(state.designs[state.round])
    has = card_facts(card).categories
    if has.issuperset(wanted) or state.draws_this_turn >= state.card_count:  # may not draw another
        if has.issuperset(wanted):
            raise IllegalActionError(
                "draw another",
                f"{card.name} has every open category: copy one ('draw another' is for a "
                "card missing the category you want)",
            )
        raise IllegalActionError(
            "draw another",
            f"you have drawn {state.draws_this_turn} cards this turn, the whole pack: copy from {card.name}",
        )
    events = [event("AnotherDrawn", f"seat {seat} put {card.name} aside to draw another", actor=seat)]
    _draw_useful(state, events, wanted)
    return events


def _apply_art(state: RndState, seat: int, art: str) -> list[Event]:
    if art not in taste.SKETCH_TEXTS:  # those pass (checked at import)
        check_art(art)
    design = own_design(state, state.round)
    design.art = art
    state.phase = WRITING
    pass_turn(state, design.writer, "name the card and write its flavor text")
    return [event("ArtDrawn", f"seat {seat} drew the art of card {state.round + 1}", actor=seat)]


def _apply_writing(state: RndState, seat: int, name: str, flavour: str) -> list[Event]:
    if name not in taste.NAMES:  # those pass (checked at import)
        check_name(name)
    if flavour not in taste.FLAVOURS:
        check_flavour(flavour)
    design = own_design(state, state.round)
    design.name, design.flavour = name, flavour
    events = [event("CardNamed", f"seat {seat} named card {state.round + 1} {name!r}", actor=seat)]
    if state.round + 1 < len(state.designs):
        _start_round(state, state.round + 1, events)
    else:
        state.phase = VOTING
        set_pending(state, range(seat_count(state)), SIMULTANEOUS, VOTE_PROMPT)
        events.append(event("VotingOpened", "every card is finished: the vote is open"))
    return events


def _may_vote_for(state: RndState, seat: int, design: RndDesign) -> bool:
    if options(state)[SELF_VOTES_OPTION.name] == "allowed":
        return True
    return seat not in (design.artist, design.writer)


def _apply_vote(state: RndState, seat: int, award: RndAward.ValueType, index: int) -> list[Event]:
    if award not in AWARDS:
        raise MalformedActionError("award", "vote for most powerful, least functional or most flavorful")
    designs = state.designs
    if not 0 <= index < len(designs):
        raise MalformedActionError("design", f"cards are numbered 0 to {len(designs) - 1}")
    ballot = state.ballots[seat]
    votes = ballot.votes
    for cast in votes:
        if cast.award == award:
            raise IllegalActionError("one vote per award", f"you already voted for {AWARD_NAMES[award]}")
    design = designs[index]
    if options(state)[SELF_VOTES_OPTION.name] != "allowed" and seat in (design.artist, design.writer):
        raise IllegalActionError(
            "self-votes (option self_votes=forbidden)",
            f"you drew the art for or wrote {design_title(design, index)}",
        )
    ballot = own_ballot(state, seat)
    votes = ballot.votes
    add_vote(votes, award, index)
    ballot.votes_cast = len(votes)
    name = AWARD_NAMES[award]
    events = [
        event("VoteCast", f"seat {seat} voted for {name}", actor=seat),
        event("VoteRecorded", f"your {name} vote: {design_title(design, index)}", audience=seat),
    ]
    waiting = [s for s, b in enumerate(state.ballots) if b.votes_cast < 3]  # len(AWARDS)
    if waiting:
        set_pending(state, waiting, SIMULTANEOUS, VOTE_PROMPT)
    else:
        events += _reveal(state)
    return events


def _reveal(state: RndState) -> list[Event]:
    ballots, designs = state.ballots, state.designs
    events = [event("VotesRevealed", f"seat {s}: {_ballot_text(state, ballot)}") for s, ballot in enumerate(ballots)]
    counts: dict[RndAward.ValueType, dict[int, int]] = {award: {} for award in AWARDS}
    for ballot in ballots:
        for vote in ballot.votes:
            tally = counts.get(vote.award)
            if tally is not None:
                tally[vote.design] = tally.get(vote.design, 0) + 1
    credits = [0.0] * seat_count(state)
    random_ties = options(state)[TIES_OPTION.name] == "random"
    state.ClearField("results")  # empty until now: a new list, as copies share it (sharing.py)
    summary = []
    for award in AWARDS:
        tally = counts[award]
        top = max(tally.values())
        tied = sorted(d for d, n in tally.items() if n == top)
        if len(tied) > 1 and random_ties:
            tied = [random.choice(own_part(state, "rng"), tied)]
        add_result(state.results, award, tied, top)
        for d in tied:
            artist, writer = designs[d].artist, designs[d].writer
            credits[artist] += 1
            if writer != artist:  # each seat once per winning card
                credits[writer] += 1
        names = _winners_text(state, tied)
        events.append(event("AwardWon", f"{AWARD_NAMES[award]}: {names} ({top} vote{'s' * (top != 1)})"))
        summary.append(f"{AWARD_NAMES[award]}: {names}")
    state.phase = RESULTS
    finish(state, range(seat_count(state)), credits, f"the table designed {len(designs)} cards; {'; '.join(summary)}")
    return events


def _ballot_text(state: RndState, ballot: RndBallot) -> str:
    return ", ".join(
        f"{AWARD_NAMES[v.award]}: {design_title(state.designs[v.design], v.design)}"
        for v in sorted(ballot.votes, key=_award_of)
    )


def _winners_text(state: RndState, designs: Iterable[int]) -> str:
    return " and ".join(design_title(state.designs[d], d) for d in designs)


def legal_actions(state: RndState, seat: int) -> list[RndAction]:
    if state.phase == DESIGN:
        wanted = wanted_categories(state.designs[state.round])
        has = card_facts(state.faces[state.drawn[0]]).categories
        actions = [_COPIES[c] for c in wanted if c in has]  # offered()
        if len(actions) < len(wanted) and state.draws_this_turn < state.card_count:  # may draw another
            actions.append(_DRAW_ANOTHER)
        return actions
    design = state.designs[state.round]
    if state.phase == ART:
        return [_art_for(design.type_line)]
    if state.phase == WRITING:
        return [_writing_for(state.round, design.mana_cost, design.type_line)]
    votes = state.ballots[seat].votes
    designs = state.designs
    if options(state)[SELF_VOTES_OPTION.name] == "allowed":  # _may_vote_for()
        return list(_open_votes((len(designs), *map(_award_of, votes))))
    voted = [v.award for v in votes]
    eligible = tuple(d for d, candidate in enumerate(designs) if seat not in (candidate.artist, candidate.writer))
    return list(_vote_actions(tuple(award for award in AWARDS if award not in voted), eligible))


def apply(state: RndState, seat: int, action: RndAction) -> list[Event]:
    known = _DECODED.get(id(action))
    if known is not None and known[0] is action and known[1] == state.phase:  # an action made here
        return known[2](state, seat, *known[3])
    choice = action.WhichOneof("choice")
    expected = _EXPECTED
    if choice is None:
        raise MalformedActionError("action choice", "an action copies, draws another, draws art, writes or votes")
    if choice not in expected[state.phase]:
        raise IllegalActionError(
            "roles", f"in the {PHASE_NAMES[state.phase]} phase the action is {' or '.join(expected[state.phase])}"
        )
    if choice == "copy":
        return _apply_copy(state, seat, action.copy)
    if choice == "draw_another":
        if not action.draw_another:
            raise MalformedActionError("draw another", "draw_another must be true")
        return _apply_draw_another(state, seat)
    if choice == "art":
        return _apply_art(state, seat, action.art)
    if choice == "writing":
        return _apply_writing(state, seat, action.writing.name, action.writing.flavour)
    return _apply_vote(state, seat, action.vote.award, action.vote.design)


for _action in (*_COPIES.values(), _DRAW_ANOTHER):
    _decode_own(_action)
# The bot's texts are examples the legal actions list: each passes the checks `apply` makes.
for _text in taste.SKETCH_TEXTS:
    check_art(_text)
for _text in taste.NAMES:
    check_name(_text)
for _text in taste.FLAVOURS:
    check_flavour(_text)
