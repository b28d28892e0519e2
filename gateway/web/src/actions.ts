// The seat's legal actions as things to click. A long list is offered in two steps: first what to do (the action
// message's first field that is set: its move, type or oneof case), then which one. An action with free text (R&D's
// art, name and flavour) opens a form with the engine's example text to edit.
import { anyPack, anyUnpack, type Any } from "@bufbuild/protobuf/wkt";
import { clone, type DescField, type DescMessage, type Message } from "@bufbuild/protobuf";
import type { LegalAction } from "./gen/manaforge/v1/rules_pb";
import { games } from "./api";
import { enumText, human } from "./board";

export interface Choice {
  text: string;
  any: Any;
  schema: DescMessage;
  message: Message;
}

export interface Group {
  label: string;
  choices: Choice[];
}

/** Above this many actions, choose in two steps. */
export const FLAT_LIMIT = 8;

type Fields = Record<string, unknown>;

export function choices(legal: LegalAction[]): Choice[] {
  return legal.map((la) => {
    const any = la.action!;
    const schema = games.getMessage(any.typeUrl.slice(any.typeUrl.lastIndexOf("/") + 1))!;
    return { text: la.text, any, schema, message: anyUnpack(any, schema)! };
  });
}

function firstSet(schema: DescMessage, message: Message): string {
  const fields = message as unknown as Fields;
  for (const member of schema.members) {
    if (member.kind === "oneof") {
      const chosen = fields[member.localName] as { case?: string };
      if (chosen.case) return member.localName + "=" + chosen.case;
    } else {
      const value = fields[member.localName];
      if (value !== undefined && value !== 0 && value !== "" && value !== false) return member.localName + "=" + JSON.stringify(value);
    }
  }
  return "";
}

function commonPrefix(texts: string[]): string {
  const split = texts.map((t) => t.split(" "));
  const words: string[] = [];
  for (let i = 0; split.every((w) => i < w.length && w[i] === split[0][i]); i++) words.push(split[0][i]);
  return words.join(" ");
}

/** Actions whose texts are the same told apart by their fields (e.g. which design a vote is for). */
function distinct(choices: Choice[]): Choice[] {
  const counts = new Map<string, number>();
  for (const c of choices) counts.set(c.text, (counts.get(c.text) ?? 0) + 1);
  return choices.map((c) => ((counts.get(c.text) ?? 0) > 1 ? { ...c, text: `${c.text} (${describe(c.schema, c.message)})` } : c));
}

/** The value a field holds in `message` (a oneof member only when it is the case chosen). */
function valueOf(field: DescField, message: Fields): unknown {
  if (!field.oneof) return message[field.localName];
  const chosen = message[field.oneof.localName] as { case?: string; value?: unknown };
  return chosen.case === field.localName ? chosen.value : undefined;
}

function describe(schema: DescMessage, message: Message): string {
  const out: string[] = [];
  const walk = (s: DescMessage, m: Fields) => {
    for (const f of s.fields) {
      const value = valueOf(f, m);
      if (value === undefined || value === 0 || value === "") continue;
      if (f.fieldKind === "message") walk(f.message, value as Fields);
      else if (f.fieldKind === "enum") out.push(`${f.name} ${enumText(f.enum, value as number)}`);
      else out.push(`${f.name} ${f.name === "design" ? Number(value) + 1 : String(value)}`);
    }
  };
  walk(schema, message as unknown as Fields);
  return out.join(", ");
}

/** A group's key ("type=6") in words: the enum value or oneof case it stands for. */
function keyText(choice: Choice, key: string): string {
  const [name, raw] = key.split("=");
  const field = choice.schema.fields.find((f) => f.localName === name);
  if (field?.fieldKind === "enum") return enumText(field.enum, Number(raw));
  return human(raw.replace(/"/g, ""));
}

/** The value of the first field (in the message's order) that is not the same in every choice ("card=12"). */
function firstVarying(list: Choice[]): (c: Choice) => string {
  const schema = list[0].schema;
  const value = (c: Choice, name: string) => JSON.stringify((c.message as unknown as Fields)[name], (_, v: unknown) => (typeof v === "bigint" ? String(v) : v));
  const member = schema.members.find((m) => new Set(list.map((c) => value(c, m.localName))).size > 1);
  return member ? (c) => `${member.localName}=${value(c, member.localName)}` : (c) => c.text;
}

export function grouped(all: Choice[]): Group[] {
  const list = distinct(all);
  let groups = new Map<string, Choice[]>();
  for (const c of list) {
    const key = firstSet(c.schema, c.message);
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  if (groups.size === 1 && list.length > FLAT_LIMIT && list.every((c) => c.schema === list[0].schema)) {
    // one kind of move, many ways (open the round with which card, which way): group by what varies first
    const key = firstVarying(list);
    groups = new Map();
    for (const c of list) groups.set(key(c), [...(groups.get(key(c)) ?? []), c]);
  }
  if (list.length <= FLAT_LIMIT || groups.size === list.length || groups.size === 1) {
    return list.map((c) => ({ label: c.text, choices: [c] }));
  }
  const labelled = [...groups.entries()].map(([key, cs]) => ({
    key,
    label: cs.length > 1 ? commonPrefix(cs.map((c) => c.text)).replace(/[,;:]$/, "") || cs[0].text : cs[0].text,
    choices: cs,
  }));
  // groups whose texts begin alike are told apart by what sets them apart (e.g. which kind of exchange)
  return labelled.map(({ key, label, choices }) =>
    labelled.filter((g) => g.label === label).length > 1 ? { label: `${label}: ${keyText(choices[0], key)}`, choices } : { label, choices },
  );
}

export interface TextField {
  path: DescField[];
  label: string;
  value: string;
}

/** The free-text fields an action carries (set in the engine's example), for the player to write. */
export function textFields(choice: Choice): TextField[] {
  const out: TextField[] = [];
  const walk = (schema: DescMessage, value: Fields, path: DescField[]) => {
    for (const f of schema.fields) {
      const v = valueOf(f, value);
      if (v === undefined) continue;
      if (f.fieldKind === "scalar" && typeof v === "string") out.push({ path: [...path, f], label: f.name, value: v });
      else if (f.fieldKind === "message" && v) walk(f.message, v as Fields, [...path, f]);
    }
  };
  walk(choice.schema, choice.message as unknown as Fields, []);
  return out;
}

/** The action with the player's texts in place of the example's, packed for SubmitAction. */
export function withTexts(choice: Choice, texts: string[]): Any {
  const message = clone(choice.schema, choice.message);
  textFields(choice).forEach((field, i) => {
    let target = message as unknown as Fields;
    for (const step of field.path.slice(0, -1)) target = valueOf(step, target) as Fields;
    const last = field.path[field.path.length - 1];
    if (last.oneof) (target[last.oneof.localName] as { value: unknown }).value = texts[i];
    else target[last.localName] = texts[i];
  });
  return anyPack(choice.schema, message);
}
