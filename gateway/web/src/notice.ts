// "Your turn, wherever you are": when a decision becomes the player's (their turn, an answer they owe, a vote) while
// they look elsewhere (the tab hidden or the window not focused), the page's title and icon say so, a short sound
// plays (made with the Web Audio API: no file to load) and, when the player turned it on, a browser notification
// shows while the tab is hidden (a click on it brings the tab and the table). All of it goes when they look again.
// Each can be turned off in the settings panel (settings.ts). A table's decision is announced once (by its version).
// The counts of notices, sounds and notifications are on <html data-turn-notices data-turn-sounds
// data-turn-notifications>, for the tests.
import { html, nothing, type TemplateResult } from "lit-html";
import { live } from "lit-html/directives/live.js";
import { preferences, setPreferences, type SettingsSection } from "./settings";

/** A decision that became the player's: where, from which version of the table, which game (its title). */
export interface Turn {
  tableId: string;
  version: bigint;
  game?: string;
}

const SITE = "Manaforge";
const NOTICED_KEPT = 100; // the tables whose last notice is remembered (the oldest forgotten first)

function icon(badge: boolean): string {
  const dot = badge ? "<circle cx='25' cy='7' r='6.5' fill='#e0245e' stroke='#fff' stroke-width='2'/>" : "";
  const svg = "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'><rect x='1' y='3' width='28' height='28' rx='7' fill='#5b2a86'/>"
    + `<path d='M7 25V10l8 8 8-8v15' fill='none' stroke='#fff' stroke-width='3.4' stroke-linejoin='round' stroke-linecap='round'/>${dot}</svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

const PLAIN_ICON = icon(false);
const BADGED_ICON = icon(true);

export class TurnNotice implements SettingsSection {
  readonly id = "turns";
  readonly title = "When the decision is yours";
  base = SITE; // the page's own title ("MANA BURN — Manaforge")
  said = ""; // what became of turning notifications on
  private waiting = new Map<string, Turn>(); // tables whose decision came while the player looked elsewhere
  private noticed = new Map<string, bigint>(); // each table's version at its last notice
  private shown: Notification[] = [];
  private audio?: AudioContext;
  private counts = { notices: 0, sounds: 0, notifications: 0 };
  private open: (hash: string) => void = () => undefined;
  private show: () => void = () => undefined;

  constructor() {
    document.addEventListener("visibilitychange", () => this.looked());
    window.addEventListener("focus", () => this.looked());
    // a page may make sound only after a gesture: the first click or key readies the sound for later
    const ready = () => void this.context()?.resume().catch(() => undefined);
    window.addEventListener("pointerdown", ready, { once: true, capture: true });
    window.addEventListener("keydown", ready, { once: true, capture: true });
  }

  /** How a notification's click opens a table, and how the settings panel is drawn again. */
  connect(open: (hash: string) => void, show: () => void): void {
    this.open = open;
    this.show = show;
    this.draw();
  }

  isAway(): boolean {
    return document.hidden || !document.hasFocus();
  }

  /** The decision at `turn.tableId` became the player's: announced unless they are looking, or were told already. */
  turn(turn: Turn): void {
    const last = this.noticed.get(turn.tableId);
    if (last !== undefined && last >= turn.version) return;
    this.noticed.delete(turn.tableId);
    this.noticed.set(turn.tableId, turn.version);
    if (this.noticed.size > NOTICED_KEPT) this.noticed.delete(this.noticed.keys().next().value!);
    if (!this.isAway() || this.waiting.has(turn.tableId)) return;
    this.waiting.set(turn.tableId, turn);
    const said = preferences();
    this.count("notices");
    this.draw();
    if (said.sound) this.chime();
    if (said.notify && document.hidden) this.notify(turn);
  }

  /** The player looks at the page again: the title and icon as they were, the notifications gone. */
  looked(): void {
    if (this.isAway() || !this.waiting.size) return;
    this.waiting.clear();
    for (const shown of this.shown.splice(0)) shown.close();
    this.draw();
  }

  /** The title and icon: the page's own, or the decisions waiting. */
  draw(): void {
    const flagged = this.waiting.size > 0 && preferences().title;
    const games = [...this.waiting.values()];
    document.title = !flagged ? this.base
      : games.length === 1 ? `(Your turn) ${games[0].game ? `${games[0].game} — ${SITE}` : this.base}`
      : `(Your turn in ${games.length} games) ${SITE}`;
    const link = document.querySelector<HTMLLinkElement>("link[rel=icon]");
    if (link) {
      link.href = flagged ? BADGED_ICON : PLAIN_ICON;
      link.dataset.badge = flagged ? "turn" : "";
    }
  }

  private count(what: "notices" | "sounds" | "notifications"): void {
    this.counts[what]++;
    document.documentElement.dataset[`turn${what[0].toUpperCase()}${what.slice(1)}`] = String(this.counts[what]);
  }

  private context(): AudioContext | undefined {
    if (!this.audio && typeof AudioContext !== "undefined") this.audio = new AudioContext();
    return this.audio;
  }

  /** Two soft notes rising, a third of a second in all. */
  chime(): void {
    const audio = this.context();
    if (!audio) return;
    void audio.resume().catch(() => undefined);
    const start = audio.currentTime + 0.02;
    [660, 880].forEach((pitch, i) => {
      const at = start + i * 0.13;
      const note = audio.createOscillator();
      const volume = audio.createGain();
      note.type = "sine";
      note.frequency.value = pitch;
      volume.gain.setValueAtTime(0.0001, at);
      volume.gain.exponentialRampToValueAtTime(0.06, at + 0.02);
      volume.gain.exponentialRampToValueAtTime(0.0001, at + 0.2);
      note.connect(volume).connect(audio.destination);
      note.start(at);
      note.stop(at + 0.22);
    });
    this.count("sounds");
  }

  private notify(turn: Turn): void {
    if (typeof Notification === "undefined" || Notification.permission !== "granted") return;
    let shown: Notification;
    try {
      shown = new Notification(`Your turn${turn.game ? `: ${turn.game}` : ""}`, {
        body: "The decision is yours at Manaforge.",
        tag: `manaforge-turn-${turn.tableId}`,
      });
    } catch {
      return; // a browser that shows notifications only from a service worker (Chrome on Android): the title and sound say it
    }
    this.count("notifications");
    shown.onclick = () => {
      window.focus();
      this.open(`#/table/${turn.tableId}`);
      shown.close();
    };
    this.shown.push(shown);
  }

  /** Notifications on: the browser asks the player now (never on page load); refused, it stays off and says so. */
  private async allow(on: boolean): Promise<void> {
    this.said = "";
    if (!on) setPreferences({ notify: false });
    else if (typeof Notification === "undefined") this.said = "This browser cannot show notifications.";
    else {
      const answer = Notification.permission === "default" ? await Notification.requestPermission() : Notification.permission;
      if (answer === "granted") setPreferences({ notify: true });
      else this.said = "This browser blocks notifications from this site: allow them in its site settings, then turn this on again.";
    }
    this.show();
  }

  /** The settings panel's section. */
  view(): TemplateResult {
    const said = preferences();
    const changed = (name: "sound" | "title") => (e: Event) => {
      setPreferences({ [name]: (e.target as HTMLInputElement).checked });
      this.draw();
      this.show();
    };
    return html`<p class="about">When a decision becomes yours (your turn, an answer, a vote) while you look at another tab or window:</p>
      <div class="check-row"><label class="check"><input type="checkbox" name="sound" .checked=${live(said.sound)} @change=${changed("sound")} /> Play a short sound</label>
        <button type="button" class="link" @click=${() => this.chime()}>Hear it</button></div>
      <label class="check"><input type="checkbox" name="title" .checked=${live(said.title)} @change=${changed("title")} /> Mark the page's title and icon</label>
      <label class="check"><input type="checkbox" name="notify" .checked=${live(said.notify)}
        aria-describedby=${this.said ? "notify-said" : nothing}
        @change=${(e: Event) => void this.allow((e.target as HTMLInputElement).checked)} /> Show a browser notification when this tab is hidden</label>
      ${this.said ? html`<p class="error" id="notify-said" role="alert">${this.said}</p>` : nothing}`;
  }
}

/** The one notice of this page. */
export const turns = new TurnNotice();
