/// <reference types="vite/client" />
// The Gateway service, called from the page with gRPC-Web through the web edge; who the player is, and the seat
// tokens this browser holds (kept in localStorage, so a reload or a new tab takes the seat again).
import { createClient, type Interceptor } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { createRegistry } from "@bufbuild/protobuf";
import { Gateway } from "./gen/manaforge/v1/gateway_pb";
import { RulesService } from "./gen/manaforge/v1/rules_pb";
import type { DescFile } from "@bufbuild/protobuf";

/** Every game's messages: views and actions arrive as Any and are unpacked with it. Every generated file under
 * gen/manaforge/v1/games/ is taken at build time, so a new game's schema needs no line here. */
const gameModules = import.meta.glob<Record<string, unknown>>("./gen/manaforge/v1/games/*_pb.ts", { eager: true });
const gameFiles = Object.values(gameModules).flatMap((module) =>
  Object.entries(module).filter(([name]) => name.startsWith("file_manaforge_v1_games_")).map(([, file]) => file as DescFile),
);
export const games = createRegistry(...gameFiles);

export interface Identity {
  name: string;
  playerId?: string;
  key?: string; // a registered player's secret key, shown once by RegisterPlayer
}

const IDENTITY = "manaforge.identity";

export function identity(): Identity {
  const saved = localStorage.getItem(IDENTITY);
  if (saved) return JSON.parse(saved) as Identity;
  const guest = { name: `guest-${Math.random().toString(36).slice(2, 7)}` };
  saveIdentity(guest);
  return guest;
}

export function saveIdentity(who: Identity): void {
  localStorage.setItem(IDENTITY, JSON.stringify(who));
}

export function forget(): void {
  localStorage.removeItem(IDENTITY);
}

/** A registered player's calls carry x-player-id and x-player-key (the API's players section). */
const player: Interceptor = (next) => async (request) => {
  const who = identity();
  if (who.playerId && who.key) {
    request.header.set("x-player-id", who.playerId);
    request.header.set("x-player-key", who.key);
  }
  return next(request);
};

const transport = createGrpcWebTransport({ baseUrl: location.origin, interceptors: [player] });

export const gateway = createClient(Gateway, transport);

/** The stateless rules: a finished game's replay re-applies its log from its seed to show the board at each step. */
export const rules = createClient(RulesService, transport);

export interface SeatHeld {
  seat: number;
  token: string;
  seen?: string; // the last version this browser showed the seat (a bigint's digits): what happened since is news
  at?: number; // when this browser took the seat (ms since the epoch): a guest's games are listed newest first
}

const seatKey = (tableId: string) => `manaforge.seat.${tableId}`;

export function heldSeat(tableId: string): SeatHeld | undefined {
  const saved = localStorage.getItem(seatKey(tableId));
  return saved ? (JSON.parse(saved) as SeatHeld) : undefined;
}

export function holdSeat(tableId: string, seat: number, token: string, seen?: bigint): void {
  const at = heldSeat(tableId)?.at ?? Date.now();
  localStorage.setItem(seatKey(tableId), JSON.stringify({ seat, token, seen: seen?.toString(), at }));
}

/** The tables where this browser holds a seat, newest first (a guest's games). */
export function heldSeats(): [string, SeatHeld][] {
  const prefix = seatKey("");
  const held: [string, SeatHeld][] = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (!key?.startsWith(prefix)) continue;
    try {
      held.push([key.slice(prefix.length), JSON.parse(localStorage.getItem(key)!) as SeatHeld]);
    } catch {
      // not ours to read
    }
  }
  return held.sort(([, a], [, b]) => (b.at ?? 0) - (a.at ?? 0));
}

/** A seat token the gateway refused (a forged or foreign link): forgotten. */
export function dropSeat(tableId: string): void {
  localStorage.removeItem(seatKey(tableId));
}

/** This browser's place in a queue, kept so that a reload, a closed tab or another page keeps it. */
export interface TicketHeld {
  ticketId: string; // the ticket's capability: the seat of its match is given to whoever holds it
  game: string;
  seats: number;
}

const TICKET = "manaforge.ticket";

export function heldTicket(): TicketHeld | undefined {
  const saved = localStorage.getItem(TICKET);
  return saved ? (JSON.parse(saved) as TicketHeld) : undefined;
}

export function holdTicket(ticket: TicketHeld | undefined): void {
  if (ticket) localStorage.setItem(TICKET, JSON.stringify(ticket));
  else localStorage.removeItem(TICKET);
}
