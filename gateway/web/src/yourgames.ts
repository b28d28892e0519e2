// "Your games": the tables where the player has a seat, across games, with whose decision each waits for. A
// registered player's come from the gateway (ListTables mine, newest first); a guest's are the seats this browser holds
// (localStorage), newest first, each table asked for (a table gone from the server is forgotten).
import { html, nothing, type TemplateResult } from "lit-html";
import { Code } from "@connectrpc/connect";
import { dropSeat, gateway, heldSeats, identity } from "./api";
import { codeOf, title } from "./page";
import type { Table } from "./gen/manaforge/v1/gateway_pb";

const GUEST_TABLES = 10; // a guest's newest tables asked for at each refresh
const REGISTERED_TABLES = 10;
const ended = new Map<string, Table>(); // a guest's finished tables, asked for once (they change no more)

/** A table of the player's, and their seat there. */
export interface YourGame {
  table: Table;
  seat: number;
}

export async function yourGames(): Promise<YourGame[]> {
  const who = identity();
  let games: YourGame[];
  if (who.playerId) {
    const tables = (await gateway.listTables({ mine: true, pageSize: REGISTERED_TABLES })).tables;
    games = tables.map((table) => ({ table, seat: table.seats.find((s) => s.playerId === who.playerId)?.seat ?? -1 }));
  } else {
    const held = heldSeats().slice(0, GUEST_TABLES);
    const found = await Promise.allSettled(held.map(([tableId]) => ended.get(tableId) ?? gateway.getTable({ tableId })));
    games = [];
    found.forEach((answer, i) => {
      const [tableId, seat] = held[i];
      if (answer.status === "fulfilled") {
        games.push({ table: answer.value, seat: seat.seat });
        if (answer.value.outcome?.finished && ended.size < GUEST_TABLES * 5) ended.set(tableId, answer.value);
      }
      else if (codeOf(answer.reason) === Code.NotFound) dropSeat(tableId);
    });
  }
  const finished = (g: YourGame) => (g.table.outcome?.finished ? 1 : 0);
  return games.sort((a, b) => finished(a) - finished(b)); // under way first; each part stays newest first
}

export function isYourTurn(game: YourGame): boolean {
  const t = game.table;
  return t.started && !t.outcome?.finished && (t.pending?.seats ?? []).includes(game.seat);
}

/** Whose decision the table waits for, in words. */
function whose(game: YourGame): TemplateResult {
  const t = game.table;
  if (t.outcome?.finished) return html`<span class="muted">finished</span>`;
  if (!t.started) return html`<span class="muted">waiting for players to join</span>`;
  if (isYourTurn(game)) return html`<strong class="your-turn-badge">your turn</strong>`;
  const others = (t.pending?.seats ?? []).map((s) => t.seats[s]?.name || "a bot");
  return html`<span class="muted">${others.length ? `waiting for ${others.join(", ")}` : "waiting"}</span>`;
}

/** The lobby's list. */
export function yourGamesList(games: YourGame[]): TemplateResult {
  const registered = !!identity().playerId;
  return html`<section class="panel" aria-labelledby="mine">
    <h2 id="mine">Your games</h2>
    ${games.length
      ? html`<ul class="tables your-games">${games.map((g) => {
          const t = g.table;
          const others = t.seats.filter((s) => s.seat !== g.seat).map((s) => s.name || "open seat");
          const mine = isYourTurn(g);
          return html`<li data-table=${t.tableId} class=${mine ? "your-turn" : ""}>
            <span><strong>${title(t.config?.game ?? "")}</strong> · ${others.length ? `with ${others.join(", ")}` : "alone"} · ${whose(g)}</span>
            ${t.outcome?.finished
              ? html`<a class="button" href=${`#/replay/${t.tableId}`}>Replay</a>`
              : html`<a class="button" href=${`#/table/${t.tableId}`} aria-label=${`${mine ? "Play" : "Open"}: ${title(t.config?.game ?? "")} ${t.tableId}`}>${mine ? "Play" : "Open"}</a>`}
          </li>`;
        })}</ul>`
      : html`<p class="empty">None right now.</p>`}
    ${registered ? nothing : html`<p class="about">The tables this browser has a seat at. Register a name to find your games from any browser.</p>`}
  </section>`;
}
