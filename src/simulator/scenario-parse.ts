/**
 * Reads and validates scenario files (format: ./README.md). Every problem is an InputError with code
 * `SIM_SCENARIO_INVALID` naming the file, line:column when known, and the JSON path of the bad field.
 */
import { readFileSync } from 'node:fs';
import { InputError } from '../errors.js';
import { locateSyntaxError, type PathSegment } from './json-locate.js';
import { builtInCatalogue, modelSpec } from './model-catalogue.js';
import { SCENARIO_INVALID, ScenarioChecker, type Obj } from './scenario-checker.js';
import { parseBatch } from './scenario-batch.js';
import { parseScripts } from './scenario-scripts.js';
import { FLEX_LATENCY } from './service-tiers.js';
import {
  BILLING_CODES,
  FAULT_KINDS,
  RESPONSE_FORMATS,
  type DelaySpec,
  type FaultKind,
  type FlexTier,
  type PriorityTier,
  type LatencyModel,
  type ModelLimits,
  type ModelSpec,
  type OpenAIOptions,
  type QuotaFlavour,
  type Scenario,
  type ScenarioKey,
  type ScenarioProject,
  type Tier,
  type WindowPolicy,
} from './types.js';

const FLAVOURS: readonly QuotaFlavour[] = ['full-new', 'full-old', 'help-only', 'bare', 'daily-misleading', 'vary-order'];
const TIERS: readonly Tier[] = ['free', 'paid'];
const TOP_FIELDS = [
  'description', 'seed', 'acceptAnyKey', 'defaultProject', 'tier', 'window', 'countRejected', 'quota429',
  'requestLog', 'models', 'projects', 'faults', 'latency', 'scripts', 'openai', 'batch', 'flex', 'priority',
];

/** The `openai` block's defaults: style by path, every header, every response_format type. */
export function defaultOpenAIOptions(): OpenAIOptions {
  return { style: 'auto', rateLimitHeaders: true, retryAfterHeaders: true, responseFormats: [...RESPONSE_FORMATS] };
}

/** `openai`: the chat/completions dialect's style, headers, TPM charge and accepted response formats. */
function parseOpenAI(c: ScenarioChecker, raw: unknown): OpenAIOptions {
  const options = defaultOpenAIOptions();
  if (raw === undefined) return options;
  const o = c.object(raw, ['openai'], ['style', 'rateLimitHeaders', 'retryAfterHeaders', 'countMaxTokens', 'responseFormats']);
  if (o.style !== undefined) options.style = c.oneOf(o.style, ['openai', 'style'], ['auto', 'openai', 'gemini-compat'] as const);
  if (o.rateLimitHeaders !== undefined) options.rateLimitHeaders = c.boolean(o.rateLimitHeaders, ['openai', 'rateLimitHeaders']);
  if (o.retryAfterHeaders !== undefined) options.retryAfterHeaders = c.boolean(o.retryAfterHeaders, ['openai', 'retryAfterHeaders']);
  if (o.countMaxTokens !== undefined) options.countMaxTokens = c.boolean(o.countMaxTokens, ['openai', 'countMaxTokens']);
  if (o.responseFormats !== undefined) {
    options.responseFormats = c.array(o.responseFormats, ['openai', 'responseFormats']).map((f, i) => c.oneOf(f, ['openai', 'responseFormats', i], RESPONSE_FORMATS));
  }
  return options;
}

/** A project's `insufficientQuota`: `true` (from the first request), or `{afterRequests, code}`. */
function parseInsufficientQuota(c: ScenarioChecker, raw: unknown, path: PathSegment[]): ScenarioProject['insufficientQuota'] {
  if (raw === false) return undefined;
  if (raw === true) return { afterRequests: 0, code: 'insufficient_quota' };
  const o = c.object(raw, path, ['afterRequests', 'code']);
  return {
    afterRequests: o.afterRequests === undefined ? 0 : c.int(o.afterRequests, [...path, 'afterRequests']),
    code: o.code === undefined ? 'insufficient_quota' : c.oneOf(o.code, [...path, 'code'], BILLING_CODES),
  };
}

/** A window policy: `"rolling"`, `"fixed"`, `"bucket"` or `{"policy":"bucket","burst":N,"tokenBurst":N}`. */
function parseWindow(c: ScenarioChecker, raw: unknown, path: PathSegment[], rpm?: number, tpm?: number): WindowPolicy {
  const o: Obj = typeof raw === 'string' ? { policy: raw } : c.object(raw, path, ['policy', 'burst', 'tokenBurst']);
  const policy = c.oneOf(o.policy, typeof raw === 'string' ? path : [...path, 'policy'], ['rolling', 'fixed', 'bucket'] as const);
  if (policy !== 'bucket') {
    if (o.burst !== undefined || o.tokenBurst !== undefined) c.fail([...path, 'burst'], 'burst and tokenBurst apply only to "policy": "bucket".');
    return { kind: policy };
  }
  const burst = o.burst === undefined ? Math.max(1, Math.ceil((rpm ?? 0) / 6)) : c.int(o.burst, [...path, 'burst'], 1);
  const tokenBurst = o.tokenBurst === undefined ? Math.max(1, Math.ceil((tpm ?? 0) / 6)) : c.int(o.tokenBurst, [...path, 'tokenBurst'], 1);
  return { kind: 'bucket', burst, tokenBurst };
}

function parseLimits(c: ScenarioChecker, raw: unknown, path: PathSegment[], defaultWindow: unknown): ModelLimits {
  const o = c.object(raw, path, ['rpm', 'tpm', 'rpd', 'tpd', 'limit', 'window']);
  const dim = (name: 'rpm' | 'tpm' | 'rpd' | 'tpd'): number | undefined =>
    o[name] === undefined || o[name] === null ? undefined : c.int(o[name], [...path, name]);
  if (o.limit !== undefined && o.limit !== 0) c.fail([...path, 'limit'], 'expected 0 (a model without quota on this tier); give other limits as rpm, tpm, rpd, tpd.');
  const limitZero = o.limit === 0;
  const limits: ModelLimits = { limitZero, window: { kind: 'rolling' } };
  if (limitZero) {
    limits.rpm = 0;
    limits.tpm = 0;
    limits.rpd = 0;
  } else {
    for (const name of ['rpm', 'tpm', 'rpd', 'tpd'] as const) {
      const v = dim(name);
      if (v !== undefined) limits[name] = v;
    }
  }
  const windowRaw = o.window ?? defaultWindow;
  if (windowRaw !== undefined) limits.window = parseWindow(c, windowRaw, o.window !== undefined ? [...path, 'window'] : ['window'], limits.rpm, limits.tpm);
  return limits;
}

function parseKey(c: ScenarioChecker, raw: unknown, path: PathSegment[], project: string, index: number): ScenarioKey {
  if (typeof raw === 'string') {
    return { key: c.string(raw, path), alias: `${project}/key-${index + 1}`, leaked: false };
  }
  const o = c.object(raw, path, ['key', 'alias', 'leaked']);
  return {
    key: c.string(o.key, [...path, 'key']),
    alias: o.alias === undefined ? `${project}/key-${index + 1}` : c.string(o.alias, [...path, 'alias']),
    leaked: o.leaked === undefined ? false : c.boolean(o.leaked, [...path, 'leaked']),
  };
}

function parseProject(c: ScenarioChecker, raw: unknown, path: PathSegment[], tier: Tier, window: unknown): ScenarioProject {
  const o = c.object(raw, path, ['id', 'tier', 'keys', 'limits', 'insufficientQuota']);
  const id = c.string(o.id, [...path, 'id']);
  const keys = o.keys === undefined ? [] : c.array(o.keys, [...path, 'keys']).map((k, i) => parseKey(c, k, [...path, 'keys', i], id, i));
  const limits: Record<string, ModelLimits> = {};
  if (o.limits !== undefined) {
    for (const [model, l] of Object.entries(c.map(o.limits, [...path, 'limits']))) {
      limits[model] = parseLimits(c, l, [...path, 'limits', model], window);
    }
  }
  const project: ScenarioProject = { id, tier: o.tier === undefined ? tier : c.oneOf(o.tier, [...path, 'tier'], TIERS), keys, limits };
  const insufficientQuota = o.insufficientQuota === undefined ? undefined : parseInsufficientQuota(c, o.insufficientQuota, [...path, 'insufficientQuota']);
  if (insufficientQuota) project.insufficientQuota = insufficientQuota;
  return project;
}

function parseModel(c: ScenarioChecker, id: string, raw: unknown, path: PathSegment[]): ModelSpec {
  const o = c.object(raw, path, ['contextWindow', 'thinking', 'thoughtTokens', 'modelVersion', 'quotaModel']);
  const over: Partial<ModelSpec> = {};
  if (o.contextWindow !== undefined) over.contextWindow = c.int(o.contextWindow, [...path, 'contextWindow'], 1);
  if (o.thinking !== undefined) over.thinking = c.oneOf(o.thinking, [...path, 'thinking'], ['off', 'dynamic', 'always'] as const);
  if (o.thoughtTokens !== undefined) {
    const range = c.array(o.thoughtTokens, [...path, 'thoughtTokens']);
    if (range.length !== 2) c.fail([...path, 'thoughtTokens'], 'expected [min, max].');
    const min = c.int(range[0], [...path, 'thoughtTokens', 0], 1);
    const max = c.int(range[1], [...path, 'thoughtTokens', 1], min);
    over.thoughtTokens = { min, max };
  }
  if (o.modelVersion !== undefined) over.modelVersion = c.string(o.modelVersion, [...path, 'modelVersion']);
  if (o.quotaModel !== undefined) over.quotaModel = c.string(o.quotaModel, [...path, 'quotaModel']);
  return modelSpec(id, over);
}

function parseFaults(c: ScenarioChecker, raw: unknown): Scenario['faults'] {
  const rates = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>;
  if (raw === undefined) return { rates, countAgainstQuota: true };
  const o = c.object(raw, ['faults'], [...FAULT_KINDS, 'countAgainstQuota']);
  let total = 0;
  for (const k of FAULT_KINDS) {
    if (o[k] !== undefined) rates[k] = c.number(o[k], ['faults', k], 0, 1);
    total += rates[k];
  }
  if (total > 1) c.fail(['faults'], `the fault rates add up to ${Number(total.toFixed(6))}; they are probabilities per request and must add up to at most 1.`);
  return { rates, countAgainstQuota: o.countAgainstQuota === undefined ? true : c.boolean(o.countAgainstQuota, ['faults', 'countAgainstQuota']) };
}

function parseDelay(c: ScenarioChecker, o: Obj, path: PathSegment[]): DelaySpec {
  const medianMs = o.medianMs === undefined ? 0 : c.number(o.medianMs, [...path, 'medianMs'], 0, 3_600_000);
  const p99Ms = o.p99Ms === undefined ? medianMs : c.number(o.p99Ms, [...path, 'p99Ms'], medianMs, 3_600_000);
  const spec: DelaySpec = { medianMs, p99Ms };
  if (o.minMs !== undefined) spec.minMs = c.number(o.minMs, [...path, 'minMs'], 0, 3_600_000);
  if (o.maxMs !== undefined) spec.maxMs = c.number(o.maxMs, [...path, 'maxMs'], spec.minMs ?? 0, 3_600_000);
  return spec;
}

const DELAY_FIELDS = ['medianMs', 'p99Ms', 'minMs', 'maxMs'];

/** `latency`: the generation default (median, p99, clamps), `uplink`, `downlink`, and per-model `models`. */
function parseLatency(c: ScenarioChecker, raw: unknown): Scenario['latency'] {
  if (raw === undefined || raw === 0) return { medianMs: 0, p99Ms: 0 };
  const o = c.object(raw, ['latency'], [...DELAY_FIELDS, 'uplink', 'downlink', 'models']);
  const latency: LatencyModel = parseDelay(c, o, ['latency']);
  for (const leg of ['uplink', 'downlink'] as const) {
    if (o[leg] !== undefined) latency[leg] = parseDelay(c, c.object(o[leg], ['latency', leg], DELAY_FIELDS), ['latency', leg]);
  }
  if (o.models !== undefined) {
    const models = c.map(o.models, ['latency', 'models']);
    latency.models = Object.fromEntries(
      Object.entries(models).map(([id, spec]) => [id, parseDelay(c, c.object(spec, ['latency', 'models', id], DELAY_FIELDS), ['latency', 'models', id])]),
    );
  }
  return latency;
}

/**
 * `flex`: `{"shedRate": p, "latency": {medianMs, p99Ms, minMs?, maxMs?}, "timeScale": f}` — Flex requests are shed with
 * probability p, and answered after the latency (real time, default the 1–15 min target) times f (default 1).
 */
function parseFlex(c: ScenarioChecker, raw: unknown): FlexTier | undefined {
  if (raw === undefined) return undefined;
  const o = c.object(raw, ['flex'], ['shedRate', 'latency', 'timeScale']);
  return {
    shedRate: o.shedRate === undefined ? 0 : c.number(o.shedRate, ['flex', 'shedRate'], 0, 1),
    latency: o.latency === undefined ? { ...FLEX_LATENCY } : parseDelay(c, c.object(o.latency, ['flex', 'latency'], DELAY_FIELDS), ['flex', 'latency']),
    timeScale: o.timeScale === undefined ? 1 : c.number(o.timeScale, ['flex', 'timeScale'], 0, 1000),
  };
}

/** `priority`: `{"rpm": n}` — Priority requests beyond n per project and model in any 60 s are served at standard. */
function parsePriority(c: ScenarioChecker, raw: unknown): PriorityTier | undefined {
  if (raw === undefined) return undefined;
  const o = c.object(raw, ['priority'], ['rpm']);
  return { rpm: c.int(o.rpm, ['priority', 'rpm']) };
}

function parseQuota429(c: ScenarioChecker, raw: unknown): Scenario['quota429'] {
  if (raw === undefined) return { flavour: 'full-new', retryAfterHeader: false };
  if (typeof raw === 'string') return { flavour: c.oneOf(raw, ['quota429'], FLAVOURS), retryAfterHeader: false };
  const o = c.object(raw, ['quota429'], ['flavour', 'retryAfterHeader']);
  return {
    flavour: o.flavour === undefined ? 'full-new' : c.oneOf(o.flavour, ['quota429', 'flavour'], FLAVOURS),
    retryAfterHeader: o.retryAfterHeader === undefined ? false : c.boolean(o.retryAfterHeader, ['quota429', 'retryAfterHeader']),
  };
}

/** Checks what no single field can: unique ids and keys, and the project of unknown keys. */
function crossCheck(c: ScenarioChecker, s: Scenario): void {
  const ids = new Set<string>();
  const keys = new Set<string>();
  const aliases = new Set<string>();
  s.projects.forEach((p, i) => {
    if (ids.has(p.id)) c.fail(['projects', i, 'id'], `project id ${JSON.stringify(p.id)} is used twice.`);
    ids.add(p.id);
    p.keys.forEach((k, j) => {
      if (keys.has(k.key)) c.fail(['projects', i, 'keys', j], 'this key appears twice; a key belongs to exactly one project.');
      if (aliases.has(k.alias)) c.fail(['projects', i, 'keys', j], `alias ${JSON.stringify(k.alias)} is used twice.`);
      keys.add(k.key);
      aliases.add(k.alias);
    });
  });
  if (s.acceptAnyKey && !ids.has(s.defaultProject)) {
    c.fail(['defaultProject'], `acceptAnyKey charges unknown keys to project ${JSON.stringify(s.defaultProject)}, which is not in "projects"; add it (it may have "keys": []).`);
  }
}

/**
 * Validates a parsed scenario object. `source` names it in errors (a file name, or e.g. `--simulate-config`).
 * @throws InputError code SIM_SCENARIO_INVALID.
 */
export function parseScenario(json: unknown, source: string): Scenario {
  return parseWith(new ScenarioChecker(source), json);
}

function parseWith(c: ScenarioChecker, json: unknown): Scenario {
  const o = c.object(json, [], TOP_FIELDS);
  const tier = o.tier === undefined ? 'free' : c.oneOf(o.tier, ['tier'], TIERS);
  if (o.window !== undefined) parseWindow(c, o.window, ['window']);
  const projectsRaw = c.array(o.projects, ['projects']);
  if (projectsRaw.length === 0) c.fail(['projects'], 'expected at least one project.');
  const projects = projectsRaw.map((p, i) => parseProject(c, p, ['projects', i], tier, o.window));

  const models = builtInCatalogue();
  for (const p of projects) for (const m of Object.keys(p.limits)) if (m !== '*' && !models[m]) models[m] = modelSpec(m);
  if (o.models !== undefined) {
    for (const [id, spec] of Object.entries(c.map(o.models, ['models']))) models[id] = parseModel(c, id, spec, ['models', id]);
  }

  const scenario: Scenario = {
    seed: o.seed === undefined ? 1 : c.int(o.seed, ['seed'], 0, 0xffffffff),
    acceptAnyKey: o.acceptAnyKey === undefined ? false : c.boolean(o.acceptAnyKey, ['acceptAnyKey']),
    defaultProject: o.defaultProject === undefined ? 'default' : c.string(o.defaultProject, ['defaultProject']),
    projects,
    models,
    countRejected: o.countRejected === undefined ? false : c.boolean(o.countRejected, ['countRejected']),
    quota429: parseQuota429(c, o.quota429),
    faults: parseFaults(c, o.faults),
    latency: parseLatency(c, o.latency),
    scripts: o.scripts === undefined ? [] : parseScripts(c, o.scripts, ['scripts']),
    requestLog: o.requestLog === undefined ? false : c.boolean(o.requestLog, ['requestLog']),
    openai: parseOpenAI(c, o.openai),
  };
  if (o.description !== undefined) scenario.description = c.string(o.description, ['description'], false);
  if (o.batch !== undefined) scenario.batch = parseBatch(c, o.batch);
  const flex = parseFlex(c, o.flex);
  if (flex) scenario.flex = flex;
  const priority = parsePriority(c, o.priority);
  if (priority) scenario.priority = priority;
  crossCheck(c, scenario);
  return scenario;
}

/**
 * Reads a scenario file (UTF-8 JSON) and validates it.
 * @throws InputError code SIM_SCENARIO_UNREADABLE when the file cannot be read, SIM_SCENARIO_INVALID when it is
 * not JSON (with line and column) or a field is wrong (with its JSON path).
 */
export function loadScenario(file: string): Scenario {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message;
    throw new InputError('SIM_SCENARIO_UNREADABLE', { file }, `cannot read the scenario: ${reason}.`, { cause: err });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    const pos = locateSyntaxError(text);
    throw new InputError(SCENARIO_INVALID, { file, line: pos?.line, column: pos?.column }, `not valid JSON: ${(err as Error).message}.`, { cause: err });
  }
  return parseWith(new ScenarioChecker(file, text), json);
}
