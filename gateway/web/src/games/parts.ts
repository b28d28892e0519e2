// Small pieces the presentations share: a seat's pawn or token, and its panel's class.
import { html, type TemplateResult } from "lit-html";
import { whose, type Seating } from "../names";

/** A seat's mark: its colour and the first letter of its player's name (a number when two names start alike). */
export function pawnMark(seat: number, seats: Seating): TemplateResult {
  const initial = (s: number) => (seats.names[s] ?? "?").trim().charAt(0).toUpperCase() || "?";
  const alike = seats.names.filter((_, s) => initial(s) === initial(seat)).length > 1;
  const mark = alike ? `${initial(seat)}${seat + 1}` : initial(seat);
  return html`<span class="pawn p${seat % 6} ${seat === seats.mine ? "mine" : ""}" role="img" aria-label=${`${whose(seat, seats)} pawn`}>${mark}</span>`;
}

export function seatClass(seat: number, seats: Seating): string {
  return seat === seats.mine ? "mine" : "";
}
