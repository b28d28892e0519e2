// Each game drawn as its game: a presentation per game, chosen by the game's registry name, drawing what a player
// of that game looks at from the seat's own view (never anything else). A game without one is drawn by the
// generic schema renderer (board.ts), which works for any game. One line per game below.
import { html, type TemplateResult } from "lit-html";
import type { DescMessage, Message } from "@bufbuild/protobuf";
import type { Outcome, Pending } from "../gen/manaforge/v1/common_pb";
import { renderBoard } from "../board";
import type { Cards } from "../cards";
import { list, named, who, type Seating } from "../names";
import { blueprints } from "./blueprints";
import { magicka } from "./magicka";
import { manaBurn } from "./mana_burn";
import { manasurge } from "./manasurge";
import { manufactory } from "./manufactory";
import { rnd } from "./rnd";
import "./games.css";

/** What a presentation draws from: the seat's view (the public one for a spectator or a replay) and its table. */
export interface Scene<View = Message> {
  game: string;
  options: Record<string, string>;
  seats: Seating;
  view: View;
  cards: Cards;
  pending?: Pending;
  outcome?: Outcome;
}

export interface Presentation<View = Message> {
  /** The table as a player of the game sees it. */
  board(scene: Scene<View>): TemplateResult;
  /** The result in the game's own words (default: who won, and the scores). */
  result?(outcome: Outcome, seats: Seating): string;
}

const PRESENTATIONS: Record<string, Presentation<never>> = {
  mana_burn: manaBurn,
  magicka,
  manasurge,
  rnd,
  manufactory,
  blueprints,
};

/** The game's own presentation, when it has one. */
export function presentation(game: string): Presentation | undefined {
  return PRESENTATIONS[game] as Presentation | undefined;
}

/** The board of `scene`: the game's presentation, or the schema's generic one. */
export function drawTable(scene: Scene, schema: DescMessage, version: bigint): TemplateResult {
  const own = presentation(scene.game);
  const drawn = own ? own.board(scene) : renderBoard({ game: scene.game, options: scene.options, seats: scene.seats, cards: scene.cards }, schema, scene.view);
  return html`<div class="board game-${scene.game} ${own ? "presented" : "generic"}" data-version=${String(version)}>${drawn}</div>`;
}

/** The result in words: the game's own, or who won and the scores. */
const ABORTED = "aborted by the operator"; // the reason of a table the operator ended (services/tables/operations.py)

export function resultText(game: string, outcome: Outcome, seats: Seating): string {
  if (outcome.reason === ABORTED && !outcome.winners.length) return "The operator ended this game: aborted by the operator, no winner, no rating change.";
  const own = presentation(game)?.result;
  if (own) return own(outcome, seats);
  const mine = seats.mine;
  const others = outcome.winners.filter((w) => w !== mine).map((w) => who(w, seats));
  const won = outcome.winners.includes(mine);
  const verdict =
    mine >= 0 && won
      ? others.length ? `You tied for the win with ${list(others)}` : "You won"
      : `${mine >= 0 ? "You lost" : "Game over"} — ${others.length > 1 ? "winners" : others.length ? "winner" : "no winner"}${others.length ? `: ${list(others)}` : ""}`;
  const why = outcome.reason ? ` — ${named(outcome.reason, seats)}` : "";
  const scores = outcome.scores.length ? `. Scores: ${outcome.scores.map((score, seat) => `${who(seat, seats)} ${score}`).join(", ")}` : "";
  return `${verdict}${why}${scores}.`;
}
