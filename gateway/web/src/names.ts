// Seats by their players' names. Every engine text (events, action labels, prompts, card notes, results) names a
// seat only as "seat N" (docs/adding-a-game.md); the page says the player's name instead, and "you" / "your" for
// its own seat: "seat 0 discarded Fireball" reads "You discarded Fireball" or "Ann discarded Fireball".

export interface Seating {
  names: string[]; // a name per seat
  mine: number; // this page's seat, -1 for a spectator
}

const SEAT = /\bseat (\d+)('s)?((?: \([^)]*\))?\s+(?:is|has|was|does)\b)?/g; // "seat 0 (or its creature) is"
const AS_YOU: Record<string, string> = { is: "are", has: "have", was: "were", does: "do" };

/** `text` with each "seat N" (and "seat N's") as the seat's player. */
export function named(text: string, seats: Seating): string {
  const out = text.replace(SEAT, (_all, digits: string, owner: string | undefined, verb: string | undefined, at: number) => {
    const seat = Number(digits);
    const mine = seat === seats.mine;
    const who = mine ? (owner ? "your" : "you") : (seats.names[seat] ?? `seat ${seat}`) + (owner ?? "");
    // "seat 0 (or its creature) is" -> "you (or your creature) are"
    const agreed = verb ? verb.replace(/\S+$/, (v) => (mine ? AS_YOU[v] ?? v : v)) : "";
    const said = mine ? agreed.replace(/\bits\b/g, "your") : agreed;
    return (mine && (at === 0 || /[.!?]\s*$/.test(text.slice(0, at))) ? capital(who) : who) + said; // a name stays as written
  });
  return out;
}

/** A sentence starts with a capital letter ("you drew 2 cards" reads "You drew 2 cards"), unless it starts with a
 * player's name, which stays as its player wrote it. */
export function sentence(text: string, seats: Seating): string {
  return seats.names.some((name) => name && text.startsWith(name)) ? text : capital(text);
}

function capital(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** The seat's player as the page names them: "you" for its own seat. */
export function who(seat: number, seats: Seating): string {
  return seat === seats.mine ? "you" : seats.names[seat] ?? `seat ${seat}`;
}

/** "your" / "Ann's". */
export function whose(seat: number, seats: Seating): string {
  return seat === seats.mine ? "your" : `${seats.names[seat] ?? `seat ${seat}`}'s`;
}

/** "You" / "Ann": at the start of a sentence (a name stays as its player wrote it). */
export function Who(seat: number, seats: Seating): string {
  return seat === seats.mine ? "You" : who(seat, seats);
}

/** "you, Ann and Bob". */
export function list(words: string[]): string {
  return words.length < 2 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}

/** "Your" / "Ann's": at the start of a sentence. */
export function Whose(seat: number, seats: Seating): string {
  return seat === seats.mine ? "Your" : whose(seat, seats);
}

/** A seat's heading: the player's name, "(you)" after this page's own. */
export function heading(seat: number, seats: Seating): string {
  const name = seats.names[seat] ?? `seat ${seat}`;
  return seat === seats.mine ? `${name} (you)` : name;
}
