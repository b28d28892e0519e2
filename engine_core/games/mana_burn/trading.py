"""Trading, Playing for Ante, Short Circuit, Going Fishing and Auctioning Cards: what players deal between them."""

from __future__ import annotations

from manaforge.v1.common_pb2 import Event
from manaforge.v1.games.mana_burn_pb2 import (
    ManaBurnAction,
    ManaBurnState,
)

from engine_core import rng
from engine_core.game import (
    event,
)
from engine_core.games.mana_burn.actions import (
    ANTE_ROLL,
    ASK_WINDOW,
    FALSE_BID,
    FALSE_BID_ACTION,
    FISH_BACK_PHASE,
    MAIN_PHASE,
    NONE,
    OFFER_PHASE,
    PASS,
    PASS_ACTION,
    card_choices,
)
from engine_core.games.mana_burn.board import SQUARES, Effect
from engine_core.games.mana_burn.cards import (
    NAMES,
    Kind,
    kind,
)
from engine_core.games.mana_burn.sharing import own_player
from engine_core.games.mana_burn.turns import roll, to_main
from engine_core.games.mana_burn.zones import (
    count_in_play,
    discard,
    gain,
    order_after,
)


def start_offer(state: ManaBurnState, seats: list[int], events: list[Event]) -> None:
    """Trading / Ante: both lay a card face down; an opponent's Goblins make you give at random, one per Goblin."""
    pair = len(seats) == 2 and SQUARES[state.square].effect != Effect.SHORT_CIRCUIT
    for seat in seats:
        player = own_player(state, seat)
        goblins = count_in_play(state.players[seats[1] if seat == seats[0] else seats[0]], Kind.GOBLINS) if pair else 0
        if goblins:
            hand = player.hand
            for _ in range(min(goblins, len(hand))):
                player.offer.append(hand.pop(rng.randbelow(state.header.rng, len(hand))))
            events.append(
                event("OfferedAtRandom", f"Goblins made seat {seat} put {len(player.offer)} card(s) in at random")
            )
        else:
            player.offering = True
    state.phase = OFFER_PHASE
    if not any(p.offering for p in state.players):
        reveal(state, events)


def offer(state: ManaBurnState, seat: int, card: int, events: list[Event]) -> None:
    player = own_player(state, seat)
    player.hand.remove(card)
    player.offer.append(card)
    player.offering = False
    events.append(event("CardOffered", f"seat {seat} laid a card face down", actor=seat))
    if not any(p.offering for p in state.players):
        reveal(state, events)


def _offered(state: ManaBurnState) -> list[int]:
    return [s for s in [state.active, *order_after(state, state.active)] if state.players[s].offer]


def _take_offer(state: ManaBurnState, seat: int) -> list[int]:
    cards = list(state.players[seat].offer)
    if cards:
        del own_player(state, seat).offer[:]
    return cards


def reveal(state: ManaBurnState, events: list[Event]) -> None:
    effect = SQUARES[state.square].effect
    to_main(state)
    if effect == Effect.ANTE:
        for seat, player in enumerate(state.players[:]):
            if player.heroes_used:
                own_player(state, seat).heroes_used = 0
        roll(state, [state.active, state.opponent], ANTE_ROLL, events)
    elif effect == Effect.TRADE:
        a, b = state.active, state.opponent
        given_a, given_b = _take_offer(state, a), _take_offer(state, b)
        gain(state, a, given_b, f"traded with seat {b} and received", events)
        gain(state, b, given_a, f"traded with seat {a} and received", events)
    else:  # Short Circuit
        seats = _offered(state)
        pool = [c for s in seats for c in _take_offer(state, s)]
        rng.shuffle(state.header.rng, pool)
        for seat, card in zip(seats, pool, strict=True):
            gain(state, seat, [card], "got a card back from the Short Circuit", events)


def settle_ante(state: ManaBurnState, rolls: list[tuple[int, int]], events: list[Event]) -> None:
    """Playing for Ante: the highest roll takes both stakes; a tie returns them."""
    (a, roll_a), (b, roll_b) = rolls
    stakes = {a: _take_offer(state, a), b: _take_offer(state, b)}
    if roll_a == roll_b:
        events.append(event("AnteTied", f"the Ante game tied at {roll_a}: everyone keeps their card"))
        for seat, cards in stakes.items():
            gain(state, seat, cards, "took back the Ante", events)
        return
    winner = a if roll_a > roll_b else b
    won = [*stakes[a], *stakes[b]]
    events.append(event("AnteWon", f"seat {winner} won the Ante game {max(roll_a, roll_b)} to {min(roll_a, roll_b)}"))
    gain(state, winner, won, "took the Ante", events, public=True)


def go_fishing(state: ManaBurnState, asked: int, k: int, back: bool, events: list[Event]) -> None:
    """Going Fishing: name a card; the asked player may first throw instants (an ASK window), then answers."""
    asker = state.opponent if back else state.active
    if not back:
        state.opponent = asked
    state.kind = k
    state.fishing_back = back
    events.append(event("WentFishing", f"seat {asker} asked seat {asked} for {NAMES[k]}", actor=asker))
    state.phase = MAIN_PHASE
    state.windows.add(trigger=ASK_WINDOW, queue=[asked])


def answer_fishing(state: ManaBurnState, events: list[Event]) -> None:
    asker, asked = (state.opponent, state.active) if state.fishing_back else (state.active, state.opponent)
    hand = state.players[asked].hand
    matches = sorted(c for c in hand if kind(c) == state.kind)
    to_main(state)
    if not matches:
        events.append(event("NoCatch", f"seat {asked} has no {NAMES[state.kind]}", actor=asked))
        if not state.fishing_back:
            state.phase = FISH_BACK_PHASE
        return
    given = matches if count_in_play(state.players[asker], Kind.MERFOLK) else matches[:1]
    hand = own_player(state, asked).hand
    for card in given:
        hand.remove(card)
    gain(state, asker, given, f"caught from seat {asked}", events, public=True)


def next_bidder(state: ManaBurnState) -> int | None:
    """The next seat still in the auction, or None once everyone after the last bidder has passed."""
    for seat in order_after(state, state.decider):
        if seat == state.last_bidder:
            return None
        if not state.players[seat].passed:
            return seat
    return None


def bid(state: ManaBurnState, seat: int, action: ManaBurnAction, events: list[Event]) -> None:
    if action.move == PASS:
        own_player(state, seat).passed = True
        events.append(event("AuctionPassed", f"seat {seat} passed", actor=seat))
    elif action.move == FALSE_BID:
        own_player(state, seat).false_bids += 1
        state.last_bidder = seat
        events.append(event("FalseBid", f"seat {seat} made a false bid (Drudge Skeletons)", actor=seat))
    else:
        discard(state, seat, action.card, events, "bid by discarding")
        state.last_bidder = seat
    following = next_bidder(state)
    if following is not None:
        state.decider = following
        return
    lot = list(state.auction)
    del state.auction[:]
    to_main(state)
    if state.last_bidder == NONE:
        state.graveyard.extend(lot)
        events.append(event("AuctionUnsold", "nobody bid: the cards went to the Graveyard"))
    else:
        gain(state, state.last_bidder, lot, "won the auction", events, public=True)


def bid_choices(state: ManaBurnState, seat: int) -> list[ManaBurnAction]:
    player = state.players[seat]
    acts = [PASS_ACTION, *card_choices(player.hand[:])]
    if player.false_bids < count_in_play(player, Kind.DRUDGE_SKELETONS):
        acts.append(FALSE_BID_ACTION)
    return acts
