// The Manaforge browser client: the lobby (#/), a table to play or watch (#/table/ID) and a finished game's replay
// (#/replay/ID); a game's how-to-play (#/rules/GAME); the operator's console (#/console). Every call is the platform's
// own API (Gateway, Admin), over gRPC-Web. This is the app's shell: the page chosen by the address, drawn under the
// signed-in player's challenges and this browser's place in a queue (both on every page); the settings panel in the
// header; a decision that becomes the player's, at any of their tables, announced while they look elsewhere.
import { html, nothing, render } from "lit-html";
import { gateway, identity } from "./api";
import { Challenges } from "./challenges";
import { ConsolePage } from "./console";
import { HowToPlayPage } from "./howto";
import { Lobby } from "./lobby";
import { turns } from "./notice";
import { titles, type Page } from "./page";
import { Queue } from "./queue";
import { ReplayPage } from "./replay";
import { Settings } from "./settings";
import { TablePage } from "./table";
import "./style.css";

const app = document.getElementById("app")!;
let page: Page | undefined;

function show(): void {
  challenges.sync();
  render(html`${challenges.panel()}${page instanceof Lobby ? nothing : queue.banner()}${page ? page.view() : nothing}`, app);
  const who = identity();
  render(html`${who.playerId ? html`Signed in as <strong>${who.name}</strong>` : html`Guest <strong>${who.name}</strong>`}`, document.getElementById("who")!);
  render(settings.view(), document.getElementById("settings")!);
  turns.base = page?.name?.() ?? "Manaforge";
  turns.draw();
}

function go(hash: string): void {
  if (location.hash === hash) route();
  else location.hash = hash;
}

function route(): void {
  const first = !page;
  page?.close();
  const [, kind, id] = location.hash.split("/");
  page =
    kind === "table" && id ? new TablePage(decoded(id), show)
    : kind === "replay" && id ? new ReplayPage(decoded(id), show)
    : kind === "rules" && id ? new HowToPlayPage(decoded(id), show)
    : kind === "console" ? new ConsolePage(show)
    : new Lobby(show, go, queue, challenges);
  show();
  if (first) return; // a page just loaded starts at its top, with the focus where the browser puts it
  window.scrollTo(0, 0);
  app.focus({ preventScroll: true }); // a screen reader starts reading the new page
}

/** An id from the address as typed (a stray "%" kept as it is). */
function decoded(id: string): string {
  try {
    return decodeURIComponent(id);
  } catch {
    return id;
  }
}

const queue = new Queue(show, go); // this browser's place in a queue, on every page
const challenges = new Challenges(show, go); // the signed-in player's challenges, on every page
const settings = new Settings(show); // the player's settings, from the header of every page
settings.add(turns);
turns.connect(go, show);

/** The player's games on their Events stream: the lobby's list again; a decision theirs, announced. */
challenges.games = (kind) => {
  if (page instanceof Lobby) void page.refreshGames();
  if (kind.case !== "yourTurn") return;
  const turn = { tableId: kind.value.tableId, version: kind.value.version };
  if (!turns.isAway()) turns.turn(turn); // seen: remembered, not announced
  else void gateway.getTable({ tableId: turn.tableId }).then(
    (table) => turns.turn({ ...turn, game: titles.get(table.config?.game ?? "") ?? table.config?.game }),
    () => turns.turn(turn),
  );
};

window.addEventListener("hashchange", route);
route();
queue.start();
void gateway.listGames({}).then((answer) => {
  for (const g of answer.games) titles.set(g.name, g.title);
  show();
});
