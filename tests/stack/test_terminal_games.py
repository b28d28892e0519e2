"""Every game played to its end in the terminal client, through a pseudo-terminal as a person types: the numbered
choices (opened in steps where there are many), R&D's free texts with their limits, and the result in words."""

from __future__ import annotations

import io
import random
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pexpect
import pytest

from deploy.launcher import Stack

# A client's test: one storage layout is enough (the shared stack also runs on a Redis Cluster for the server's tests).
pytestmark = pytest.mark.parametrize("stack", ["redis"], indirect=True)

MANAFORGE = str(Path(sys.executable).parent / "manaforge")

MOVE = r"your move(?: \(b: back\))?> "
ART = r"the art \(up to 8 lines of 32 characters\), one line at a time; an empty line ends it, and at once keeps"
ART_LINE = r"  line \d \| "
NAME = r"the card's name \(up to 30 characters; Enter keeps '[^']*'\): "
FLAVOUR = r"the flavour text \(up to 160 characters; Enter keeps '[^']*'\): "
RESULT = r"\r\n(You won|You lost|You shared the win|Nobody won)([^\r\n]*)\.\r\n"
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

    def move(self) -> None:
        shown = CHOICE.findall(self.child.before)
        assert shown, self.child.before
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


def spawn(stack: Stack, tmp_path: Path, *args: str) -> Terminal:
    env = {"MANAFORGE_HOME": str(tmp_path), "PATH": str(Path(sys.executable).parent), "TERM": "dumb"}
    command = ["--gateway", stack.gateway_addresses[0], *args]
    return Terminal(pexpect.spawn(MANAFORGE, command, env=env, encoding="utf-8", timeout=60, dimensions=(50, 200)))


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
    assert re.fullmatch(r"(You won|You lost: .+ won|You shared the win with .+|Nobody won)(, \d+ to \d+)?.*\.", result)


def test_rnd_votes_name_the_cards_the_person_wrote(stack: Stack, tmp_path: Path) -> None:
    child = spawn(stack, tmp_path, "play", "rnd", "--seats", "3", "--name", "ann")
    player = Player(child, random.Random(3), name="Ann")
    names: list[str] = []
    while not names:
        match child.expect(MOVE, ART, NAME, FLAVOUR):
            case 0:
                votes = [label for _, label in CHOICE.findall(child.before) if label.startswith("vote for ")]
                if votes:
                    names = votes
                else:
                    player.move()
            case 1:
                player.draw_art()
            case 2:
                player.write("Ann's Pty Golem", too_long="y" * 31)
            case 3:
                player.write("It only ever answered in prompts.", too_long="y" * 161)
    assert any(label.endswith(": Ann's Pty Golem") for label in names), names  # the card is named, not "card 2"
    assert all(re.fullmatch(r"vote for (most powerful|least functional|most flavorful): .+", n) for n in names)
    child.sendline("q")
    child.expect("you left table")
    assert child.finish() == 0


def test_two_people_at_one_table_see_it_while_the_other_decides(stack: Stack, tmp_path: Path) -> None:
    ann = spawn(stack, tmp_path / "ann", "play", "cardbench", "--open", "--name", "ann")
    ann.expect(r"table (\w+): you are seat 0")
    table_id = ann.group(1)
    ann.expect("waiting for 1 more player")
    bob = spawn(stack, tmp_path / "bob", "join", table_id, "--name", "bob")
    bob.expect("you are seat 1")
    bob.expect(r"Waiting for ann \(seat 0\): ")  # bob is shown the table while ann decides
    ann.expect(r"Your turn: ")
    players = [Player(ann, random.Random(1), name="ann"), Player(bob, random.Random(2), name="bob")]
    with ThreadPoolExecutor(2) as pool:  # both people answer their prompts at once
        playing = {player.name: pool.submit(player.play) for player in players}
        results = {name: future.result(timeout=120) for name, future in playing.items()}
    assert results["ann"][1].startswith("valid") and results["bob"][1].startswith("valid")
    said = {name: line for name, (line, _) in results.items()}
    if said["ann"].startswith("You won"):
        assert said["bob"].startswith("You lost: ann (seat 0) won")
    elif said["bob"].startswith("You won"):
        assert said["ann"].startswith("You lost: bob (seat 1) won")
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
    spectator.expect(r"Waiting for ann \(seat 0\)")  # following the game
    # a graceful restart (SIGTERM: the gateway drains its streams) while ann looks at her choices
    stack.restart("gateway-0")
    ann.sendline("1")
    ann.expect("the gateway restarted: reconnected, nothing missed")
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
    assert shown_events(ann) == [e.text for e in events if not e.HasField("audience") or e.audience == 0]
    assert shown_events(spectator) == [e.text for e in events if not e.HasField("audience")]
    assert len(store.action_log(table_id)) == 100  # every move of ann's 50 landed once
