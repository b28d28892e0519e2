// What the clock decided for a seat: its moves that the page did not send (made by the clock's timeout or by the bot
// that plays an away seat), found live or on coming back to the table, said until the seat's next move; whether a
// bot now plays the seat, and how to come back.
import { html, nothing } from "lit-html";
import type { Part } from "./page";
import type { Event } from "./gen/manaforge/v1/common_pb";
import type { SeatView, Table, WatchUpdate } from "./gen/manaforge/v1/gateway_pb";

const CLOCK_SLACK_S = 2; // a move of this seat's this close to its deadline may be the clock's (clocks differ a little)
const TAKEOVER_AFTER = 3; // the gateway's default: decisions run out in a row before a seat is away
const BACK = "You are back: your clock runs in full again.";

/** This seat's events that the page did not send (made by the clock's timeout or bot), kept to say them. */
interface Decided {
  gone: Event[]; // found on coming back to the table: since this browser last showed it
  late: Event[]; // live: the seat's time ran out
}

export class Clock {
  made = new Set<bigint>(); // the versions this page's own moves made
  unclaimed: Event[] = []; // this seat's events not (yet) known to be this page's moves
  decided?: Decided; // what the clock decided for this seat, until its next move
  welcome = ""; // the seat was away and is back

  /** The seat's token was just taken: its events since this browser last showed the table (the `seen` version)
   * were decided for it; a seat away when the page opened is back. */
  opened(update: WatchUpdate, mine: number, seen: bigint | undefined, awayAtOpen: boolean): void {
    const ours = update.events.filter((e) => e.actor === mine);
    const missed = seen === undefined ? [] : ours.filter((e) => e.version > seen);
    if (missed.length) this.decided = { gone: missed, late: [] };
    if (awayAtOpen) this.welcome = BACK;
  }

  /** Live: the seat's events that answered its pending decision (in `view`, the view before the update) after its
   * deadline, or while it was away, are kept to be sorted by `settle`. */
  heard(update: WatchUpdate, mine: number, view: SeatView | undefined, away: boolean): void {
    const ours = update.events.filter((e) => e.actor === mine);
    // the move that answered this seat's pending decision: the first of the update (one commit, when live)
    const pending = view?.pending?.seats.includes(mine);
    const due = view?.deadlines.find((d) => d.seat === mine)?.at;
    const late = away || (due !== undefined && Date.now() / 1000 >= due - CLOCK_SLACK_S);
    const answer = update.events[0]?.version;
    if (pending && late) this.unclaimed.push(...ours.filter((e) => e.version === answer));
  }

  /** Sort this seat's late events once no move of this page's is on its way (`sending`): those it did not make were
   * decided for it. True when some were (the seat may be away now). */
  settle(sending: boolean): boolean {
    if (sending || !this.unclaimed.length) return false;
    const decided = this.unclaimed.filter((e) => !this.made.has(e.version));
    this.unclaimed = [];
    if (!decided.length) return false;
    this.decided = { gone: this.decided?.gone ?? [], late: [...(this.decided?.late ?? []), ...decided] };
    this.welcome = "";
    return true;
  }

  /** This page's move made `version`: what the clock decided before it is said no more. */
  moved(version: bigint): void {
    this.made.add(version);
    this.decided = undefined;
    this.welcome = "";
  }

  /** The player came back ("I'm back"). */
  back(): void {
    this.decided = undefined;
    this.welcome = BACK;
  }

  /** What the clock decided for this seat, whether a bot now plays it, and how to come back. */
  view(table: Table | undefined, mine: number, comeBack: () => void): Part {
    const after = table?.timeControl?.takeoverAfter || TAKEOVER_AFTER;
    const away = !!table?.seats[mine]?.away;
    const decided = this.decided;
    if (!away && !decided && !this.welcome) return nothing;
    const said = (when: string, events: Event[]) =>
      events.length ? html`<p>${when}: <strong>${events.slice(-3).map((e) => e.text).join("; ")}</strong>.</p>` : nothing;
    return html`<section class="clock-notice" role="status" aria-label="Your clock">
      ${said("While you were gone, the clock decided for you", decided?.gone ?? [])}
      ${said("Your time ran out: the clock decided for you", decided?.late ?? [])}
      ${away
        ? html`<p>You are away: after ${after} decisions in a row made by the clock, a bot plays your seat at once.
            <button @click=${comeBack}>I'm back</button> (or open this table's link again) to play again.</p>`
        : this.welcome
          ? html`<p>${this.welcome}</p>`
          : html`<p>After ${after} in a row, a bot plays your seat at once until you come back.</p>`}
    </section>`;
  }
}
