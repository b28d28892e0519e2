"""Every game played to its end in the terminal client, through a pseudo-terminal as a person types: the numbered
choices (opened in steps where there are many), R&D's free texts with their limits, and the result in words."""

from __future__ import annotations

import io
import random
import re
import signal
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import manaforge_sdk as mf
import pexpect
import pytest
from manaforge.v1.common_pb2 import DecisionKind, GameConfig

from deploy.launcher import Stack
from gateway.cli.words import Screen, seat_names
from gateway.client import Client

# A client's test: one storage layout is enough (the shared stack also runs on a Redis Cluster for the server's tests).
pytestmark = pytest.mark.parametrize("stack", ["redis"], indirect=True)

MANAFORGE = str(Path(sys.executable).parent / "manaforge")

MOVE = r"your move(?: \(b: back\))?> "
ART = r"the art \(up to 8 lines of 32 characters\), one line at a time; an empty line ends it, and at once keeps"
ART_LINE = r"  line \d \| "
NAME = r"the card's name \(up to 30 characters; Enter keeps '[^']*'\): "
FLAVOUR = r"the flavour text \(up to 160 characters; Enter keeps '[^']*'\): "
RESULT = r"\r\n(You won|You lost|You shared the win|You all won together|Nobody won)([^\r\n]*)\.\r\n"
CHOICE = re.compile(r"^ +(\d+)\. (.*?)\r?$", re.MULTILINE)


class Terminal:
    """A `manaforge` process on a pseudo-terminal, read as the person at it reads it."""

    def __init__(self, child: pexpect.spawn[str]) -> None:
        self.child = child
        self.seen = io.StringIO()  # the whole transcript
        child.logfile_read = self.seen

    def expect(self, *patterns: Any, timeout: float = 60) -> int:
        return self.child.expect(list(patterns), timeout=timeout)

    def group(self, number: int) -> str:
        match = self.child.match
        assert isinstance(match, re.Match)
        return str(match.group(number))

    @property
    def before(self) -> str:
        return str(self.child.before)

    def sendline(self, line: str) -> None:
        self.child.sendline(line)

    def finish(self) -> int | None:
        """Wait for the process to end; its exit status."""
        self.expect(pexpect.EOF)
        self.child.close()
        return self.child.exitstatus


@dataclass
class Player:
    """A person at the terminal: picks among the numbered choices at random (seeded), writes R&D's texts."""

    child: Terminal
    rng: random.Random
    name: str = ""
    moves: int = 0
    steps: int = 0  # choices that opened a shorter list
    texts: list[str] = field(default_factory=list)  # the free texts it typed
    refusals: list[str] = field(default_factory=list)  # limits the client explained before accepting a text

    def play(self) -> tuple[str, str]:
        """Answer every prompt until the result; returns (the result line, the replay verdict)."""
        while True:
            match self.child.expect(MOVE, ART, NAME, FLAVOUR, RESULT):
                case 0:
                    self.move()
                case 1:
                    self.draw_art()
                case 2:
                    self.write(f"{self.name} card {len(self.texts)}", too_long="n" * 37)
                case 3:
                    self.write(f"{self.name} wrote this in flavour text {len(self.texts)}.", too_long="x" * 161)
                case 4:
                    result = self.child.group(0).strip()
                    self.child.expect(r"replay validation: ([^\r\n]*)\r\n", timeout=30)
                    return result, self.child.group(1)

    def until_vote(self, name: str, flavour: str) -> list[tuple[str, str]]:
        """Answer R&D's prompts, writing `name` and `flavour` for the card, until the vote is asked: its choices (the
        vote's, each with its number)."""
        while True:
            match self.child.expect(MOVE, ART, NAME, FLAVOUR):
                case 0:
                    shown = CHOICE.findall(self.child.before)
                    votes = [(number, label) for number, label in shown if label.startswith("vote in secret for ")]
                    if votes:
                        return votes
                    self.move()
                case 1:
                    self.draw_art()
                case 2:
                    self.write(name, too_long="y" * 31)
                case 3:
                    self.write(flavour, too_long="y" * 161)

    def move(self) -> None:
        shown = CHOICE.findall(self.child.before)
        if not shown:  # the question written again below what another seat did meanwhile: already answered
            assert re.search(r"\* [^\r\n]+\r?\n", self.child.before), self.child.before
            return
        number, label = self.rng.choice(shown)
        self.steps += "choices" in label
        self.moves += "choices" not in label
        self.child.sendline(number)

    def draw_art(self) -> None:
        self.child.expect(ART_LINE)
        self.child.sendline("x" * 33)  # one too wide: the rules' own check explains the limit, then asks again
        self.child.expect(ART_LINE)
        self.child.sendline("")
        self.child.expect(r"each line of the art is at most 32 characters; try again")
        art = [f"/\\ {self.name}", "\\/ drawn at a terminal"]
        for line in art:
            self.child.expect(ART_LINE)
            self.child.sendline(line)
        self.child.expect(ART_LINE)
        self.child.sendline("")
        self.texts.append("\n".join(art))

    def write(self, text: str, too_long: str) -> None:
        self.child.sendline(too_long)
        self.child.expect(r"the [^\r\n]* is at most \d+ characters, not \d+; try again")
        self.refusals.append(self.child.group(0))
        self.child.expect(NAME, FLAVOUR)
        self.child.sendline(text)
        self.texts.append(text)


def interruptible() -> None:
    """Ctrl-C works as at a person's terminal, however the tests were started: a shell runs a job put in the
    background without job control with SIGINT ignored, and every child inherits that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def spawn(stack: Stack, tmp_path: Path, *args: str) -> Terminal:
    env = {"MANAFORGE_HOME": str(tmp_path), "PATH": str(Path(sys.executable).parent), "TERM": "dumb"}
    command = ["--gateway", stack.gateway_addresses[0], *args]
    child = pexpect.spawn(
        MANAFORGE,
        command,
        env=env,
        encoding="utf-8",
        timeout=60,
        dimensions=(50, 200),
        preexec_fn=interruptible,
    )
    return Terminal(child)


GAMES = [
    ("manufactory", 2, []),
    ("blueprints", 2, []),
    ("rnd", 3, []),
    ("manasurge", 2, []),
    ("mana_burn", 2, ["--option", "turn_limit=15"]),
    ("magicka", 2, ["--option", "mode=spellmageddon"]),
    ("magicka", 2, ["--option", "mode=spell_vs_spell"]),
]


@pytest.mark.parametrize(("game", "seats", "options"), GAMES, ids=[f"{g}-{' '.join(o)}" for g, _, o in GAMES])
def test_a_whole_game_in_the_terminal_against_bots(
    stack: Stack, tmp_path: Path, game: str, seats: int, options: list[str]
) -> None:
    child = spawn(stack, tmp_path, "play", game, "--seats", str(seats), "--name", "ann", *options)
    player = Player(child, random.Random(f"{game} {options}"), name="Ann")
    result, verdict = player.play()
    assert child.finish() == 0
    assert verdict.startswith("valid"), verdict
    assert player.moves > 0
    assert child.seen.getvalue().count("Game over") <= 1  # the client's result is in words, not a second "Game over"
    if game == "rnd":
        # every seat is artist and writer once: the art, then the name and flavour, each asked with its limits
        assert len(player.texts) == 3 and len(player.refusals) == 2, (player.texts, player.refusals)
        assert "the card name is at most 30 characters, not 37" in player.refusals[0]
        assert "the flavor text is at most 160 characters, not 161" in player.refusals[1]
    if game == "magicka":
        assert player.steps > 0  # a long list of exchanges was opened in steps
    if game == "rnd":  # cooperative: the whole table wins
        assert result.startswith("You all won together; scores: you "), result
    said = r"(You won|You lost: .+ won|You shared the win with .+|You all won together|Nobody won)(, \d+ to \d+)?.*\."
    assert re.fullmatch(said, result)


def test_rnd_votes_name_the_cards_the_person_wrote(stack: Stack, tmp_path: Path) -> None:
    child = spawn(stack, tmp_path, "play", "rnd", "--seats", "3", "--name", "ann")
    player = Player(child, random.Random(3), name="Ann")
    names = [label for _, label in player.until_vote("Ann's Pty Golem", "It only ever answered in prompts.")]
    assert any("Ann's Pty Golem" in label for label in names), names  # the card is named, not only "card 2"
    award = "(most powerful|least functional|most flavorful)"
    assert all(re.fullmatch(rf"vote in secret for card \d.*, as {award}", n) for n in names), names
    child.sendline("q")
    child.expect("you left table")
    assert child.finish() == 0


def test_a_vote_question_stands_while_other_seats_vote_and_the_vote_counts(stack: Stack, tmp_path: Path) -> None:
    """R&D's votes are taken at the same time: another seat's vote, arriving while the person is choosing, is said
    below the question, which stays (its choices are the same); the vote typed then counts, not "too late"."""
    ann = spawn(stack, tmp_path, "play", "rnd", "--seats", "3", "--open", "--name", "ann")
    ann.expect(r"table (\w+): you are seat 0")
    table_id = ann.group(1)
    asked = threading.Event()  # ann's vote question is on screen: the others vote then

    def others(name: str) -> None:
        def bot(view: Any, legal_actions: mf.LegalActions) -> mf.Action:
            if view.header.pending.kind == DecisionKind.DECISION_KIND_SIMULTANEOUS:
                asked.wait(60)
            return legal_actions[0][0]

        with mf.connect(stack.gateway_addresses[0]) as client:
            seat = client.join(table_id, name=name)
            client.play(table_id, seat.token, bot)

    threads = [threading.Thread(target=others, args=(name,), daemon=True) for name in ("bob", "cy")]
    for thread in threads:
        thread.start()
    player = Player(ann, random.Random(5), name="Ann")
    choices = player.until_vote("Ann's Ballot Box", "Counted, not too late.")
    asked.set()
    ann.expect(r"\* (bob|cy) voted for [^\r\n]*\r\n")  # said below the question while it is on screen
    ann.expect(MOVE)
    assert not CHOICE.findall(ann.before), ann.before  # the question stands: its choices are not listed again
    number, label = choices[0]
    award = label.rsplit(", as ", 1)[1]
    ann.sendline(number)  # chosen from the question as it was asked, before the others' votes
    listed: list[str] = []
    while not listed:  # the next question (the same one may be written again below the others' later votes first)
        ann.expect(MOVE)
        listed = [label for _, label in CHOICE.findall(ann.before)]
    assert not any(label.endswith(f", as {award}") for label in listed), listed  # counted: not asked again
    player.move()  # and on to the end
    _, verdict = player.play()
    assert ann.finish() == 0
    for thread in threads:
        thread.join(30)
    assert verdict.startswith("valid"), verdict
    assert "Too late" not in ann.seen.getvalue()


def test_two_people_at_one_table_see_it_while_the_other_decides(stack: Stack, tmp_path: Path) -> None:
    ann = spawn(stack, tmp_path / "ann", "play", "cardbench", "--open", "--name", "ann")
    ann.expect(r"table (\w+): you are seat 0")
    table_id = ann.group(1)
    ann.expect("waiting for 1 more player")
    bob = spawn(stack, tmp_path / "bob", "join", table_id, "--name", "bob")
    bob.expect("you are seat 1")
    bob.expect(r"Waiting for ann: ")  # bob is shown the table while ann decides
    ann.expect(r"Your turn: ")
    players = [Player(ann, random.Random(1), name="ann"), Player(bob, random.Random(2), name="bob")]
    with ThreadPoolExecutor(2) as pool:  # both people answer their prompts at once
        playing = {player.name: pool.submit(player.play) for player in players}
        results = {name: future.result(timeout=120) for name, future in playing.items()}
    assert results["ann"][1].startswith("valid") and results["bob"][1].startswith("valid")
    said = {name: line for name, (line, _) in results.items()}
    if said["ann"].startswith("You won"):
        assert said["bob"].startswith("You lost: ann won")
    elif said["bob"].startswith("You won"):
        assert said["ann"].startswith("You lost: bob won")
    scores = [re.search(r", (\d+) to (\d+)", said[n]) for n in ("ann", "bob")]
    if scores[0] and scores[1]:
        assert scores[0].groups() == tuple(reversed(scores[1].groups()))  # each sees its own score first


EVENT = re.compile(r"^  \* (.*?)\r?$", re.MULTILINE)


def shown_events(child: Terminal) -> list[str]:
    return EVENT.findall(child.seen.getvalue())


def test_a_game_goes_on_through_gateway_restarts_with_nothing_shown_twice_or_missed(
    stack: Stack, tmp_path: Path, store: Any
) -> None:
    ann = spawn(stack, tmp_path / "ann", "play", "cardbench", "--name", "ann")
    ann.expect(r"table (\w+): you are seat 0")
    table_id = ann.group(1)
    spectator = spawn(stack, tmp_path / "spectator", "watch", table_id)
    ann.expect(MOVE)
    ann.sendline("1")
    ann.expect(MOVE)
    spectator.expect(r"Waiting for ann: ")  # following the game
    # a graceful restart (SIGTERM: the gateway drains its streams) while ann looks at her choices: her client
    # follows the table meanwhile, so it says so at once, then asks again
    stack.restart("gateway-0")
    ann.expect("the gateway restarted: reconnected, nothing missed")
    ann.expect(MOVE)
    ann.sendline("1")
    spectator.expect("the gateway is restarting: reconnecting…")  # it was waiting for the next update
    spectator.expect("the gateway restarted: reconnected, nothing missed")
    # the gateway stopped while ann types: her move is sent again once it is back
    ann.expect(MOVE)
    stopped = stack.processes["gateway-0"]
    stopped.terminate()
    stopped.wait(10)
    ann.sendline("1")
    ann.expect(f"the gateway at {stack.gateway_addresses[0]} is unavailable: trying again…")
    stack.restart("gateway-0")
    ann.expect("the gateway is back: your move was sent")
    ann.expect("the gateway restarted: reconnected, nothing missed")
    _, verdict = Player(ann, random.Random(31), name="ann").play()
    assert ann.finish() == 0 and verdict.startswith("valid"), verdict
    spectator.expect(r"replay validation: valid")
    assert spectator.finish() == 0
    # every event each of them may see was shown once, in order, across both restarts
    events = store.events(table_id, 1)
    with Client(stack.gateway_addresses[0]) as client:
        names = seat_names(client.table(table_id))  # each says every seat by name, ann's own as "you"
    ann_sees, spectator_sees = Screen("cardbench", names, me=0), Screen("cardbench", names)
    mine = [ann_sees.event(e.text) for e in events if not e.HasField("audience") or e.audience == 0]
    assert shown_events(ann) == mine
    assert shown_events(spectator) == [spectator_sees.event(e.text) for e in events if not e.HasField("audience")]
    assert len(store.action_log(table_id)) == 100  # every move of ann's 50 landed once


TIMED_OUT = r"Your time ran out, so a bot decided for you: ([^\r\n]*)\.\r\n"


def test_a_clock_that_runs_out_at_the_prompt_is_said_at_once_and_the_game_is_followed_to_its_end(
    stack: Stack, tmp_path: Path
) -> None:
    """Nobody answers: each decision the clock makes for the seat is said as it happens (not when the person next
    types), then the seat is away and the game plays on to its end, which the client shows and leaves on."""
    ann = spawn(stack, tmp_path, "play", "manufactory", "--seats", "2", "--clock", "1", "--name", "ann")
    ann.expect(MOVE)
    for _ in range(2):
        ann.expect(TIMED_OUT, timeout=10)
        ann.expect("After 3 in a row your seat is marked away: a bot then plays it at once until you type something.")
        ann.expect(MOVE, timeout=10)  # the decision the game waits for now, asked at once
    ann.expect(TIMED_OUT, timeout=10)
    ann.expect("You are marked away: a bot now plays your seat at once, decision after decision. Type anything")
    ann.expect(RESULT, timeout=30)
    ann.expect(r"replay validation: valid")
    assert ann.finish() == 0
    seen = ann.seen.getvalue()
    assert "stale version" not in seen and "0 s left" not in seen  # no question about a decision that was gone
    assert "the game goes on" not in seen


def test_two_people_the_clock_of_one_runs_out_then_away_and_back(stack: Stack, tmp_path: Path) -> None:
    """ann lets her clock run out at the prompt: she is told at once what the bot played for her, and the next
    question is the live decision (her answer lands); three in a row make her away until she types something."""
    ann = spawn(stack, tmp_path / "ann", "play", "cardbench", "--open", "--clock", "2", "--name", "ann")
    ann.expect(r"table (\w+): you are seat 0")
    table_id = ann.group(1)
    bob = spawn(stack, tmp_path / "bob", "join", table_id, "--name", "bob")
    bob_player = Player(bob, random.Random(7), name="bob")
    ann.expect(MOVE)
    ann.expect(TIMED_OUT, timeout=10)  # said while the question was on screen, without a key pressed
    played = ann.group(1)
    assert re.fullmatch(r"you played \S+", played), played
    bob.expect(re.escape(f"* ann played {played.split()[-1]}"))  # what bob sees is what ann was told
    bob.expect(MOVE)
    bob_player.move()
    ann.expect(r"your clock: \d s left")  # the live decision, its clock from the server's deadline
    ann.expect(MOVE)
    ann.sendline("1")
    bob.expect(r"\* ann played ")  # her answer to the live question landed
    for _ in range(3):  # three in a row: away
        bob.expect(MOVE)
        bob_player.move()
        ann.expect(TIMED_OUT, timeout=10)
    ann.expect("You are marked away")
    bob.expect(MOVE)
    bob_player.move()
    bob.expect(MOVE)  # ann's move was made at once, without her clock
    ann.sendline("")
    ann.expect(r"You are back: your clock runs again \(2 s a decision\)\.")
    bob_player.move()
    ann.expect(r"your clock: \d s left")  # her own decision again, on her clock
    ann.expect(MOVE)
    ann.sendline("1")
    bob.expect(r"\* ann played ")
    for person in (ann, bob):
        person.expect(MOVE)
        person.sendline("q")
        person.expect("the game goes on")
        assert person.finish() == 0
    seen = ann.seen.getvalue()
    assert "stale version" not in seen and "refused" not in seen and "Too late" not in seen


def test_two_people_queue_for_a_game_one_leaves_and_comes_back_and_they_finish_it(stack: Stack, tmp_path: Path) -> None:
    queue = ["queue", "manufactory", "--seats", "2", "--option", "win_tie=most_cards", "--fill-after", "60"]
    ann = spawn(stack, tmp_path / "ann", *queue, "--name", "ann")  # a queue of its own: no other test's ticket
    ann.expect(r"waiting for players \(1/2\)")
    bob = spawn(stack, tmp_path / "bob", *queue, "--name", "bob")
    ann.expect(r"table (\w+): you are seat (\d)")
    table_id, ann_seat = ann.group(1), int(ann.group(2))
    bob.expect(rf"table {table_id}: you are seat {1 - ann_seat}")
    ann_player, bob_player = Player(ann, random.Random(11), name="ann"), Player(bob, random.Random(12), name="bob")
    with ThreadPoolExecutor(1) as pool:
        bob_playing = pool.submit(bob_player.play)
        while ann_player.moves < 3:
            ann.expect(MOVE)
            ann_player.move()
        ann.expect(MOVE)
        ann.sendline("q")  # mid-game, at her turn
        ann.expect(rf"you left table {table_id}; the game goes on: when your clock runs out a bot decides for")
        ann.expect(rf"Come back with `manaforge rejoin {table_id}` from this machine")
        assert ann.finish() == 0
        back = spawn(stack, tmp_path / "ann", "rejoin", table_id)  # a guest, on the machine she played on
        back.expect(rf"back at table {table_id}: you are seat {ann_seat}")
        result, verdict = Player(back, random.Random(13), name="ann").play()
        assert back.finish() == 0
        bob_result, bob_verdict = bob_playing.result(timeout=120)
    assert bob.finish() == 0
    assert verdict.startswith("valid") and bob_verdict.startswith("valid"), (verdict, bob_verdict)
    if result.startswith("You won"):
        assert bob_result.startswith("You lost: ann")
    assert "Your time ran out" not in back.seen.getvalue()  # she came back within her clock


def test_a_person_who_leaves_the_queue_is_matched_with_nobody(stack: Stack, tmp_path: Path) -> None:
    """Ctrl-C while waiting takes the ticket out of the queue at once: the next person is not matched with someone
    who has gone (and would wait at a table for their clock, decision after decision)."""
    queue = ["queue", "blueprints", "--seats", "2", "--option", "reveal=all", "--fill-after", "60"]
    ann = spawn(stack, tmp_path / "ann", *queue, "--name", "ann")  # a queue of its own: no other test's ticket
    ann.expect(r"waiting for players \(1/2\); bots fill the empty seats in \d+ s \(Ctrl-C leaves the queue\)")
    ann.child.sendintr()
    ann.expect("you left the queue")
    assert ann.finish() == 0
    bob = spawn(stack, tmp_path / "bob", *queue, "--name", "bob")
    bob.expect(r"waiting for players \(1/2\)")  # alone in the queue
    bob.child.sendintr()
    bob.expect("you left the queue")
    assert bob.finish() == 0
    assert "table" not in bob.seen.getvalue()


NOTE = re.compile(r"Not usable now:\r\n  ([^:\r\n]+): ([^\r\n]+)\r\n")


def test_info_says_what_a_card_does_and_why_a_held_card_cannot_be_used_now(stack: Stack, tmp_path: Path) -> None:
    child = spawn(stack, tmp_path, "play", "mana_burn", "--seats", "2", "--name", "ann", "--option", "turn_limit=15")
    for _ in range(60):  # answer until the table shows a held card that cannot be used now, and why
        child.expect(MOVE)
        noted = NOTE.search(child.before)
        if noted:
            break
        child.sendline(CHOICE.findall(child.before)[0][0])
    assert noted, "no held card was ever shown as not usable"
    card, note = noted.group(1).split(", ")[0], noted.group(2)
    with Client(stack.gateway_addresses[0]) as client:
        facts = next(f for f in client.catalogue(GameConfig(game="mana_burn")) if f.name == card)
    child.sendline("i")  # the cards in view: the engine's own facts, and the seat's note on its card
    child.expect("What the cards in view do")
    child.expect(MOVE)
    listed = " ".join(child.before.split())  # lines wrapped to the terminal
    assert f"{card} ({facts.kind}): {facts.effect}" in listed and f"cannot use {card} now: {note}" in listed
    child.sendline(f"i {card.lower()}")  # one card, by its name in any case
    child.expect(MOVE)
    one = " ".join(child.before.split())
    assert f"{card} — {facts.kind} {facts.effect} when: {facts.timing}" in one
    assert f"{card} — cannot use now: {note}" in one
    child.sendline("i Lotus")
    child.expect(MOVE)
    assert "no card called 'Lotus' at this table" in child.before
    child.sendline("r")  # the rules, from the table
    child.expect("HOW TO PLAY MANA BURN\r\n=====")
    child.expect("The goal\r\n--------\r\n")
    child.expect(MOVE)
    child.sendline("q")
    child.expect("you left table")
    assert child.finish() == 0
    # every seat by its name in everything the client printed after it said which seat is yours: the table, the
    # events, the choices, the notes, the prompts
    said = child.seen.getvalue().split("you are seat 0", 1)[1]
    assert not re.search(r"\b[Ss]eat \d", said), re.search(r".*\b[Ss]eat \d.*", said)
    assert "@A you · " in said and "@B the bot · " in said and "     your hand: " in said


def test_a_spectator_asks_about_cards_and_rules_while_watching(stack: Stack, tmp_path: Path) -> None:
    with Client(stack.gateway_addresses[0]) as client:
        created = client.create_table("magicka", 2, bots={1: "random"}, player_name="ann")  # ann never moves
        table_id = created.table.table_id
        spectator = spawn(stack, tmp_path, "watch", table_id)
        spectator.expect(r"Waiting for ann: ")
        spectator.sendline("i Fireball")
        spectator.expect(r"Fireball — Spell, costs Fire, Fire and Earth\r\n")
        spectator.sendline("r")
        spectator.expect("HOW TO PLAY MAGICKA MAYHEM")
        spectator.sendline("hello")
        spectator.expect("h: what you can type while watching")
        spectator.sendline("h")
        spectator.expect("Watching: the table is shown after every move")
        spectator.child.sendintr()  # Ctrl-C stops watching
        assert spectator.finish() == 0
