"""Playing cards: the main phase's one Creature, Sorcery or Enchantment, the instants at any time, the stack and
its resolution, and the response windows' other answers (Scryb Sprites, Benalish Hero)."""

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
    CARD_WINDOW,
    COUNTERSPELL_KIND,
    DIE,
    GIANT_GROWTH_BONUS,
    GIANT_GROWTH_KIND,
    GROW_ACTIONS,
    HERO,
    HERO_BONUS,
    HOLY_ARMOR_KIND,
    INCINERATE_KIND,
    IS_INSTANT,
    MOVE_ROLL,
    NONE,
    PASS,
    PASS_ACTION,
    PLAY_ACTIONS,
    RAISE_DEAD_KIND,
    REROLL,
    REROLL_ACTION,
    SPRITES_KIND,
    TARGETED,
    act,
    aimed,
    all_seats,
    creatures_of,
    first_copies,
    is_first_copy,
    play_at,
)
from engine_core.games.mana_burn.cards import (
    CREATURES,
    KIND_OF,
    MAIN_CARDS,
    Kind,
    name,
)
from engine_core.games.mana_burn.sharing import own_creature, own_player
from engine_core.games.mana_burn.trading import answer_fishing
from engine_core.games.mana_burn.turns import open_card_window, reopen_roll_window
from engine_core.games.mana_burn.zones import (
    bury,
    count_in_play,
    find_armor,
    find_creature,
    gain,
)


def pass_window(state: ManaBurnState, events: list[Event]) -> None:
    window = state.windows[-1]
    del window.queue[0]
    if window.queue:
        return
    trigger = window.trigger
    state.windows.pop()
    if trigger == CARD_WINDOW:
        resolve(state, events)
    elif trigger == ASK_WINDOW:
        answer_fishing(state, events)


def instant_choices(state: ManaBurnState, seat: int, acts: list[ManaBurnAction]) -> list[ManaBurnAction]:
    """Incinerate, Giant Growth and Counterspell: at any time, as many as you like (added to `acts`)."""
    targets: list[int] | None = None
    for card in first_copies(filter(IS_INSTANT.__getitem__, state.players[seat].hand[:])):
        k = KIND_OF[card]
        if k == GIANT_GROWTH_KIND:
            acts += GROW_ACTIONS[card][: len(state.rolls)]
        elif k == INCINERATE_KIND:
            if targets is None:
                targets = incinerate_targets(state)
            acts += play_at(card, targets)
        elif can_counter(state, seat):  # Counterspell
            acts.append(aimed(card, state.stack[-1].card))
    return acts


def instant_is_legal(state: ManaBurnState, seat: int, action: ManaBurnAction) -> bool:
    """`action in instant_choices(...)`, from the one choice it could equal."""
    card = action.card
    if not is_first_copy(card, state.players[seat].hand):
        return False
    k = KIND_OF[card]
    if k == GIANT_GROWTH_KIND:
        i = action.roll
        return 0 <= i < len(state.rolls) and action == GROW_ACTIONS[card][i]
    if k == INCINERATE_KIND:
        target = action.target
        return target in incinerate_targets(state) and action == aimed(card, target)
    if k == COUNTERSPELL_KIND:
        return can_counter(state, seat) and action == aimed(card, state.stack[-1].card)
    return False


def incinerate_targets(state: ManaBurnState) -> list[int]:
    """One unarmored creature, or one Holy Armor card (the first on its creature: Armors on one creature are the same
    to the rules, and so are creatures of one kind, controller, owner and number of Armors)."""
    targets: list[int] = []
    keys: set[tuple[int, int, int, int]] = set()
    for s, player in enumerate(state.players[:]):
        for creature in player.creatures[:]:
            armor = creature.armor
            key = (s, KIND_OF[creature.card], creature.owner, len(armor))
            if key not in keys:
                keys.add(key)
                targets.append(armor[0] if armor else creature.card)
    return targets


def can_counter(state: ManaBurnState, seat: int) -> bool:
    """Counterspell: only right after the card it counters (the top card's window, before anything answers it)."""
    if not state.windows or state.windows[-1].trigger != CARD_WINDOW:
        return False
    top = state.stack[-1]
    return top.seat != seat and not top.answered and not top.countered


def main_choices(state: ManaBurnState, seat: int, acts: list[ManaBurnAction]) -> list[ManaBurnAction]:
    """After moving: at most one Creature, Sorcery (Raise Dead) or Enchantment (Holy Armor) per turn (added to
    `acts`)."""
    if state.main_played:
        return acts
    kinds = KIND_OF
    creatures: list[int] | None = None
    graveyard: list[int] | None = None
    for card in first_copies(state.players[seat].hand[:]):
        k = kinds[card]
        if k in CREATURES:
            acts.append(PLAY_ACTIONS[card])
        elif k == HOLY_ARMOR_KIND:
            if creatures is None:
                creatures = creatures_of(state, all_seats(state))
            acts += play_at(card, creatures)
        elif k == RAISE_DEAD_KIND:
            if graveyard is None:
                graveyard = first_copies(state.graveyard[:])
            acts += play_at(card, graveyard)
    return acts


def main_is_legal(state: ManaBurnState, seat: int, action: ManaBurnAction) -> bool:
    """`action in main_choices(...)`, from the one choice it could equal."""
    card = action.card
    if state.main_played or not is_first_copy(card, state.players[seat].hand):
        return False
    k = KIND_OF[card]
    if k in CREATURES:
        return action == PLAY_ACTIONS[card]
    if k == HOLY_ARMOR_KIND:
        target = action.target
        return target in creatures_of(state, all_seats(state)) and action == aimed(card, target)
    if k == RAISE_DEAD_KIND:
        target = action.target
        return is_first_copy(target, state.graveyard) and action == aimed(card, target)
    return False


def play(state: ManaBurnState, seat: int, action: ManaBurnAction, events: list[Event]) -> None:
    """The card leaves the hand for the stack; every other player may answer it in turn order."""
    if state.windows and state.windows[-1].trigger == CARD_WINDOW:
        state.stack[-1].answered = True
    card = action.card
    own_player(state, seat).hand.remove(card)
    k = KIND_OF[card]
    if k in MAIN_CARDS:
        state.main_played = True
    targeted = k in TARGETED
    grows = k == GIANT_GROWTH_KIND
    state.stack.add(
        card=card, seat=seat, target=action.target if targeted else NONE, roll=action.roll if grows else NONE
    )
    events.append(event("CardPlayed", f"seat {seat} played {name(card)}{target_text(state, action)}", actor=seat))
    open_card_window(state, seat)


def target_text(state: ManaBurnState, action: ManaBurnAction) -> str:
    k = KIND_OF[action.card]
    if k == GIANT_GROWTH_KIND:
        r = state.rolls[action.roll]
        return f" on seat {r.seat}'s roll of {r.value}"
    if k in CREATURES:
        return ""
    if k == RAISE_DEAD_KIND:
        return f" on {name(action.target)} from the Graveyard"
    return f" on {card_label(state, action.target)}"


def card_label(state: ManaBurnState, card: int) -> str:
    """A card in play named so that a player can tell it apart: whose it is, its Holy Armor, its owner when another
    seat controls it ("seat 2's Drudge Skeletons with 1 Holy Armor"); a Holy Armor by the creature it protects; a
    card on the stack by who played it."""
    where = find_creature(state, card)
    if where is not None:
        s, i = where
        creature = state.players[s].creatures[i]
        armor = f" with {len(creature.armor)} Holy Armor" if creature.armor else ""
        owner = f" (seat {creature.owner}'s card)" if creature.owner != s else ""
        return f"seat {s}'s {name(card)}{armor}{owner}"
    worn = find_armor(state, card)
    if worn is not None:
        return f"the Holy Armor on {card_label(state, state.players[worn[0]].creatures[worn[1]].card)}"
    for item in state.stack:
        if item.card == card:
            return f"seat {item.seat}'s {name(card)}"
    return name(card)


def card_controller(state: ManaBurnState, card: int) -> int | None:
    """The seat controlling a creature in play (or the creature a Holy Armor protects), or that played a card on the
    stack; None for any other card."""
    where = find_creature(state, card) or find_armor(state, card)
    if where is not None:
        return where[0]
    for item in state.stack:
        if item.card == card:
            return item.seat
    return None


def resolve(state: ManaBurnState, events: list[Event]) -> None:
    """The top card of the stack takes effect (unless countered) once its window has closed."""
    item = state.stack.pop()
    card, seat = item.card, item.seat
    k = KIND_OF[card]
    if item.countered:
        state.graveyard.append(card)
        events.append(event("CardCountered", f"seat {seat}'s {name(card)} was countered"))
        return
    if k in CREATURES:
        own_player(state, seat).creatures.add(card=card, owner=seat)
        events.append(event("CreatureEntered", f"seat {seat}'s {name(card)} came into play"))
        return
    state.graveyard.append(card)
    if k == HOLY_ARMOR_KIND:
        _armor(state, item.target, card, events)
    elif k == RAISE_DEAD_KIND:
        if item.target in state.graveyard:
            state.graveyard.remove(item.target)
            gain(state, seat, [item.target], "raised from the Graveyard", events, public=True)
    elif k == GIANT_GROWTH_KIND:
        state.rolls[item.roll].value += GIANT_GROWTH_BONUS
        r = state.rolls[item.roll]
        events.append(event("RollGrew", f"Giant Growth: seat {r.seat}'s roll is now {r.value}"))
        reopen_roll_window(state)
    elif k == COUNTERSPELL_KIND:
        for other in state.stack:
            if other.card == item.target:
                other.countered = True
    else:
        _incinerate(state, item.target, events)


def _armor(state: ManaBurnState, target: int, card: int, events: list[Event]) -> None:
    where = find_creature(state, target)
    if where is None:
        events.append(event("CardFizzled", "Holy Armor found no creature"))
        return
    state.graveyard.remove(card)
    own_creature(state, *where).armor.append(card)
    events.append(event("ArmorAttached", f"Holy Armor now protects {name(target)}"))


def _incinerate(state: ManaBurnState, target: int, events: list[Event]) -> None:
    """Incinerate destroys one unarmored creature or one Holy Armor."""
    worn = find_armor(state, target)
    if worn is not None:
        holder = own_creature(state, *worn)
        holder.armor.remove(target)
        state.graveyard.append(target)
        events.append(event("ArmorDestroyed", f"Incinerate destroyed the Holy Armor on {name(holder.card)}"))
        return
    where = find_creature(state, target)
    if where is not None and not state.players[where[0]].creatures[where[1]].armor:
        bury(state, target, events, "was Incinerated")


def hero_choices(state: ManaBurnState, seat: int) -> list[ManaBurnAction]:
    """Benalish Hero: +2 to any player's die roll, once per Ante game per Hero."""
    if not state.rolls or state.rolls[0].purpose != ANTE_ROLL:
        return []
    player = state.players[seat]
    if player.heroes_used >= count_in_play(player, Kind.BENALISH_HERO):
        return []
    return [act(HERO, roll=i) for i in range(len(state.rolls))]


def reroll_choices(state: ManaBurnState, seat: int) -> list[ManaBurnAction]:
    """Scryb Sprites: re-roll your movement die once per turn per Sprite in play."""
    if not state.rolls or state.rolls[0].purpose != MOVE_ROLL or state.rolls[0].seat != seat:
        return []
    return [REROLL_ACTION] if state.rerolls_used < count_in_play(state.players[seat], Kind.SCRYB_SPRITES) else []


def window_choices(state: ManaBurnState, seat: int) -> list[ManaBurnAction]:
    """Pass, then a re-roll (movement rolls) or the Heroes (Ante rolls), then the instants."""
    acts = [PASS_ACTION]
    rolls = state.rolls
    if rolls:
        first = rolls[0]
        purpose = first.purpose
        if purpose == MOVE_ROLL:
            if first.seat == seat and state.rerolls_used < count_in_play(state.players[seat], SPRITES_KIND):
                acts.append(REROLL_ACTION)  # reroll_choices
        elif purpose == ANTE_ROLL:
            acts += hero_choices(state, seat)
    return instant_choices(state, seat, acts)


def window_action(state: ManaBurnState, seat: int, action: ManaBurnAction, events: list[Event]) -> None:
    if action.move == PASS:
        pass_window(state, events)
    elif action.move == REROLL:
        state.rerolls_used += 1
        value = rng.roll(state.header.rng, DIE)
        state.rolls[0].value = value
        events.append(event("DieRerolled", f"seat {seat} re-rolled (Scryb Sprites): {value}", actor=seat))
        reopen_roll_window(state)
    elif action.move == HERO:
        own_player(state, seat).heroes_used += 1
        r = state.rolls[action.roll]
        r.value += HERO_BONUS
        events.append(event("HeroHelped", f"seat {seat}'s Benalish Hero added 2: seat {r.seat}'s roll is {r.value}"))
        reopen_roll_window(state)
    else:
        play(state, seat, action, events)
