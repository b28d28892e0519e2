// What a table page and a replay both draw: the seats by name, the board of a view as its game draws it (with every
// card's facts, asked once per table and options), and the result in the game's words.
import type { TemplateResult } from "lit-html";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import type { DescMessage, Message } from "@bufbuild/protobuf";
import { games, gateway } from "./api";
import { facesOf } from "./board";
import { Cards } from "./cards";
import { drawTable, resultText } from "./games";
import type { Seating } from "./names";
import type { Catalogue, GameConfig, Outcome } from "./gen/manaforge/v1/common_pb";
import { SeatKind, type SeatView, type Table } from "./gen/manaforge/v1/gateway_pb";

export function parse(view: SeatView): { schema: DescMessage; message: Message } | undefined {
  const any = view.view;
  if (!any?.typeUrl) return undefined;
  const schema = games.getMessage(any.typeUrl.slice(any.typeUrl.lastIndexOf("/") + 1));
  const message = schema && anyUnpack(any, schema);
  return schema && message ? { schema, message } : undefined;
}

export function seatNames(table: Table | undefined): string[] {
  return (table?.seats ?? []).map((s) => (s.kind === SeatKind.OPEN ? `seat ${s.seat} (open)` : s.kind === SeatKind.BOT ? s.name || `bot (${s.botLevel || "random"})` : s.botAccount ? `${s.name} (bot account)` : s.name));
}

export function result(outcome: Outcome, names: string[], mine: number, game = ""): string {
  return resultText(game, outcome, { names, mine }); // in the game's words (games/)
}

/** The facts of every card a table can show (GetCatalogue: asked once per table and options). */
const catalogues = new Map<string, Promise<Catalogue>>();

export function catalogueOf(config: GameConfig): Promise<Catalogue> {
  const key = JSON.stringify([config.game, Object.entries(config.options).sort()]);
  let found = catalogues.get(key);
  if (!found) {
    found = gateway.getCatalogue({ config: { game: config.game, options: config.options } });
    found.catch(() => catalogues.delete(key)); // asked again next time
    catalogues.set(key, found);
  }
  return found;
}

/** The board of a view as its game draws it, with every card's facts and the seat's notes on its own cards. */
export function tableBoard(view: SeatView, config: GameConfig, catalogue: Catalogue | undefined, seats: Seating): TemplateResult {
  const parsed = parse(view)!;
  const cards = new Cards(catalogue, facesOf(parsed.schema, parsed.message).values(), view.cardNotes, seats);
  const scene = { game: config.game, options: config.options, seats, view: parsed.message, cards, pending: view.pending, outcome: view.outcome };
  return drawTable(scene, parsed.schema, view.version);
}
