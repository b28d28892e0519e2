// This browser's place in a matchmaking queue, shown on every page (in the lobby's "A new game", at the top of any
// other page): waited on with WaitForMatch until it is matched, then the player is taken to the table.
import { html, nothing, type TemplateResult } from "lit-html";
import { Code } from "@connectrpc/connect";
import { gateway, heldTicket, holdSeat, holdTicket, identity, type TicketHeld } from "./api";
import { backoff, isAway, pause } from "./connection";
import { codeOf, notice, problem, title, type Go, type Part, type Show } from "./page";
import type { QueueTicket } from "./gen/manaforge/v1/gateway_pb";

/** This browser's place in a queue, on every page: waited on until it is matched, then the player is taken to the
 * table. A reload or a closed tab keeps it (the ticket is kept in localStorage); only "Leave the queue" leaves. */
export class Queue {
  held?: TicketHeld = heldTicket();
  waiting = 0;
  said = ""; // what became of it (a lapsed ticket), or a refusal
  private abort = new AbortController();
  private running = false;

  constructor(
    private readonly show: Show,
    private readonly go: Go,
  ) {}

  /** Wait on the held ticket, if there is one and nobody waits on it yet. */
  start(): void {
    if (this.held && !this.running) void this.run();
  }

  async join(game: string, seats: number): Promise<void> {
    const ticket = await gateway.joinQueue({ game, seats, playerName: identity().name });
    this.held = { ticketId: ticket.ticketId, game, seats };
    holdTicket(this.held);
    this.said = "";
    if (this.answered(ticket)) this.start();
  }

  /** Start the table now, bots in the seats still empty: at any moment, matched or not (then it is the match). */
  async fill(): Promise<void> {
    if (this.held) this.answered(await gateway.fillWithBots({ ticketId: this.held.ticketId }));
  }

  async leave(): Promise<void> {
    const held = this.held;
    if (!held) return;
    try {
      await gateway.leaveQueue({ ticketId: held.ticketId });
    } catch (e) {
      if (codeOf(e) === Code.FailedPrecondition) { // matched meanwhile: the seat is this player's all the same
        this.answered(await gateway.waitForMatch({ ticketId: held.ticketId, timeoutSeconds: 0 }));
        return;
      }
      if (codeOf(e) !== Code.NotFound) throw e;
    }
    this.forget();
  }

  /** A ticket's answer; false once it is matched (the player is taken to the table) or the queue was left. */
  answered(ticket: QueueTicket): boolean {
    if (!this.held || ticket.ticketId !== this.held.ticketId) return false;
    if (ticket.matched) {
      holdSeat(ticket.tableId, ticket.seat, ticket.seatToken);
      this.forget();
      this.go(`#/table/${ticket.tableId}`);
      return false;
    }
    this.waiting = ticket.waiting;
    this.show();
    return true;
  }

  forget(): void {
    this.held = undefined;
    holdTicket(undefined);
    this.abort.abort();
    this.abort = new AbortController();
    this.show();
  }

  private async run(): Promise<void> {
    this.running = true;
    let tries = 0;
    while (this.held) {
      const held = this.held;
      const signal = this.abort.signal;
      try {
        const ticket = await gateway.waitForMatch({ ticketId: held.ticketId, timeoutSeconds: 5 }, { signal });
        tries = 0;
        if (!this.answered(ticket)) break;
      } catch (e) {
        if (signal.aborted) continue; // left, or matched by another call: the loop sees it
        if (codeOf(e) === Code.NotFound && this.held === held) { // unknown: it lapsed (nobody waited on it for a minute)
          this.forget();
          this.said = `Your place in the queue for ${title(held.game)} lapsed: queue again.`;
          this.show();
          break;
        }
        this.said = isAway(e) ? "" : problem(e);
        this.show();
        await pause(backoff(++tries));
      }
    }
    this.running = false;
  }

  /** A click's work; a refusal is said at the top of the page. */
  private async act(work: () => Promise<void>): Promise<void> {
    this.said = "";
    try {
      await work();
    } catch (e) {
      this.said = problem(e);
    }
    this.show();
  }

  /** The place in the queue, with its two buttons. */
  status(): TemplateResult {
    const held = this.held!;
    return html`<div class="queue stack" role="status" aria-label="In the queue">
      <h3>In the queue</h3>
      <p>${this.waiting ? String(this.waiting) : "Still"} waiting for ${title(held.game)}, ${held.seats} seats${identity().playerId ? ", matched by rating" : ""}…</p>
      <div class="row"><button @click=${() => void this.act(() => this.fill())}>Fill with bots now</button>
        <button @click=${() => void this.act(() => this.leave())}>Leave the queue</button></div>
    </div>`;
  }

  /** On any page but the lobby: the place in the queue, at the top. */
  banner(): Part {
    return this.held ? html`<section class="panel" aria-label="Your place in a queue">${notice(this.said)}${this.status()}</section>` : nothing;
  }
}
