/**
 * The Files API's state: resumable upload sessions and stored files (uploaded JSONL inputs, generated result files),
 * per quota project, on the simulator clock. The HTTP side is batch-http.ts; facts in docs/batch-api.md "Files API":
 * ids up to 40 lowercase alphanumerics or dashes, `sizeBytes` an int64 string, files deleted 48 h after upload,
 * 2 GB per file.
 */
import { createHash } from 'node:crypto';
import { mix32 } from './random.js';

/** Largest file accepted, bytes (2 GB: docs/batch-api.md). */
export const MAX_FILE_BYTES = 2 * 1024 ** 3;

/** A stored file. */
export interface StoredFile {
  /** The id, without `files/`. */
  id: string;
  project: string;
  displayName?: string;
  mimeType: string;
  bytes: Buffer;
  /** Epoch ms of the simulator clock. */
  createTime: number;
  /** When it is deleted; undefined: kept (generated result files). */
  expireTime?: number;
  source: 'UPLOADED' | 'GENERATED';
}

/** An upload started and not yet finalized. */
export interface UploadSession {
  id: string;
  project: string;
  declaredBytes: number;
  mimeType: string;
  displayName?: string;
  /** A name the client asked for (`files/…`), when given. */
  name?: string;
  chunks: Buffer[];
  received: number;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A lowercase alphanumeric id of `length` characters from (seed, n), like the real ones (`rwu0rbghjmh7`). */
export function resourceId(seed: number, n: number, salt: number, length = 12): string {
  let id = '';
  for (let i = 0; i < length; i++) id += ALPHABET[mix32(seed, n, salt, i) % ALPHABET.length];
  return id;
}

/** The File resource's JSON (the real API's field names; `sizeBytes` as a string). `origin`: `http://host:port`. */
export function fileResource(f: StoredFile, origin: string): Record<string, unknown> {
  const time = new Date(f.createTime).toISOString();
  const body: Record<string, unknown> = {
    name: `files/${f.id}`,
    mimeType: f.mimeType,
    sizeBytes: String(f.bytes.length),
    createTime: time,
    updateTime: time,
  };
  if (f.displayName !== undefined) body.displayName = f.displayName;
  if (f.expireTime !== undefined) body.expirationTime = new Date(f.expireTime).toISOString();
  // A proto `bytes` field, so base64 in JSON; of the hex digest, as printed File objects show (docs/batch-api.md).
  body.sha256Hash = Buffer.from(createHash('sha256').update(f.bytes).digest('hex')).toString('base64');
  body.uri = `${origin}/v1beta/files/${f.id}`;
  if (f.source === 'GENERATED') body.downloadUri = `${origin}/download/v1beta/files/${f.id}:download?alt=media`;
  body.state = 'ACTIVE';
  body.source = f.source;
  return body;
}

/** Files and upload sessions, keyed by id. Ids are seeded by `seed` (the batch name seed: batch-service.ts). */
export class FileStore {
  private readonly files = new Map<string, StoredFile>();
  private readonly sessions = new Map<string, UploadSession>();
  private counter = 0;

  constructor(
    private readonly seed: number,
    private readonly ttlMs: number,
  ) {}

  /** Opens an upload session. */
  startUpload(project: string, declaredBytes: number, mimeType: string, displayName?: string, name?: string): UploadSession {
    const session: UploadSession = { id: resourceId(this.seed, ++this.counter, 0x0b1d, 24), project, declaredBytes, mimeType, chunks: [], received: 0 };
    if (displayName !== undefined) session.displayName = displayName;
    if (name !== undefined) session.name = name;
    this.sessions.set(session.id, session);
    return session;
  }

  /** Drops an upload session (a cancelled upload). */
  endSession(id: string): void {
    this.sessions.delete(id);
  }

  session(id: string): UploadSession | undefined {
    return this.sessions.get(id);
  }

  /** Whether a file id is taken (by a file not yet deleted). */
  has(id: string, now: number): boolean {
    return this.get(id, now) !== undefined;
  }

  /** Ends a session whose bytes are all received: the file exists from `now`. */
  finalize(session: UploadSession, now: number): StoredFile {
    this.sessions.delete(session.id);
    const id = session.name?.replace(/^files\//, '') ?? this.freshId(now);
    const file: StoredFile = {
      id,
      project: session.project,
      mimeType: session.mimeType,
      bytes: session.chunks.length === 1 ? session.chunks[0]! : Buffer.concat(session.chunks),
      createTime: now,
      expireTime: now + this.ttlMs,
      source: 'UPLOADED',
    };
    if (session.displayName !== undefined) file.displayName = session.displayName;
    this.files.set(id, file);
    return file;
  }

  /** Stores a generated file (batch results) under `id`; kept until deleted. */
  putGenerated(id: string, project: string, bytes: Buffer, now: number): StoredFile {
    const file: StoredFile = { id, project, mimeType: 'application/jsonl', bytes, createTime: now, source: 'GENERATED' };
    this.files.set(id, file);
    return file;
  }

  /** A live file by id (a file past its expiry is gone), whatever its project. */
  get(id: string, now: number): StoredFile | undefined {
    const f = this.files.get(id);
    if (f?.expireTime !== undefined && now >= f.expireTime) {
      this.files.delete(id);
      return undefined;
    }
    return f;
  }

  /** Deletes a file; false if there was none. */
  delete(id: string, now: number): boolean {
    return this.get(id, now) !== undefined && this.files.delete(id);
  }

  /** The live files of `project`, newest first. */
  list(project: string, now: number): StoredFile[] {
    const out: StoredFile[] = [];
    for (const id of [...this.files.keys()]) {
      const f = this.get(id, now);
      if (f && f.project === project) out.push(f);
    }
    return out.reverse();
  }

  private freshId(now: number): string {
    let id: string;
    do id = resourceId(this.seed, ++this.counter, 0xf11e);
    while (this.has(id, now));
    return id;
  }
}
