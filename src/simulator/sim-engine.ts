/**
 * The simulator's decision for one API request, independent of HTTP and of the dialect: key → project, model, request
 * checks, billing, quota, scripts, faults, answer. Synchronous; the HTTP layer applies the returned delay and writes
 * the body. What happens is the same for every dialect; how it is written (bodies, headers) is the dialect's
 * (dialect.ts: Gemini, Vertex, OpenAI and Gemini-compat chat/completions).
 *
 * Order of checks (what the real API does first is not documented; this order gives each error its fixture):
 * missing key → unknown key → leaked key → unknown model (named in the path) → bad JSON / bad body → unknown model
 * (named in the body) → thinking off on an always-thinking model → prompt over the context window →
 * [random fault, when faults do not count against quota] → billing (OpenAI `insufficientQuota`) → quota 429 →
 * scripted response → random fault → Flex shed (503) → answer, at the service tier that serves it (service-tiers.ts).
 */
import { buildAnswer, responseIdFor, type AnswerOverride } from './answer-builder.js';
import { BatchService } from './batch-service.js';
import { defaultBatchScenario } from './batch-types.js';
import type { Dialect, DialectName, Endpoint, ReadResult, Reply, SimFailure } from './dialect.js';
import * as bodies from './error-bodies.js';
import { namedFixture } from './error-bodies.js';
import { FaultPlan, type RequestDraw } from './fault-plan.js';
import { geminiDialect } from './gemini-dialect.js';
import { openaiDialect } from './openai-dialect.js';
import { countTokensBody, promptTokens } from './prompt-tokens.js';
import { QuotaLedger, type QuotaBucket } from './quota-ledger.js';
import { quotaNames } from './quota-names.js';
import { delayMs, hashString, mix32, seededRandom } from './random.js';
import { RequestLog, sha256Hex } from './request-log.js';
import type { RequestView } from './request-view.js';
import { limitsFor } from './scenario-presets.js';
import { ScriptBook } from './script-book.js';
import { askedTier, TierDesk } from './service-tiers.js';
import { StatsCollector, type RequestRecord } from './sim-stats.js';
import type { FaultKind, ModelLimits, ModelSpec, Scenario, ScenarioProject, ScriptResponse, ServedTier, SimClock, SimStats } from './types.js';
import { vertexDialect } from './vertex-dialect.js';

export type { Endpoint } from './dialect.js';

/** One parsed HTTP request. `body` is undefined when it was not JSON (`bodyError` says why). */
export interface SimRequest {
  /** The HTTP surface it came through. @default 'gemini' */
  dialect?: DialectName;
  endpoint: Endpoint;
  apiVersion: string;
  /** The model named in the path; chat/completions names it in the body instead. */
  model?: string;
  /** Vertex's `projects/{p}/locations/{l}` of the path, for its 404 wording. */
  resource?: string;
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

/** Per-request facts gathered along the way, for stats, the log and the dialect's headers. */
interface Trace {
  seq: number;
  now: number;
  endpoint: Endpoint;
  dialect: Dialect;
  /** The request's network legs (from {@link SimEngine.transit}), for the log's `latencyMs`. */
  transit?: { uplinkMs: number; downlinkMs: number };
  caller?: Caller;
  model?: string;
  view?: RequestView;
  /** The (project, model) quota, once known: its x-ratelimit-* headers go on every later reply. */
  bucket?: { bucket: QuotaBucket; limits: ModelLimits };
  /** The service tier the request named (undefined: none), and the one its answer is served at. */
  tier?: { asked: ServedTier | undefined; served: ServedTier };
}

/** Holds a scenario's state (quota ledger, stats, scripts, fault draws) and decides each request. */
export class SimEngine {
  readonly stats: StatsCollector;
  readonly log: RequestLog | undefined;
  /** The Batch API and the Files API (batch-service.ts); its line answers share this engine's scripts. */
  readonly batches: BatchService;
  private readonly ledger = new QuotaLedger();
  private readonly keys = new Map<string, Caller>();
  private readonly anyKeys = new Map<string, string>();
  private readonly faults: FaultPlan;
  private readonly scripts: ScriptBook;
  private readonly tiers: TierDesk;
  private readonly dialects: Record<DialectName, Dialect>;
  /** Admitted requests per project, for `insufficientQuota.afterRequests`. */
  private readonly projectAdmitted = new Map<string, number>();
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
    this.batches = new BatchService(scenario.batch ?? defaultBatchScenario(), scenario.seed, scenario.models, clock, this.scripts);
    this.tiers = new TierDesk(scenario);
    for (const project of scenario.projects) {
      for (const k of project.keys) this.keys.set(k.key, { project, alias: k.alias, leaked: k.leaked });
    }
    const { style } = scenario.openai;
    this.dialects = {
      gemini: geminiDialect,
      vertex: vertexDialect,
      openai: openaiDialect(style === 'auto' ? 'openai' : style, scenario.openai),
      'gemini-compat': openaiDialect(style === 'auto' ? 'gemini-compat' : style, scenario.openai),
    };
  }

  /** The ground truth of `GET /__sim/stats`: the request counters and the Batch API's. */
  snapshot(): SimStats {
    return { ...this.stats.snapshot(), batches: this.batches.stats() };
  }

  /**
   * The caller of a key for the Files and Batch APIs: its quota project and alias, or the failure a Gemini request
   * with that key gets (missing, unknown, leaked key).
   */
  authenticate(key: string | undefined): { project: string; alias: string } | SimFailure {
    if (key === undefined || key === '') return { kind: 'missing-key' };
    const caller = this.resolveKey(key);
    if (!caller) return { kind: 'invalid-key', key };
    if (caller.leaked) return { kind: 'leaked-key' };
    return { project: caller.project.id, alias: caller.alias };
  }

  /**
   * Decides `req`. Never throws for any input.
   * @param transit the network legs drawn for it by {@link transit}, when the HTTP layer applies them (logged).
   */
  handle(req: SimRequest, transit?: { uplinkMs: number; downlinkMs: number }): Outcome {
    const dialect = this.dialects[req.dialect ?? 'gemini'];
    const t: Trace = { seq: ++this.seq, now: this.clock.now(), endpoint: req.endpoint, dialect, ...(transit ? { transit } : {}) };
    this.stats.arrive(req.endpoint);
    if (req.key === undefined || req.key === '') return this.fail(t, { kind: 'missing-key' });
    const caller = this.resolveKey(req.key);
    if (!caller) return this.fail(t, { kind: 'invalid-key', key: req.key });
    t.caller = caller;
    if (caller.leaked) return this.fail(t, { kind: 'leaked-key' });
    const notFound = (model: string): Outcome =>
      this.fail(t, { kind: 'model-not-found', model, apiVersion: req.apiVersion, endpoint: req.endpoint, ...(req.resource ? { resource: req.resource } : {}) });
    if (req.model !== undefined && !this.scenario.models[req.model]) return notFound(req.model);
    if (req.body === undefined) return this.fail(t, { kind: 'invalid-json', detail: req.bodyError ?? 'Unexpected end of input.' });
    const read: ReadResult = dialect.read(req.endpoint, req.body);
    if (!read.ok) return this.fail(t, read.failure);
    const model = req.model ?? read.model ?? '';
    const spec = this.scenario.models[model];
    if (!spec) return notFound(model);
    t.model = model;
    t.view = read.view;
    const counted = promptTokens(read.view);
    if (req.endpoint === 'countTokens') {
      return this.finish(t, { type: 'json', status: 200, body: countTokensBody(counted), delayMs: 0 }, { kind: 'other' }, 'count-tokens');
    }
    return this.generate(t, caller, spec, read.view, counted.total, read.extraTokens);
  }

  /**
   * @param tokens the prompt's input tokens (context window, stats)
   * @param extraTokens charged to TPM on top of them (OpenAI's max_tokens)
   */
  private generate(t: Trace, caller: Caller, spec: ModelSpec, view: RequestView, tokens: number, extraTokens: number): Outcome {
    const model = t.model!;
    const charge = tokens + extraTokens;
    const limits = limitsFor(caller.project.limits, model);
    const bucket = limits ? this.ledger.bucket(caller.project.id, model, limits) : undefined;
    if (bucket && limits) t.bucket = { bucket, limits };
    this.stats.arrivedAtQuota(caller.project.id, model, t.now, charge);
    const rejectWith400 = (failure: SimFailure): Outcome => {
      if (this.scenario.countRejected && bucket) bucket.countRejected(t.now, charge);
      return this.fail(t, failure);
    };
    if (spec.thinking === 'always' && view.thinkingBudget === 0) return rejectWith400({ kind: 'thinking-budget-zero' });
    if (tokens > spec.contextWindow) return rejectWith400({ kind: 'context-too-long', limit: spec.contextWindow, tokens });

    const hash = hashString(view.userText);
    const rule = this.scripts.find(view.userText);
    const draw = this.faults.draw(hash, model);
    if (rule < 0 && draw.fault && !this.scenario.faults.countAgainstQuota) return this.fault(t, draw.fault, draw);

    const billing = this.billing(t, caller);
    if (billing) return billing;
    if (bucket) {
      const rejected = this.checkQuota(t, caller, spec, bucket, charge, limits!.limitZero);
      if (rejected) return rejected;
    }
    this.stats.admitted(caller.project.id, model, t.now, charge);
    this.projectAdmitted.set(caller.project.id, (this.projectAdmitted.get(caller.project.id) ?? 0) + 1);
    const ctx = { spec, view, promptTokenCount: tokens, hash, responseId: responseIdFor(this.scenario.seed, t.seq) };
    const asked = askedTier(view);
    if (rule >= 0) {
      t.tier = { asked, served: this.tiers.serve(asked, caller.project.id, model, t.now) };
      return this.scripted(t, this.scripts.next(rule, view.userText), ctx, draw, tokens, this.scripts.match(rule));
    }
    if (draw.fault) return this.fault(t, draw.fault, draw);
    if (this.tiers.shed(asked, draw.random)) return this.shed(t, draw);
    t.tier = { asked, served: this.tiers.serve(asked, caller.project.id, model, t.now) };
    return this.answer(t, ctx, this.tiers.latency(asked, draw.random, draw.latencyMs), tokens);
  }

  /**
   * A Flex request shed: HTTP 503 UNAVAILABLE with the real body (the "overloaded" or the "high demand" wording, as a
   * 503 fault), served at once — the tier's normal behaviour when capacity is short (docs/service-tiers.md).
   */
  private shed(t: Trace, draw: RequestDraw): Outcome {
    const reply = t.dialect.failure({ kind: 'fault', fault: '503', highDemand: draw.random.next() < 0.5 });
    return this.finish(t, this.reply(t, reply), { kind: 'error', fault: 'flex-shed' }, 'flex-shed');
  }

  /** The billing 429 of a project whose `insufficientQuota` threshold is reached, in dialects that have one. */
  private billing(t: Trace, caller: Caller): Outcome | undefined {
    const iq = caller.project.insufficientQuota;
    if (!iq || !t.dialect.billing || (this.projectAdmitted.get(caller.project.id) ?? 0) < iq.afterRequests) return undefined;
    return this.finish(t, this.reply(t, t.dialect.billing(iq.code)), { kind: 'rate-limited', fault: iq.code }, 'billing');
  }

  private checkQuota(t: Trace, caller: Caller, spec: ModelSpec, bucket: QuotaBucket, tokens: number, limitZero: boolean): Outcome | undefined {
    const decision = bucket.tryAdmit(t.now, tokens, this.scenario.countRejected);
    if (decision.admitted) return undefined;
    const reply = t.dialect.quota({
      tier: caller.project.tier,
      project: caller.project.id,
      model: t.model!,
      quotaModel: spec.quotaModel,
      violations: decision.violations,
      flavour: this.scenario.quota429.flavour,
      retryAfterHeader: this.scenario.quota429.retryAfterHeader,
      limitZero,
      random: seededRandom(mix32(this.scenario.seed, t.seq, 0x429)),
      requestedTokens: tokens,
      headroom: bucket.headroom(t.now),
    });
    const quotaIds = decision.violations.map((v) => quotaNames(caller.project.tier, v.dimension).quotaId);
    return this.finish(t, this.reply(t, reply), { kind: 'rate-limited', quotaIds }, 'rate-limited');
  }

  /** A JSON outcome for `reply`, with the dialect's x-ratelimit-* headers once the request's quota is known. */
  private reply(t: Trace, reply: Reply, delayMs = 0): Outcome & { type: 'json' } {
    const outcome: Outcome & { type: 'json' } = { type: 'json', status: reply.status, body: reply.body, delayMs };
    let headers = reply.headers;
    if (t.bucket && t.dialect.limitHeaders) {
      const { rpm, tpm } = t.bucket.limits;
      headers = { ...t.dialect.limitHeaders(t.bucket.bucket.headroom(t.now), { ...(rpm !== undefined ? { rpm } : {}), ...(tpm !== undefined ? { tpm } : {}) }), ...headers };
    }
    if (headers && Object.keys(headers).length > 0) outcome.headers = headers;
    return outcome;
  }

  private answer(t: Trace, ctx: Parameters<typeof buildAnswer>[0], delayMs: number, tokens: number, override?: AnswerOverride, outcomeName?: string): Outcome {
    const a = buildAnswer(ctx, override);
    const meta = { model: t.model!, responseId: ctx.responseId, now: t.now, servedTier: t.tier?.served ?? 'standard', tierNamed: t.tier?.asked !== undefined };
    const body = t.dialect.answer(a, meta);
    const headers = t.dialect.answerHeaders?.(meta);
    const outcome = this.reply(t, { status: 200, body, ...(headers ? { headers } : {}) }, delayMs);
    const name = outcomeName ?? (a.outcome === 'ok' ? 'ok' : a.outcome);
    const rec: Omit<RequestRecord, 'status'> = { kind: 'ok', inputTokens: tokens, outputTokens: a.outputTokens, thoughtsTokens: a.thoughtsTokens };
    if (meta.tierNamed) rec.servedTier = meta.servedTier;
    return this.finish(t, outcome, rec, name, a.label);
  }

  /** @param marker the rule's `match`: the items a `pack` fault changes hold it. */
  private scripted(t: Trace, r: ScriptResponse, ctx: Parameters<typeof buildAnswer>[0], draw: RequestDraw, tokens: number, marker: string): Outcome {
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
        // A given body or fixture is served as is (any dialect); a bare status in the dialect's own shape.
        const body = r.body ?? (r.fixture ? namedFixture(r.fixture)!.body : undefined);
        const reply = body !== undefined ? { status: r.status, body } : t.dialect.failure({ kind: 'generic', status: r.status });
        return this.finish(t, this.reply(t, reply, delay), rec, 'script:error');
      }
      case 'pack':
        return this.answer(t, ctx, delay, tokens, { kind: 'pack', fault: r.fault, marker }, `script:pack-${r.fault}`);
      default:
        return this.answer(t, ctx, delay, tokens, r, `script:${r.kind}`);
    }
  }

  private fault(t: Trace, kind: FaultKind, draw: RequestDraw): Outcome {
    const rec = { kind: kind === '429-bare' ? ('rate-limited' as const) : ('error' as const), fault: kind };
    const delayMs = draw.latencyMs;
    const name = `fault:${kind}`;
    switch (kind) {
      case 'html-502':
        return this.finish(t, { type: 'html', status: 502, body: bodies.HTML_502, delayMs }, rec, name);
      case 'reset':
        return this.finish(t, { type: 'reset', delayMs }, rec, name);
      case 'hang':
        return this.finish(t, { type: 'hang' }, rec, name);
      default:
        // 429-bare: a 429 that names no quota (fixture 429-h-bare-capacity: capacity, gateways, Vertex's shared quota),
        // served at once like quota 429s.
        return this.finish(t, this.reply(t, t.dialect.failure({ kind: 'fault', fault: kind, highDemand: draw.highDemand }), kind === '429-bare' ? 0 : delayMs), rec, name);
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

  /** A refused request, in the dialect's shape. */
  private fail(t: Trace, failure: SimFailure): Outcome {
    return this.finish(t, this.reply(t, t.dialect.failure(failure)), { kind: 'error' }, 'error');
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
