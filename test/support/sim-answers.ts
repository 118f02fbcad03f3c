/**
 * The answer the simulator gives a prompt sent alone: the right answer of a row, for tests that check no row got
 * another row's. Asked of a {@link SimEngine} in-process — the engine behind every simulator's HTTP server, on a
 * generous scenario (any key, no quota spent, no faults) — so it is the same answer function as a request over HTTP,
 * without the socket. On 2 cores, 1,000 answers cost about 1.5 s of CPU over fetch (client and server in one process)
 * and 0.09 s through the engine (after the tokenizer's warm-up). Answers are kept per request body (the simulator's
 * answer is a function of it), so asking again is free.
 */
import { generousScenario, monotonicClock } from '../../src/simulator/index.js';
import { SimEngine } from '../../src/simulator/sim-engine.js';

/** A Gemini generateContent body of one user turn, as classify sends one row. */
export interface OneRowRequest {
  /** The row's rendered prompt: the whole user text. */
  prompt: string;
  /** `generationConfig` of the request (e.g. `text/x.enum` with the labels); none for a free-text answer. */
  generationConfig?: Record<string, unknown>;
}

/** The simulator's answers to single-row requests, for one model. */
export class SimAnswers {
  private readonly engine = new SimEngine(generousScenario(), monotonicClock);
  private readonly known = new Map<string, string>();

  constructor(private readonly model = 'gemini-2.5-flash') {}

  /**
   * The answer text of `request`, as the simulator's 200 body carries it in its first candidate.
   * @throws Error when the simulator answers anything but a 200 with text (a bad model, a malformed body).
   */
  text(request: OneRowRequest): string {
    const body = { contents: [{ role: 'user', parts: [{ text: request.prompt }] }], ...(request.generationConfig ? { generationConfig: request.generationConfig } : {}) };
    const key = JSON.stringify(body);
    const known = this.known.get(key);
    if (known !== undefined) return known;
    const outcome = this.engine.handle({ endpoint: 'generateContent', apiVersion: 'v1beta', model: this.model, key: 'sim-answers-key', body });
    const text = outcome.type === 'json' && outcome.status === 200 ? (outcome.body as { candidates?: Array<{ content?: { parts?: Array<{ text?: string }> } }> }).candidates?.[0]?.content?.parts?.[0]?.text : undefined;
    if (text === undefined) throw new Error(`the simulator gave no answer text to ${key}: ${JSON.stringify(outcome)}`);
    this.known.set(key, text);
    return text;
  }
}
