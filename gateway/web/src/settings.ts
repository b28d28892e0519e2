// The player's settings, kept in this browser (localStorage), and the panel that changes them: a "Settings" button in
// the page's header, on every page, opening a panel of sections. Each section is its own part (the turn notice's
// is in notice.ts); more are added with `add` (issue 48 grows this into the full settings page).
import { html, nothing, type TemplateResult } from "lit-html";

export interface Preferences {
  sound: boolean; // a short sound when the decision becomes yours while you look elsewhere
  title: boolean; // the page's title and icon say so
  notify: boolean; // a browser notification when the tab is hidden (asked for only when turned on)
}

const DEFAULTS: Preferences = { sound: true, title: true, notify: false };
const SETTINGS = "manaforge.settings";

export function preferences(): Preferences {
  try {
    return { ...DEFAULTS, ...(JSON.parse(localStorage.getItem(SETTINGS) ?? "{}") as Partial<Preferences>) };
  } catch {
    return { ...DEFAULTS };
  }
}

export function setPreferences(changed: Partial<Preferences>): void {
  localStorage.setItem(SETTINGS, JSON.stringify({ ...preferences(), ...changed }));
}

/** A part of the settings panel: a titled group of settings. */
export interface SettingsSection {
  id: string;
  title: string;
  view(): TemplateResult;
}

/** The settings panel: a button that opens and closes it (Escape closes it too, and the focus goes back to the
 * button), and its sections. */
export class Settings {
  open = false;
  private sections: SettingsSection[] = [];

  constructor(private readonly show: () => void) {
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && this.open) this.toggle(false);
    });
  }

  add(section: SettingsSection): void {
    this.sections.push(section);
  }

  toggle(open = !this.open): void {
    this.open = open;
    this.show();
    const target = open ? "#settings-panel h2" : "#settings-button";
    document.querySelector<HTMLElement>(target)?.focus();
  }

  view(): TemplateResult {
    return html`<button type="button" id="settings-button" class="settings-button" aria-expanded=${this.open ? "true" : "false"}
        aria-controls="settings-panel" @click=${() => this.toggle()}>Settings</button>
      ${this.open
        ? html`<section id="settings-panel" class="settings-panel" aria-labelledby="settings-title">
            <h2 id="settings-title" tabindex="-1">Settings</h2>
            ${this.sections.map((s) => html`<fieldset id=${`settings-${s.id}`}><legend>${s.title}</legend>${s.view()}</fieldset>`)}
            <button type="button" @click=${() => this.toggle(false)}>Close</button>
          </section>`
        : nothing}`;
  }
}
