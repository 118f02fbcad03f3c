/**
 * Opens the job directory of a run: takes its lock, checks its manifest against this run (exit 2 when the answers
 * would come from elsewhere or from other settings, unless --restart), passes over the whole input once when the job
 * is new or its input changed (so a bad record at line 900,000 stops the job before any API call, and a changed
 * input's rows are matched to their answers by fingerprint), and opens the journal.
 */
import { mkdir, readdir } from 'node:fs/promises';
import type { ClassifyConfig } from '../config/classify-config.js';
import { JobMismatchError, UsageError } from '../errors.js';
import type { InputSource, RecordPosition } from '../input/input-source.js';
import type { FewShotExample } from '../prompt/examples.js';
import { removeStaleTemporaries } from '../files/atomic-file.js';
import { defaultJobDir, foreignNames, jobFiles, refuseSymlinks, resetJobDir, type JobFiles } from '../journal/job-dir.js';
import { acquireJobLock } from '../journal/job-lock.js';
import { Journal } from '../journal/journal.js';
import type { JournalRepair } from '../journal/journal-scan.js';
import { readManifest, sha256File, writeManifest, type AnswerSource, type Manifest } from '../journal/manifest.js';
import { diffManifest } from '../journal/manifest-diff.js';
import { formatCount } from '../report/progress-snapshot.js';
import { TOOL_VERSION } from '../version.js';
import { ROW_FINGERPRINT } from './answer-fingerprint.js';
import { CHECKPOINT_EVERY, reconcileInput, scanInput, type Reconciled } from './reconcile-input.js';

export { CHECKPOINT_EVERY };

export interface OpenJob {
  dir: string;
  files: JobFiles;
  /** The journal; another object after {@link recheckInput} rewrote it. */
  readonly journal: Journal;
  /** Data records in the input. */
  readonly records: number;
  /** Where every 50,000th record starts (manifest.input.checkpoints). */
  readonly checkpoints: RecordPosition[];
  repaired: JournalRepair | null;
  /** Things to tell the user (e.g. the input changed: how many rows keep their answers). */
  notes: string[];
  /**
   * Hashes the input again; when it changed since the job was opened (edited during the run), matches its rows to
   * the journal's entries again, rewrites the journal and the manifest, and says what changed. Call when no row is
   * being journaled.
   * @returns null when the input is unchanged.
   */
  recheckInput(): Promise<Reconciled | null>;
  close(): Promise<void>;
  /**
   * For a process about to exit (a second Ctrl-C): syncs the journal if it is still open and removes the lock,
   * synchronously. Errors are swallowed: the journal's lines are written one by one, and a lock left behind is stale.
   */
  closeSync(): void;
}

/** What identifies a job's answers besides its settings. */
export interface JobIdentity {
  examples: readonly FewShotExample[];
  /** Where the answers come from (./endpoint.ts `answerSourceOf`). */
  source: AnswerSource;
  /** The fingerprint tying a row to its answer (./answer-fingerprint.ts). */
  fingerprint: (cells: readonly string[]) => string;
}

/** The settings that change answers, compared on resume (the model is in the manifest's `source`). */
export function jobSettings(config: ClassifyConfig, examples: readonly FewShotExample[] = []): Record<string, unknown> {
  return {
    prompt: config.prompt,
    system: config.system ?? null,
    labels: config.labels ?? null,
    schema: config.schema?.json ?? null,
    temperature: config.temperature,
    maxOutputTokens: config.maxOutputTokens ?? null,
    thinkingBudget: config.thinkingBudget ?? null,
    examples: examples.length > 0 ? examples : null,
  };
}

/** How the input was read (manifest.input.reading): another header row or delimiter gives other rows. */
export function inputReading(config: ClassifyConfig, source: InputSource): Record<string, unknown> {
  return {
    format: source.dialect.format,
    encoding: source.dialect.encoding,
    delimiter: source.dialect.delimiter,
    quote: source.dialect.quote,
    headerRow: config.inputOptions.headerRow ?? 1,
    sheet: source.dialect.sheet ?? null,
    relaxColumnCount: config.inputOptions.relaxColumnCount ?? false,
  };
}

/**
 * @throws JobMismatchError (exit 2) when the directory holds another job's results and --restart was not given.
 * @throws UsageError JOB_LOCKED when another gemini-batch runs the job, JOB_DIR_SYMLINK; InputError from reading the
 *   input.
 */
export async function openJob(config: ClassifyConfig, input: InputSource, identity: JobIdentity): Promise<OpenJob> {
  const dir = config.jobDir ?? defaultJobDir(config.input);
  const files = jobFiles(dir);
  await mkdir(dir, { recursive: true });
  const release = await acquireJobLock(dir);
  try {
    await refuseSymlinks(dir);
    await removeStaleTemporaries(dir);
    if (config.restart) await resetJobDir(dir);
    const hash = await sha256File(config.input);
    const stored = await readManifest(dir);
    const current: Manifest = {
      format: 1,
      tool: { name: 'gemini-batch', version: TOOL_VERSION },
      createdAt: stored?.createdAt ?? new Date().toISOString(),
      input: {
        path: config.input,
        size: hash.size,
        sha256: hash.sha256,
        records: null,
        columns: input.columns,
        rowFingerprint: ROW_FINGERPRINT,
        reading: inputReading(config, input),
      },
      source: identity.source,
      settings: jobSettings(config, identity.examples),
    };
    const notes: string[] = [];
    if (!stored) {
      const foreign = foreignNames(await readdir(dir));
      if (foreign.length > 0) {
        throw new UsageError(
          'JOB_DIR_FOREIGN_FILES',
          `${dir} is not a gemini-batch job directory: it holds ${foreign.slice(0, 5).join(', ')}${foreign.length > 5 ? ` and ${foreign.length - 5} more` : ''}. Choose another --job-dir.`,
        );
      }
    }
    if (stored) {
      const diff = diffManifest(stored, current);
      if (diff.blocking.length > 0) throw new JobMismatchError(dir, diff.blocking);
      notes.push(...diff.notes);
    }
    let journal = await Journal.open(files.journal);
    try {
      if (!stored && journal.size > 0) {
        throw new JobMismatchError(dir, [`the journal holds ${journal.size} results but there is no manifest saying what they were computed from`]);
      }
      let records = stored?.input.records ?? null;
      let checkpoints: RecordPosition[] = (stored?.input.checkpoints ?? []).map(([index, line]) => ({ index, line }));
      const changed = stored !== null && (stored.input.sha256 !== current.input.sha256 || stored.input.size !== current.input.size);
      if (changed && journal.size > 0) {
        const r = await reconcileInput(input, journal, identity.fingerprint);
        journal = r.journal;
        ({ records, checkpoints } = r);
        notes.push(changeNote('the input changed since the last run', stored.input.sha256, current.input.sha256, r));
      } else if (records === null || changed) {
        ({ records, checkpoints } = await scanInput(input));
      }
      current.input.records = records;
      current.input.checkpoints = checkpoints.map((c) => [c.index, c.line]);
      if (!stored || changed || stored.input.records === null || stored.input.path !== current.input.path || stored.tool.version !== TOOL_VERSION || !sameReading(stored, current)) {
        await writeManifest(dir, current);
      }
      const job: OpenJob = {
        dir,
        files,
        journal,
        records,
        checkpoints,
        repaired: journal.repaired,
        notes,
        async recheckInput() {
          const now = await sha256File(config.input);
          if (now.sha256 === current.input.sha256 && now.size === current.input.size) return null;
          const r = await reconcileInput(input, job.journal, identity.fingerprint);
          const before = current.input.sha256;
          Object.assign(job, { journal: r.journal, records: r.records, checkpoints: r.checkpoints });
          current.input = { ...current.input, size: now.size, sha256: now.sha256, records: r.records, checkpoints: r.checkpoints.map((c) => [c.index, c.line]) };
          await writeManifest(dir, current);
          job.notes.push(changeNote('the input changed during the run', before, now.sha256, r));
          return r;
        },
        async close() {
          await job.journal.close();
          await release();
        },
        closeSync() {
          try {
            job.journal.flush();
          } catch {
            // closed already, or the disk refused: the lines written so far are on disk
          }
          release.sync();
        },
      };
      return job;
    } catch (error) {
      await journal.close();
      throw error;
    }
  } catch (error) {
    await release();
    throw error;
  }
}

/** True when the stored manifest records the same reading of the input (or none: an older manifest). */
function sameReading(stored: Manifest, current: Manifest): boolean {
  return JSON.stringify(stored.input.reading) === JSON.stringify(current.input.reading);
}

/** `the input changed since the last run (sha256 3f2a… → 9b1c…): 9,870 rows keep their answers; …` */
function changeNote(what: string, before: string, after: string, r: Reconciled): string {
  const parts = [`${formatCount(r.kept)} ${r.kept === 1 ? 'row keeps its answer' : 'rows keep their answers'} (matched by their prompt inputs)`];
  parts.push(`${formatCount(r.unanswered)} ${r.unanswered === 1 ? 'row has' : 'rows have'} none yet (new, edited or not sent before)`);
  if (r.removed > 0) parts.push(r.removed === 1 ? '1 answer belongs to a row no longer in the input and leaves the job' : `${formatCount(r.removed)} answers belong to rows no longer in the input and leave the job`);
  return `${what} (sha256 ${before.slice(0, 4)}… → ${after.slice(0, 4)}…): ${parts.join('; ')}`;
}
