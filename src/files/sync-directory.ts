import fs from 'node:fs';

/**
 * fsyncs a directory so a file created, renamed or removed in it stays so after a power failure. Does nothing
 * where directories cannot be opened or synced (Windows, some file systems).
 */
export function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // EISDIR/EPERM on Windows, EINVAL on some file systems: nothing more can be done.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
