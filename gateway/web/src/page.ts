// What the browser's pages share: the shape of a page, a refusal in words, the notice at a page's top, and the
// games' titles (filled by the app shell, main.ts, from ListGames).
import { html, nothing, type TemplateResult } from "lit-html";
import { Code, ConnectError } from "@connectrpc/connect";
import { human } from "./board";

/** A page of the app (main.ts shows one at a time, chosen by the address). */
export interface Page {
  view(): TemplateResult;
  close(): void;
  name?(): string; // the page's title, when it is not the site's
}

/** Draw the app again (main.ts: the challenges, the queue's banner and the page). */
export type Show = () => void;

/** Take the browser to an address of the app ("#/table/ID"). */
export type Go = (hash: string) => void;

export type Part = TemplateResult | typeof nothing;

/** The games' titles, by registry name. */
export const titles = new Map<string, string>();

export function title(game: string): string {
  return titles.get(game) ?? human(game);
}

export function problem(error: unknown): string {
  return error instanceof ConnectError ? error.rawMessage || error.message : String(error);
}

export function codeOf(error: unknown): Code | undefined {
  return error instanceof ConnectError ? error.code : undefined;
}

export function notice(text: string): Part {
  return text ? html`<p class="error" role="alert">${text}</p>` : nothing;
}
