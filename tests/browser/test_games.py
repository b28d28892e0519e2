"""Each game drawn as its game in the browser (issue 32): what the page shows is checked against the seat's own view
from the gateway. MANA BURN's board with a pawn per player on its square and the player's progress to the ten
cards; Magicka's wizards' health and why a held spell cannot be cast; ManaSurge's stones against the goal and a
role that says what it does; R&D as a cooperative game with shared credits, readable designs and the ballots after
the reveal; every card's facts on hover, keyboard focus and tap; the how-to-play page from the table and the lobby;
and, in every game, no seat numbers and no bookkeeping fields on the table."""

from __future__ import annotations

import json
import re
import time

import pytest
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.common_pb2 import Catalogue, DecisionKind, GameConfig
from manaforge.v1.games.magicka_pb2 import MagickaState
from manaforge.v1.games.mana_burn_pb2 import ManaBurnState
from manaforge.v1.games.manasurge_pb2 import ManasurgeState
from manaforge.v1.games.rnd_pb2 import RndState
from manaforge.v1.rules_pb2 import GetCatalogueRequest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect

from deploy.launcher import Stack
from gateway.client import Client
from tests.browser.conftest import PHONE
from tests.browser.pages import DECISION, create_table, decide, play_to_the_end, version
from tests.browser.words import named

GAMES = ["mana_burn", "magicka", "manasurge", "rnd", "manufactory", "blueprints"]
# Labels of bookkeeping fields the old page showed (the schema's names, or counters that read wrong)
INTERNAL_LABELS = [
    *("Next Creature", "Owed Spells", "Owed Elements", "Fire Spells", "Turn 0", "Caster Spell", "Role 0"),
    *("Design Turns", "Draws This Turn", "Rerolls Used", "Heroes Used", "kind 1", "number 1 ·"),
]


@pytest.fixture
def client(web_stack: Stack) -> Client:
    return Client(web_stack.gateway_addresses[0])


def token(page: Page, table_id: str) -> str:
    held = json.loads(page.evaluate(f"localStorage.getItem('manaforge.seat.{table_id}')"))
    return str(held["token"])


def settled(page: Page, client: Client, table_id: str) -> gw.SeatView:
    """This seat's view once the page waits for this seat's decision and shows that very version."""
    for _ in range(50):
        page.wait_for_selector(DECISION, timeout=30_000)
        view = client.view(table_id, token(page, table_id))
        if str(view.version) == version(page) and (0 in view.pending.seats or view.outcome.finished):
            return view
        page.wait_for_timeout(100)
    raise AssertionError("the page did not settle on this seat's decision")


def names(client: Client, table_id: str) -> list[str]:
    return [seat.name for seat in client.table(table_id).seats]


def catalogue(client: Client, game: str) -> Catalogue:
    answer: Catalogue = client.stub.GetCatalogue(GetCatalogueRequest(config=GameConfig(game=game)))
    return answer


def tip_of(card: Locator) -> Locator:
    return card.locator(":scope > .tip")


def no_seat_numbers_or_bookkeeping(page: Page) -> None:
    shown = " ".join(page.locator(".board, .log, .actions, .result").all_inner_texts())
    assert not re.search(r"\b(seat|wizard|player) \d", shown, re.IGNORECASE), shown
    for label in INTERNAL_LABELS:
        assert label.lower() not in shown.lower(), label


def test_mana_burn_is_a_board_with_a_pawn_per_player_and_your_progress_to_the_ten(page: Page, client: Client) -> None:
    table_id = create_table(page, "mana_burn", 3)
    assert decide(page)  # the pawns leave the Library
    view = settled(page, client, table_id)
    state = ManaBurnState()
    view.view.Unpack(state)
    seats = names(client, table_id)
    board = page.locator(".mb-board")
    expect(board).to_be_visible()
    on: dict[int, list[str]] = {}
    for seat, player in enumerate(state.players):
        on.setdefault(player.square, []).append("your pawn" if seat == 0 else f"{seats[seat]}'s pawn")
    for square, pawns in on.items():
        marks = board.locator(f'.square[data-id="{square}"] .pawn')
        assert sorted(marks.evaluate_all("ms => ms.map(m => m.getAttribute('aria-label'))")) == sorted(pawns)
    assert board.locator(".pawn").count() == len(state.players)
    # the goal and this player's progress: the different cards in hand, of the ten
    facts = {card.id: card for card in catalogue(client, "mana_burn").cards}
    held = {facts[card].name for card in state.players[0].hand}
    expect(page.locator(".mb-goal .progress")).to_contain_text(f"You hold {len(held)} of 10 different cards")
    expect(page.locator(".ten .have")).to_have_count(len(held))
    # a square says what it does on hover
    squares = catalogue(client, "mana_burn").squares
    mine = board.locator(f'.square[data-id="{state.players[0].square}"]')
    mine.hover()
    expect(tip_of(mine)).to_be_visible()
    expect(tip_of(mine)).to_contain_text(squares[state.players[0].square].effect)
    no_seat_numbers_or_bookkeeping(page)


def test_magicka_shows_each_wizards_health_and_why_a_spell_cannot_be_cast(page: Page, client: Client) -> None:
    table_id = create_table(page, "magicka", 2)
    for _ in range(30):  # until a spell in hand cannot be cast now (it lacks Elements, or it is not the moment)
        view = settled(page, client, table_id)
        if view.card_notes:
            break
        assert decide(page)
    assert view.card_notes, "no spell of this hand ever had a note"
    state = MagickaState()
    view.view.Unpack(state)
    seats = names(client, table_id)
    for seat, wizard in enumerate(state.wizards):
        panel = page.locator(".wizard", has=page.locator("h3", has_text=seats[seat]))
        expect(panel.locator(".vitals")).to_contain_text(f"{wizard.health} health")
    for note in view.card_notes:
        card = page.locator(f'.wizard.mine .card[data-id="{note.card}"]')
        said = named(note.note, seats, 0)
        expect(card.locator(".card-note")).to_have_text(said)  # on the card itself
        card.hover()
        expect(tip_of(card)).to_contain_text(f"Not now: {said}.")  # and in its facts
    if state.owed_elements or state.owed_spells:
        expect(page.locator(".mg-turn")).to_contain_text("exchange owes")
    no_seat_numbers_or_bookkeeping(page)


def create_with_options(page: Page, game: str, seats: int, options: dict[str, str]) -> str:
    page.wait_for_selector(f"select[name=game] option[value={game}]", state="attached")
    page.select_option("select[name=game]", game)
    form = page.get_by_role("form", name="Create a table")
    form.get_by_label("Seats", exact=True).fill(str(seats))
    for name, value in options.items():
        form.locator(f"select[name=option-{name}]").select_option(value)
    form.get_by_role("button", name="Create and sit down").click()
    page.wait_for_url("**/#/table/*")
    page.wait_for_selector(".board")
    return page.url.rsplit("/", 1)[1]


def test_manasurge_shows_the_stones_against_the_goal_and_each_role_says_what_it_does(
    page: Page, client: Client
) -> None:
    table_id = create_with_options(page, "manasurge", 3, {"roles": "on"})
    view = settled(page, client, table_id)
    state = ManasurgeState()
    view.view.Unpack(state)
    expect(page.locator(".ms-goal h2")).to_have_text("First to 12 stones wins")
    race = page.locator(".stone-race li")
    for seat, player in enumerate(state.players):
        expect(race.nth(seat)).to_contain_text(f"{player.stones} of 12")
    facts = {card.id: card for card in catalogue(client, "manasurge").cards}
    role = facts[71 + state.players[0].role]
    card = page.locator(f'.seat.mine .card.role[data-id="{role.id}"]')
    expect(card.locator(".card-name")).to_have_text(role.name)
    expect(card.locator(".card-text")).to_have_text(role.effect)
    no_seat_numbers_or_bookkeeping(page)


def test_rnd_is_a_cooperative_game_with_shared_credits_readable_designs_and_the_ballots_revealed(
    page: Page, client: Client
) -> None:
    table_id = create_table(page, "rnd", 3)
    expect(page.locator(".rnd-team")).to_contain_text("A cooperative game")
    expect(page.locator(".rnd-team .credits")).to_contain_text("Shared credits: 0")
    play_to_the_end(page)
    public = client.view(table_id)
    state = RndState()
    public.view.Unpack(state)
    result = page.locator(".result h2")
    expect(result).to_contain_text("A cooperative game: every player is a winner")
    expect(result).to_contain_text(f"Shared credits: {round(sum(public.outcome.scores))}")
    expect(result).not_to_contain_text("tied")
    # the designs: every art box shown whole (no part of it scrolled or cut away)
    arts = page.locator(".design-art")
    expect(arts).to_have_count(len(state.designs))
    for box in arts.all():
        assert box.evaluate("e => e.scrollWidth <= e.clientWidth + 1 && e.scrollHeight <= e.clientHeight + 1")
    # who voted for what, after the reveal
    seats = names(client, table_id)
    awards = {1: 1, 2: 2, 3: 3}  # RndAward value -> the ballot table's column
    for seat, ballot in enumerate(state.ballots):
        row = page.locator(".ballots tbody tr").nth(seat)
        expect(row.locator("th")).to_have_text("You" if seat == 0 else seats[seat])
        for vote in ballot.votes:
            design = state.designs[vote.design]
            expect(row.locator("td").nth(awards[vote.award] - 1)).to_have_text(
                f"card {vote.design + 1}, “{design.name}”" if design.name else f"card {vote.design + 1}"
            )
    no_seat_numbers_or_bookkeeping(page)


def test_a_card_says_what_it_does_on_hover_on_keyboard_focus_and_on_tap(
    browser: Browser, web_stack: Stack, client: Client
) -> None:
    touch = browser.new_context(viewport=PHONE, has_touch=True)
    touch.set_default_timeout(20_000)
    page = touch.new_page()
    page.goto(f"http://{web_stack.web_address}/")
    table_id = create_table(page, "manasurge", 2)
    view = settled(page, client, table_id)
    state = ManasurgeState()
    view.view.Unpack(state)
    facts = {card.id: card for card in catalogue(client, "manasurge").cards}
    first, second = (page.locator(f'.seat.mine .card[data-id="{card}"]') for card in sorted(state.players[0].hand)[:2])
    tip = tip_of(first)
    expect(tip).to_be_hidden()
    first.tap()
    expect(tip).to_be_visible()
    expect(tip).to_contain_text(facts[int(first.get_attribute("data-id") or -1)].effect)
    expect(tip).to_contain_text(f"When: {facts[int(first.get_attribute('data-id') or -1)].timing}.")
    second.tap()  # another card: its facts, and the first one's are closed
    expect(tip_of(second)).to_be_visible()
    expect(tip).to_be_hidden()
    page.locator("h1").tap()
    expect(tip_of(second)).to_be_hidden()
    # keyboard: focus opens it, Escape closes it; the card names its facts as its description
    first.focus()
    expect(tip).to_be_visible()
    assert first.get_attribute("aria-describedby") == tip.get_attribute("id")
    page.keyboard.press("Escape")
    expect(tip).to_be_hidden()
    # a mouse: hover
    mouse = browser.new_context(viewport=PHONE)  # the same seat, in a browser with a mouse
    held = page.evaluate(f"localStorage.getItem('manaforge.seat.{table_id}')")
    mouse.add_init_script(f"localStorage.setItem('manaforge.seat.{table_id}', {json.dumps(held)})")
    desk = mouse.new_page()
    desk.goto(page.url)
    hovered = desk.locator(".seat.mine .card").first
    hovered.hover()
    expect(tip_of(hovered)).to_be_visible()
    mouse.close()
    touch.close()


def test_each_game_has_a_how_to_play_page_from_its_table_and_from_the_lobby(page: Page, client: Client) -> None:
    how = {game.name: game for game in client.games()}
    page.select_option("select[name=game]", "magicka")
    page.get_by_role("link", name="How to play Magicka Mayhem").click()
    expect(page).to_have_url(re.compile(r"#/rules/magicka$"))
    expect(page.locator(".howto h1")).to_have_text("How to play Magicka Mayhem")
    expect(page.locator(".howto")).to_contain_text("Every wizard starts with 20 health")
    page.goto(page.url.split("#")[0] + "#/")
    table_id = create_table(page, "mana_burn", 2)
    page.get_by_role("link", name="How to play").click()
    expect(page).to_have_url(re.compile(r"#/rules/mana_burn$"))
    expect(page.locator(".howto h1")).to_have_text("How to play MANA BURN")
    expect(page.locator(".howto h2").first).to_have_text("The goal")
    assert "one of each of the ten cards" in how["mana_burn"].how_to_play
    expect(page.locator(".howto strong").first).to_have_text("one of each of the ten cards")
    page.get_by_role("button", name="Back").click()
    expect(page).to_have_url(re.compile(f"#/table/{table_id}$"))
    expect(page.locator(".mb-board")).to_be_visible()


@pytest.mark.parametrize("game", GAMES)
def test_every_game_is_drawn_as_its_game_with_seats_named_and_no_bookkeeping(page: Page, game: str) -> None:
    create_table(page, game, 3 if game == "rnd" else 2)
    for _ in range(2):
        decide(page)
    page.wait_for_selector(DECISION)
    expect(page.locator(".log li").first).to_be_visible()
    no_seat_numbers_or_bookkeeping(page)
    expect(page.locator(f".board.presented.game-{game}")).to_be_visible()
    expect(page.locator(".board dl.facts")).to_have_count(0)  # no field-by-field dump of the view


def test_magicka_creatures_are_cards_with_attack_health_and_their_controller(
    context: BrowserContext, web_stack: Stack, client: Client
) -> None:
    """A seat that summons whenever it can (a gRPC client), watched on its own page once a creature is in play."""
    made = client.create_table("magicka", 2, bots={1: "random"}, player_name="Ann")
    table_id, seat_token = made.table.table_id, made.seat_token
    state = MagickaState()
    for _ in range(600):
        view = client.view(table_id, seat_token)
        view.view.Unpack(state)
        if 0 not in view.pending.seats and not view.outcome.finished:
            time.sleep(0.02)  # the bot's move
            continue
        if view.outcome.finished or (state.creatures and view.pending.kind == DecisionKind.DECISION_KIND_TURN):
            break  # Ann's turn (no response window's timer runs): nothing moves while the page shows this state
        texts = [legal.text for legal in view.legal_actions]
        pick = next((i for i, t in enumerate(texts) if "Summon" in t), None)
        if pick is None:  # trade towards a summon, else end the turn (never a damage spell: the game goes on)
            trades = [i for i, t in enumerate(texts) if t.startswith("exchange")]
            pick = trades[len(trades) // 2] if trades and state.turns_taken % 3 else None
        if pick is None:
            pick = next(
                i
                for i, t in enumerate(texts)
                if t in ("end the turn", "draw the replacement cards") or t.startswith(("discard", "pass"))
            )
        client.submit(table_id, seat_token, view.legal_actions[pick].action, expected_version=view.version)
    assert state.creatures, "no creature was summoned"
    context.add_init_script(
        f"localStorage.setItem('manaforge.seat.{table_id}', {json.dumps(json.dumps({'seat': 0, 'token': seat_token}))})"
    )
    page = context.new_page()
    page.goto(f"http://{web_stack.web_address}/#/table/{table_id}")
    facts = {card.id: card for card in catalogue(client, "magicka").cards}
    for creature in state.creatures:
        owner = "Ann" if creature.controller == 0 else client.table(table_id).seats[creature.controller].name
        card = page.locator(f'.wizard:has(h3:has-text("{owner}")) .card.creature[data-id="{creature.card}"]')
        expect(card.locator(".card-name")).to_have_text(facts[creature.card].name.removeprefix("Summon "))
        expect(card.locator(".attack")).to_have_text(f"⚔ {creature.attack}")
        expect(card.locator(".health")).to_have_text(f"♥ {creature.health}/{creature.max_health}")
        expect(card).to_contain_text("Your creature" if creature.controller == 0 else f"{owner}'s creature")
    no_seat_numbers_or_bookkeeping(page)
