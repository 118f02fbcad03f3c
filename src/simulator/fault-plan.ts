/**
 * Per-request random draws: which fault (if any) to serve and how long to wait before answering.
 * A request's draw is seeded by (scenario seed, hash of its user text, how many times that text was seen),
 * so a scenario gives the same outcome to the n-th attempt of a prompt whatever the order of concurrent
 * requests. Fault rates are probabilities per request (README "faults").
 */
import { delayMs, mix32, seededRandom, type Random } from './random.js';
import { FAULT_KINDS, type FaultKind, type Scenario } from './types.js';

/** The draw of one request. */
export interface RequestDraw {
  fault?: FaultKind;
  /** Which 503 wording (fixtures 503-overloaded / 503-high-demand). */
  highDemand: boolean;
  /** Generation time before the answer, ms (the model's own distribution, else the scenario's default). */
  latencyMs: number;
  /** Further draws for this request (429 variation). */
  random: Random;
}

/** Draws faults and latencies for a scenario. Memory: one small map entry per distinct prompt seen. */
export class FaultPlan {
  private readonly seen = new Map<number, number>();
  private readonly anyFault: boolean;

  constructor(private readonly scenario: Pick<Scenario, 'seed' | 'faults' | 'latency'>) {
    this.anyFault = FAULT_KINDS.some((k) => scenario.faults.rates[k] > 0);
  }

  /** The draw of the next attempt of the prompt whose user text hashes to `promptHash`, sent to `model`. */
  draw(promptHash: number, model?: string): RequestDraw {
    const occurrence = (this.seen.get(promptHash) ?? 0) + 1;
    this.seen.set(promptHash, occurrence);
    const random = seededRandom(mix32(this.scenario.seed, promptHash, occurrence));
    const draw: RequestDraw = { highDemand: false, latencyMs: 0, random };
    if (this.anyFault) {
      let u = random.next();
      for (const kind of FAULT_KINDS) {
        u -= this.scenario.faults.rates[kind];
        if (u < 0) {
          draw.fault = kind;
          break;
        }
      }
      draw.highDemand = random.next() < 0.5;
    }
    const latency = this.scenario.latency;
    draw.latencyMs = delayMs(random, (model !== undefined ? latency.models?.[model] : undefined) ?? latency);
    return draw;
  }
}
