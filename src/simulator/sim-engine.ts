/**
 * The simulator's decision for one API request, independent of HTTP: key → project, model, request checks,
 * quota, scripts, faults, answer. Synchronous; the HTTP layer applies the returned delay and writes the body.
 *
 * Order of checks (what the real API does first is not documented; this order gives each error its fixture):
 * missing key 403 → unknown key 400 API_KEY_INVALID → leaked key 403 → unknown model 404 → bad JSON / no
 * contents 400 → thinkingBudget 0 on an always-thinking model 400 → prompt over the context window 400 →
 * [random fault, when faults do not count against quota] → quota 429 → scripted response → random fault → answer.
 */
import { buildAnswer, responseIdFor, type AnswerOverride } from './answer-builder.js';
import * as bodies from './error-bodies.js';
import { FaultPlan, type RequestDraw } from './fault-plan.js';
import { countTokensBody, promptTokens } from './prompt-tokens.js';
import { QuotaLedger, type QuotaBucket } from './quota-ledger.js';
import { quotaErrorBody } from './quota-error-body.js';
import { quotaNames } from './quota-names.js';
import { delayMs, hashString, mix32, seededRandom } from './random.js';
import { RequestLog, sha256Hex } from './request-log.js';
import { readCountTokensRequest, readRequest, type RequestView } from './request-view.js';
import { limitsFor } from './scenario-presets.js';
import { ScriptBook } from './script-book.js';
import { StatsCollector, type RequestRecord } from './sim-stats.js';
import type { FaultKind, ModelSpec, Scenario, ScenarioProject, ScriptResponse, SimClock } from './types.js';

/** The API methods served. */
export type Endpoint = 'generateContent' | 'streamGenerateContent' | 'countTokens';

/** One parsed HTTP request. `body` is undefined when it was not JSON (`bodyError` says why). */
export interface SimRequest {
  endpoint: Endpoint;
  apiVersion: string;
  model: string;
  key?: string;
  body?: unknown;
  bodyError?: string;
}

/** What to send back, after `delayMs`. */
export type Outcome =
  | { type: 'json'; status: number; body: unknown; delayMs: number; headers?: Record<string, string> }
  | { type: 'html'; status: number; body: string; delayMs: number }
  | { type: 'reset'; delayMs: number }
  | { type: 'hang' };

interface Caller {
  project: ScenarioProject;
  alias: string;
  leaked: boolean;
}

/** Per-request facts gathered along the way, for stats and the log. */
interface Trace {
  seq: number;
  now: number;
  endpoint: Endpoint;
  /** The request's network legs (from {@link SimEngine.transit}), for the log's `latencyMs`. */
  transit?: { uplinkMs: number; downlinkMs: number };
  caller?: Caller;
  model?: string;
  view?: RequestView;
}

/** Holds a scenario's state (quota ledger, stats, scripts, fault draws) and decides each request. */
export class SimEngine {
  readonly stats: StatsCollector;
  readonly log: RequestLog | undefined;
  private readonly ledger = new QuotaLedger();
  private readonly keys = new Map<string, Caller>();
  private readonly anyKeys = new Map<string, string>();
  private readonly faults: FaultPlan;
  private readonly scripts: ScriptBook;
  private seq = 0;
  private transits = 0;

  constructor(
    readonly scenario: Scenario,
    private readonly clock: SimClock,
  ) {
    this.stats = new StatsCollector(clock);
    this.log = scenario.requestLog ? new RequestLog() : undefined;
    this.faults = new FaultPlan(scenario);
    this.scripts = new ScriptBook(scenario.scripts);
    for (const project of scenario.projects) {
      for (const k of project.keys) this.keys.set(k.key, { project, alias: k.alias, leaked: k.leaked });
    }
  }

  /**
   * Decides `req`. Never throws for any input.
   * @param transit the network legs drawn for it by {@link transit}, when the HTTP layer applies them (logged).
   */
  handle(req: SimRequest, transit?: { uplinkMs: number; downlinkMs: number }): Outcome {
    const t: Trace = { seq: ++this.seq, now: this.clock.now(), endpoint: req.endpoint, ...(transit ? { transit } : {}) };
    this.stats.arrive(req.endpoint);
    if (req.key === undefined || req.key === '') return this.error(t, 403, bodies.missingKey());
    const caller = this.resolveKey(req.key);
    if (!caller) return this.error(t, 400, bodies.apiKeyInvalid());
    t.caller = caller;
    if (caller.leaked) return this.error(t, 403, bodies.leakedKey());
    const spec = this.scenario.models[req.model];
    if (!spec) return this.error(t, 404, bodies.modelNotFound(req.model, req.apiVersion, req.endpoint));
    t.model = req.model;
    if (req.body === undefined) return this.error(t, 400, bodies.invalidJson(req.bodyError ?? 'Unexpected end of input.'));
    const read = req.endpoint === 'countTokens' ? readCountTokensRequest(req.body) : readRequest(req.body);
    if (!read.ok) return this.error(t, 400, bodies.rpcError(400, read.message));
    t.view = read.view;
    const counted = promptTokens(read.view);
    if (req.endpoint === 'countTokens') {
      return this.finish(t, { type: 'json', status: 200, body: countTokensBody(counted), delayMs: 0 }, { kind: 'other' }, 'count-tokens');
    }
    return this.generate(t, caller, spec, read.view, counted.total);
  }

  private generate(t: Trace, caller: Caller, spec: ModelSpec, view: RequestView, tokens: number): Outcome {
    const model = t.model!;
    const limits = limitsFor(caller.project.limits, model);
    const bucket = limits ? this.ledger.bucket(caller.project.id, model, limits) : undefined;
    this.stats.arrivedAtQuota(caller.project.id, model, t.now, tokens);
    const rejectWith400 = (body: bodies.RpcErrorBody): Outcome => {
      if (this.scenario.countRejected && bucket) bucket.countRejected(t.now, tokens);
      return this.error(t, 400, body);
    };
    if (spec.thinking === 'always' && view.thinkingBudget === 0) return rejectWith400(bodies.thinkingBudgetZero());
    if (tokens > spec.contextWindow) return rejectWith400(bodies.contextTooLong(spec.contextWindow));

    const hash = hashString(view.userText);
    const rule = this.scripts.find(view.userText);
    const draw = this.faults.draw(hash, model);
    if (rule < 0 && draw.fault && !this.scenario.faults.countAgainstQuota) return this.fault(t, draw.fault, draw);

    if (bucket) {
      const rejected = this.checkQuota(t, caller, spec, bucket, tokens, limits!.limitZero);
      if (rejected) return rejected;
    }
    this.stats.admitted(caller.project.id, model, t.now, tokens);
    const ctx = { spec, view, promptTokenCount: tokens, hash, responseId: responseIdFor(this.scenario.seed, t.seq) };
    if (rule >= 0) return this.scripted(t, this.scripts.next(rule, view.userText), ctx, draw, tokens);
    if (draw.fault) return this.fault(t, draw.fault, draw);
    return this.answer(t, ctx, draw.latencyMs, tokens);
  }

  private checkQuota(t: Trace, caller: Caller, spec: ModelSpec, bucket: QuotaBucket, tokens: number, limitZero: boolean): Outcome | undefined {
    const decision = bucket.tryAdmit(t.now, tokens, this.scenario.countRejected);
    if (decision.admitted) return undefined;
    const { body, retrySeconds } = quotaErrorBody({
      tier: caller.project.tier,
      quotaModel: spec.quotaModel,
      violations: decision.violations,
      flavour: this.scenario.quota429.flavour,
      limitZero,
      random: seededRandom(mix32(this.scenario.seed, t.seq, 0x429)),
    });
    const outcome: Outcome = { type: 'json', status: 429, body, delayMs: 0 };
    if (this.scenario.quota429.retryAfterHeader) outcome.headers = { 'Retry-After': String(Math.ceil(retrySeconds)) };
    const quotaIds = decision.violations.map((v) => quotaNames(caller.project.tier, v.dimension).quotaId);
    return this.finish(t, outcome, { kind: 'rate-limited', quotaIds }, 'rate-limited');
  }

  private answer(t: Trace, ctx: Parameters<typeof buildAnswer>[0], delayMs: number, tokens: number, override?: AnswerOverride, outcomeName?: string): Outcome {
    const a = buildAnswer(ctx, override);
    const outcome: Outcome = { type: 'json', status: 200, body: a.body, delayMs };
    const name = outcomeName ?? (a.outcome === 'ok' ? 'ok' : a.outcome);
    const rec: Omit<RequestRecord, 'status'> = { kind: 'ok', inputTokens: tokens, outputTokens: a.outputTokens, thoughtsTokens: a.thoughtsTokens };
    return this.finish(t, outcome, rec, name, a.label);
  }

  private scripted(t: Trace, r: ScriptResponse, ctx: Parameters<typeof buildAnswer>[0], draw: RequestDraw, tokens: number): Outcome {
    const delay = draw.latencyMs + ('delayMs' in r && r.delayMs !== undefined ? r.delayMs : 0);
    switch (r.kind) {
      case 'delay-ms':
        return this.answer(t, ctx, draw.latencyMs + r.ms, tokens, undefined, 'script:delay-ms');
      case 'reset':
        return this.finish(t, { type: 'reset', delayMs: delay }, { kind: 'error', fault: 'script-reset' }, 'script:reset');
      case 'hang':
        return this.finish(t, { type: 'hang' }, { kind: 'error', fault: 'script-hang' }, 'script:hang');
      case 'error': {
        const rec = { kind: 'error' as const, fault: 'script-error' };
        if (r.fixture === 'html-502') return this.finish(t, { type: 'html', status: r.status, body: bodies.HTML_502, delayMs: delay }, rec, 'script:error');
        const body = r.body ?? (r.fixture ? bodies.NAMED_ERROR_BODIES[r.fixture]!() : bodies.genericError(r.status));
        return this.finish(t, { type: 'json', status: r.status, body, delayMs: delay }, rec, 'script:error');
      }
      default:
        return this.answer(t, ctx, delay, tokens, r, `script:${r.kind}`);
    }
  }

  private fault(t: Trace, kind: FaultKind, draw: RequestDraw): Outcome {
    const rec = { kind: 'error' as const, fault: kind };
    const delayMs = draw.latencyMs;
    const name = `fault:${kind}`;
    switch (kind) {
      case '503':
        return this.finish(t, { type: 'json', status: 503, body: draw.highDemand ? bodies.highDemand() : bodies.overloaded(), delayMs }, rec, name);
      case '500':
        return this.finish(t, { type: 'json', status: 500, body: bodies.internalError(), delayMs }, rec, name);
      case '504':
        return this.finish(t, { type: 'json', status: 504, body: bodies.deadlineExceeded(), delayMs }, rec, name);
      case 'html-502':
        return this.finish(t, { type: 'html', status: 502, body: bodies.HTML_502, delayMs }, rec, name);
      case 'reset':
        return this.finish(t, { type: 'reset', delayMs }, rec, name);
      case 'hang':
        return this.finish(t, { type: 'hang' }, rec, name);
      case '429-bare':
        // A 429 that names no quota (fixture 429-h-bare-capacity: capacity, gateways, Vertex's shared quota).
        return this.finish(t, { type: 'json', status: 429, body: bodies.bareCapacity(), delayMs: 0 }, { kind: 'rate-limited', fault: kind }, name);
    }
  }

  /**
   * The network legs of the next request, ms: `uplinkMs` before it arrives (the HTTP layer waits that long before
   * {@link handle}, so the quota counts it at arrival) and `downlinkMs` after its answer is ready.
   */
  transit(): { uplinkMs: number; downlinkMs: number } {
    const { uplink, downlink } = this.scenario.latency;
    if (!uplink && !downlink) return { uplinkMs: 0, downlinkMs: 0 };
    const random = seededRandom(mix32(this.scenario.seed, ++this.transits, 0x7a));
    return { uplinkMs: delayMs(random, uplink), downlinkMs: delayMs(random, downlink) };
  }

  private error(t: Trace, status: number, body: bodies.RpcErrorBody): Outcome {
    return this.finish(t, { type: 'json', status, body, delayMs: 0 }, { kind: 'error' }, 'error');
  }

  /** Records stats and the log entry of a decided request, and returns its outcome. */
  private finish(t: Trace, outcome: Outcome, rec: Omit<RequestRecord, 'status'>, name: string, label?: string): Outcome {
    const status: RequestRecord['status'] = outcome.type === 'reset' ? 'reset' : outcome.type === 'hang' ? 'hang' : outcome.status;
    const record: RequestRecord = { ...rec, status };
    if (t.caller) {
      record.keyAlias = t.caller.alias;
      record.project = t.caller.project.id;
    }
    if (t.model !== undefined) record.model = t.model;
    this.stats.finish(record);
    if (this.log) {
      const entry: Parameters<RequestLog['add']>[0] = {
        seq: t.seq,
        t: t.now,
        endpoint: t.endpoint,
        status: typeof status === 'number' ? status : 0,
        outcome: name,
      };
      if (t.caller) {
        entry.keyAlias = t.caller.alias;
        entry.project = t.caller.project.id;
      }
      if (t.model !== undefined) entry.model = t.model;
      if (t.view) entry.promptSha256 = sha256Hex(t.view.userText);
      if (label !== undefined) entry.label = label;
      if (outcome.type !== 'hang') entry.latencyMs = Math.round((t.transit?.uplinkMs ?? 0) + outcome.delayMs + (t.transit?.downlinkMs ?? 0));
      this.log.add(entry);
    }
    return outcome;
  }

  /** The caller of a key: a scenario key, or (with acceptAnyKey) the default project under a stable alias. */
  private resolveKey(key: string): Caller | undefined {
    const known = this.keys.get(key);
    if (known) return known;
    if (!this.scenario.acceptAnyKey) return undefined;
    const project = this.scenario.projects.find((p) => p.id === this.scenario.defaultProject)!;
    let alias = this.anyKeys.get(key);
    if (alias === undefined) {
      alias = `any-key-${this.anyKeys.size + 1}` + (key.length >= 16 ? ` …${key.slice(-4)}` : '');
      this.anyKeys.set(key, alias);
    }
    const caller = { project, alias, leaked: false };
    this.keys.set(key, caller);
    return caller;
  }
}
