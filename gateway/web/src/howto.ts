// The how-to-play page (#/rules/GAME): the game's HOW_TO_PLAY.md, as ListGames gives it (GameInfo.how_to_play),
// rendered from markdown by marked. The text is the server's, written by the project; it is still rendered safely:
// raw HTML in it is shown as text, links go only to web addresses or within the page, images become their words.
import { html, nothing, type TemplateResult } from "lit-html";
import { unsafeHTML } from "lit-html/directives/unsafe-html.js";
import { gateway } from "./api";
import type { GameInfo } from "./gen/manaforge/v1/rules_pb";

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Markdown as HTML, safely (see above). marked is loaded with the first page that needs it (its own chunk). */
export async function markdownHtml(text: string): Promise<string> {
  const { Marked } = await import("marked");
  const markdown = new Marked({ async: false, gfm: true });
  markdown.use({
    renderer: {
      html({ text }) {
        return escape(text);
      },
      link({ href, title, tokens }) {
        const text = this.parser.parseInline(tokens);
        if (!/^(https?:\/\/|#|\/[^/])/i.test(href)) return text;
        return `<a href="${escape(href)}"${title ? ` title="${escape(title)}"` : ""} rel="noopener noreferrer">${text}</a>`;
      },
      image({ text }) {
        return escape(text);
      },
    },
  });
  return markdown.parse(text) as string;
}

/** The address of a game's how-to-play page. */
export function rulesLink(game: string): string {
  return `#/rules/${encodeURIComponent(game)}`;
}

/** A "How to play" link for a game. */
export function howToPlayLink(game: string, text = "How to play"): TemplateResult {
  return html`<a class="howto-link" href=${rulesLink(game)}>${text}</a>`;
}

export class HowToPlayPage {
  info?: GameInfo;
  page = ""; // the how-to-play text as HTML
  error = "";
  closed = false;

  constructor(
    readonly game: string,
    readonly changed: () => void,
  ) {
    void this.load();
  }

  close(): void {
    this.closed = true;
  }

  async load(): Promise<void> {
    try {
      this.info = (await gateway.listGames({})).games.find((g) => g.name === this.game);
      if (!this.info) this.error = `There is no game named "${this.game}".`;
      else if (this.info.howToPlay) this.page = await markdownHtml(this.info.howToPlay);
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    }
    if (!this.closed) this.changed();
  }

  view(): TemplateResult {
    const info = this.info;
    const back = html`<nav class="row howto-nav" aria-label="Back">
      ${history.length > 1 ? html`<button type="button" class="link" @click=${() => history.back()}>Back</button>` : nothing}
      <a href="#/">The lobby</a></nav>`;
    if (!info) return html`${back}${this.error ? html`<p class="error" role="alert">${this.error}</p>` : html`<p class="muted">Loading…</p>`}`;
    return html`${back}
      <article class="panel howto" aria-label=${`How to play ${info.title}`}>
        ${this.page ? unsafeHTML(this.page) : info.howToPlay ? html`<p class="muted">Loading…</p>` : html`<h1>How to play ${info.title}</h1><p>${info.description}</p>`}
        <p class="muted">${info.minSeats === info.maxSeats ? `${info.minSeats} players` : `${info.minSeats} to ${info.maxSeats} players`}.</p>
      </article>`;
  }
}
