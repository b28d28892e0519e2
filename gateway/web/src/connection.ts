// The gateway's comings and goings, as a page lives through them: a call that finds it away (draining for a restart,
// or out of reach) is made again after a pause, and the page says so until it answers again.
import { html, nothing } from "lit-html";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Part, Show } from "./page";

export const PATIENCE_MS = 60_000; // a move waits this long for the gateway to come back
const BACKOFF_MS = [0, 250, 500, 1000, 2000]; // the pauses between tries while it is away, the last one repeated
const RETRY_MS = [1000, 2000, 5000, 10_000, 30_000]; // ... and after another failure, the last one repeated
const SAID_MS = 10_000; // how long "reconnected" stays

/** The gateway is draining, restarting or out of reach (as is the edge): the call may be made again. */
export function isAway(error: unknown): boolean {
  return error instanceof ConnectError && (error.code === Code.Unavailable || error.cause instanceof TypeError); // TypeError: fetch failed
}

function isDraining(error: unknown): boolean {
  return error instanceof ConnectError && error.code === Code.Unavailable && error.rawMessage.includes("gateway draining");
}

export function pause(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** The pause before the `tries`-th try again while the gateway is away. */
export function backoff(tries: number): number {
  return BACKOFF_MS[Math.min(tries, BACKOFF_MS.length - 1)];
}

/** A page's connection to the gateway: away since when (and whether it said it was draining), back since when. */
export class Connection {
  awaySince?: number; // when the gateway went away, while it is away
  draining = false; // it said it was draining (a graceful restart)
  backAt = 0; // when it answered again

  constructor(private readonly show: Show) {}

  /** A call found the gateway away. */
  away(error: unknown): void {
    if (this.awaySince !== undefined) return;
    this.awaySince = Date.now();
    this.draining = isDraining(error);
  }

  /** A call was answered again. */
  back(): void {
    if (this.awaySince === undefined) return;
    this.awaySince = undefined;
    this.backAt = Date.now();
    this.show();
  }

  /** The pause before the next try of a stream that broke `tries` times: short while the gateway is away. */
  retryAfter(tries: number): number {
    return this.awaySince === undefined ? RETRY_MS[Math.min(tries, RETRY_MS.length - 1)] : backoff(tries);
  }

  /** A notice is shown (or just went): the page is drawn again each second. */
  isSaying(): boolean {
    return this.awaySince !== undefined || Date.now() - this.backAt < SAID_MS + 1000;
  }

  view(): Part {
    if (this.awaySince !== undefined) {
      return html`<p class="connection" role="status">${this.draining ? "The gateway is restarting: reconnecting…" : "The gateway is unavailable: trying again…"}</p>`;
    }
    if (Date.now() - this.backAt < SAID_MS) {
      return html`<p class="connection" role="status">${this.draining ? "The gateway restarted: reconnected, nothing missed." : "The gateway is back: nothing missed."}</p>`;
    }
    return nothing;
  }
}
