/**
 * Opens the job directory of a run: takes its lock, checks its manifest against this run (exit 2 on a mismatch,
 * unless --restart), scans the whole input once on the first run (so a bad record at line 900,000 stops the job
 * before any API call), and opens the journal.
 */
import { mkdir, readdir } from 'node:fs/promises';
import type { ClassifyConfig } from '../config/classify-config.js';
import { JobMismatchError, UsageError } from '../errors.js';
import type { InputSource, RecordPosition } from '../input/input-source.js';
import type { FewShotExample } from '../prompt/examples.js';
import { removeStaleTemporaries } from '../files/atomic-file.js';
import { defaultJobDir, foreignNames, jobFiles, refuseSymlinks, resetJobDir, type JobFiles } from '../journal/job-dir.js';
import { acquireJobLock } from '../journal/job-lock.js';
import { Journal, type JournalRepair } from '../journal/journal.js';
import { diffManifest, readManifest, sha256File, writeManifest, type Manifest } from '../journal/manifest.js';
import { TOOL_VERSION } from '../version.js';

/** Records between two checkpoints of the manifest. */
export const CHECKPOINT_EVERY = 50_000;

export interface OpenJob {
  dir: string;
  files: JobFiles;
  journal: Journal;
  /** Data records in the input. */
  records: number;
  /** Where every 50,000th record starts (manifest.input.checkpoints). */
  checkpoints: RecordPosition[];
  repaired: JournalRepair | null;
  /** Things to tell the user (e.g. the manifest was written by another version). */
  notes: string[];
  close(): Promise<void>;
}

/**
 * The settings that change answers (compared on resume), including how the input is read: another header row or
 * delimiter gives other rows under the same row ids.
 */
export function jobSettings(config: ClassifyConfig, source: InputSource, examples: readonly FewShotExample[] = []): Record<string, unknown> {
  return {
    model: config.model,
    prompt: config.prompt,
    system: config.system ?? null,
    labels: config.labels ?? null,
    schema: config.schema?.json ?? null,
    temperature: config.temperature,
    maxOutputTokens: config.maxOutputTokens ?? null,
    thinkingBudget: config.thinkingBudget ?? null,
    examples: examples.length > 0 ? examples : null,
    reading: {
      format: source.dialect.format,
      encoding: source.dialect.encoding,
      delimiter: source.dialect.delimiter,
      quote: source.dialect.quote,
      headerRow: config.inputOptions.headerRow ?? 1,
      sheet: source.dialect.sheet ?? null,
      relaxColumnCount: config.inputOptions.relaxColumnCount ?? false,
    },
  };
}

/**
 * @throws JobMismatchError (exit 2) when the directory holds another job's results and --restart was not given.
 * @throws UsageError JOB_LOCKED when another gemini-batch runs the job; InputError from scanning the input.
 */
export async function openJob(config: ClassifyConfig, source: InputSource, examples: readonly FewShotExample[] = []): Promise<OpenJob> {
  const dir = config.jobDir ?? defaultJobDir(config.input);
  const files = jobFiles(dir);
  await mkdir(dir, { recursive: true });
  const release = await acquireJobLock(dir);
  try {
    await refuseSymlinks(dir);
    await removeStaleTemporaries(dir);
    if (config.restart) await resetJobDir(dir);
    const fingerprint = await sha256File(config.input);
    const stored = await readManifest(dir);
    const current: Manifest = {
      format: 1,
      tool: { name: 'gemini-batch', version: TOOL_VERSION },
      createdAt: stored?.createdAt ?? new Date().toISOString(),
      input: { path: config.input, size: fingerprint.size, sha256: fingerprint.sha256, records: null, columns: source.columns },
      settings: jobSettings(config, source, examples),
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
    const journal = await Journal.open(files.journal);
    try {
      if (!stored && journal.size > 0) {
        throw new JobMismatchError(dir, [`the journal holds ${journal.size} results but there is no manifest saying what they were computed from`]);
      }
      let records = stored?.input.records ?? null;
      let checkpoints = stored?.input.checkpoints ?? [];
      if (records === null) {
        records = 0;
        checkpoints = [];
        for await (const record of source.records()) {
          if (record.index % CHECKPOINT_EVERY === 0) checkpoints.push([record.index, record.line]);
          records++;
        }
      }
      current.input.records = records;
      current.input.checkpoints = checkpoints;
      if (!stored || stored.input.records === null || stored.input.path !== current.input.path || stored.tool.version !== TOOL_VERSION) {
        await writeManifest(dir, current);
      }
      return {
        dir,
        files,
        journal,
        records,
        checkpoints: checkpoints.map(([index, line]) => ({ index, line })),
        repaired: journal.repaired,
        notes,
        async close() {
          await journal.close();
          await release();
        },
      };
    } catch (error) {
      await journal.close();
      throw error;
    }
  } catch (error) {
    await release();
    throw error;
  }
}
