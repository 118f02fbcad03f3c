/**
 * The job's manifest (`<job-dir>/manifest.json`): what the journal's results were computed from. A resumed job
 * compares it with the current run ({@link diffManifest}) and refuses to mix results of different jobs.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { InputError } from '../errors.js';
import { writeFileAtomic } from '../files/atomic-file.js';
import type { ProviderName } from '../providers/contract.js';
import { jobFiles } from './job-dir.js';

/**
 * Where a job's answers come from: part of its identity, so that answers from one place are never taken for answers
 * from another (issue 11: a `--simulate` run's labels were reused by a real run as `ok`). Compared field by field;
 * later fields (service tier, batch) join it the same way.
 */
export interface AnswerSource {
  /** `simulator`: the built-in simulator of `--simulate` (made-up answers); `api`: an API endpoint. */
  kind: 'simulator' | 'api';
  /** The provider the requests are shaped for. */
  provider: ProviderName;
  /** The endpoint's host (and port), without credentials or path: `generativelanguage.googleapis.com`; `built-in` for the simulator. */
  endpoint: string;
  /** The model id as sent, after gemini-batch resolved it (`models/` prefix removed). */
  model: string;
}

/** The manifest file's content, version 1. */
export interface Manifest {
  /** Format of this file; a reader refuses formats it does not know. */
  format: 1;
  /** The gemini-batch that wrote the file. */
  tool: { name: 'gemini-batch'; version: string };
  /** When the job was created, ISO 8601 UTC. */
  createdAt: string;
  input: {
    /** The input as the user named it (a moved input is still the same job). */
    path: string;
    /** Size in bytes. */
    size: number;
    /** SHA-256 of the file's bytes, lowercase hex. */
    sha256: string;
    /** Data records read, or null when not known yet. */
    records: number | null;
    /** Column names after cleaning (InputSource.columns). */
    columns: string[];
    /**
     * `[record index, line]` of every 50,000th record, found by the first run's scan: a resumed job starts reading at
     * the last one before its first unfinished row instead of parsing every finished row again.
     */
    checkpoints?: Array<[number, number]>;
    /**
     * How journal entries are tied to their rows (../job/answer-fingerprint.ts): `prompt-columns`. Absent in manifests
     * of earlier versions, whose journals cannot be matched to a changed input.
     */
    rowFingerprint?: string;
    /**
     * How the input was read (format, encoding, delimiter, quote, header row, sheet, relaxed column count). Another
     * reading gives other rows, which are then matched by fingerprint like any changed input.
     */
    reading?: Record<string, unknown>;
  };
  /** Where the answers come from; absent in manifests of earlier versions (then the job cannot resume). */
  source?: AnswerSource;
  /**
   * Everything that changes answers: model, prompt, system instruction, labels, generation config, schema,
   * examples… Compared key by key, deep. Options that do not change answers (--limit, workers, keys, limits) do
   * not belong here, so a job can resume with other values of them.
   */
  settings: Record<string, unknown>;
}

/**
 * Reads `<jobDir>/manifest.json`.
 * @returns the manifest, or null when the file (or the directory) does not exist.
 * @throws InputError code `JOURNAL_MANIFEST_INVALID` (exit 2) naming the file when it cannot be read, is not JSON,
 *   or does not have the shape of {@link Manifest} (including a format from a newer gemini-batch).
 */
export async function readManifest(jobDir: string): Promise<Manifest | null> {
  const file = jobFiles(jobDir).manifest;
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw invalid(file, `cannot be read: ${(error as Error).message}`, error);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalid(file, `is not valid JSON (${(error as Error).message})`, error);
  }
  const problem = manifestProblem(value);
  if (problem) throw invalid(file, problem);
  return value as Manifest;
}

/**
 * Writes `<jobDir>/manifest.json` atomically (temporary file, fsync, rename, directory fsync), pretty-printed.
 * The directory must exist.
 * @throws the fs error when writing fails.
 */
export async function writeManifest(jobDir: string, m: Manifest): Promise<void> {
  await writeFileAtomic(jobFiles(jobDir).manifest, `${JSON.stringify(m, null, 2)}\n`);
}

/**
 * SHA-256 (lowercase hex) and size (bytes) of a file, read as a stream (64 KiB chunks: constant memory).
 * @throws InputError code `INPUT_UNREADABLE` (exit 2) naming the file when it cannot be read.
 */
export async function sha256File(file: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  try {
    for await (const chunk of fs.createReadStream(file, { highWaterMark: 64 * 1024 }) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      size += chunk.length;
    }
  } catch (error) {
    throw new InputError('INPUT_UNREADABLE', { file }, `cannot be read: ${(error as Error).message}`, { cause: error });
  }
  return { sha256: hash.digest('hex'), size };
}

/** Why `v` is not a {@link Manifest}, or null when it is one. */
function manifestProblem(v: unknown): string | null {
  if (!isObject(v)) return 'is not a JSON object';
  if (v.format !== 1) {
    return typeof v.format === 'number' && v.format > 1
      ? `has format ${v.format}, written by a newer gemini-batch: upgrade gemini-batch to resume this job`
      : `has no known "format" (expected 1)`;
  }
  if (!isObject(v.tool) || v.tool.name !== 'gemini-batch' || typeof v.tool.version !== 'string') return 'has no "tool" {name: "gemini-batch", version}';
  if (typeof v.createdAt !== 'string') return 'has no "createdAt"';
  const input = v.input;
  if (!isObject(input)) return 'has no "input"';
  if (typeof input.path !== 'string') return 'has no "input.path"';
  if (typeof input.size !== 'number' || !(input.size >= 0)) return 'has no "input.size"';
  if (typeof input.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(input.sha256)) return 'has no "input.sha256" (64 hex digits)';
  if (input.records !== null && (typeof input.records !== 'number' || !(input.records >= 0))) return '"input.records" must be a number or null';
  if (!Array.isArray(input.columns) || !input.columns.every((c) => typeof c === 'string')) return '"input.columns" must be a list of names';
  if (!isObject(v.settings)) return 'has no "settings" object';
  if (v.source !== undefined) {
    const src = v.source;
    if (!isObject(src) || (src.kind !== 'simulator' && src.kind !== 'api') || typeof src.provider !== 'string' || typeof src.endpoint !== 'string' || typeof src.model !== 'string') {
      return '"source" must be {kind: "simulator" | "api", provider, endpoint, model}';
    }
  }
  return null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function invalid(file: string, problem: string, cause?: unknown): InputError {
  return new InputError(
    'JOURNAL_MANIFEST_INVALID',
    { file },
    `the job's manifest ${problem}. Run with --restart to discard the job directory's results, or choose another --job-dir.`,
    cause === undefined ? undefined : { cause },
  );
}
