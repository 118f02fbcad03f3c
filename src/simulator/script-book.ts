/**
 * Scripted answers: a prompt whose user text contains a rule's `match` marker gets the rule's `responses`
 * in order, counted per distinct prompt text; the last response repeats (README "scripts").
 */
import type { ScriptResponse, ScriptRule } from './types.js';

/** The scripts of a scenario and how far each distinct prompt has got through them. */
export class ScriptBook {
  private readonly used = new Map<string, number>();

  constructor(private readonly rules: readonly ScriptRule[]) {}

  /** Index of the first rule whose marker occurs in `userText`, or -1. */
  find(userText: string): number {
    for (let i = 0; i < this.rules.length; i++) if (userText.includes(this.rules[i]!.match)) return i;
    return -1;
  }

  /** The marker of rule `index`. */
  match(index: number): string {
    return this.rules[index]!.match;
  }

  /** The response for this occurrence of `userText` under rule `index`, advancing its counter. */
  next(index: number, userText: string): ScriptResponse {
    const rule = this.rules[index]!;
    const id = `${index}\u0000${userText}`;
    const n = this.used.get(id) ?? 0;
    this.used.set(id, n + 1);
    return rule.responses[Math.min(n, rule.responses.length - 1)]!;
  }
}
