/**
 * Ctrl-C semantics of a running job (issue: "Interrupts"): the first SIGINT or SIGTERM stops dispatching and lets the
 * requests in flight finish for a bounded time, then the output is written and the job exits 3; a second one exits at
 * once (exit 3) after the journal — whose lines are already written one by one — is flushed to disk.
 */
import { ExitCode } from '../errors.js';

export interface InterruptHandlers {
  onFirst(): void;
  /** Runs synchronously before the process exits with code 3. */
  onSecond(): void;
}

/** Installs the handlers; `remove()` restores the default behaviour. */
export function installInterrupts(handlers: InterruptHandlers): { remove(): void } {
  let count = 0;
  const onSignal = () => {
    count++;
    if (count === 1) handlers.onFirst();
    else {
      try {
        handlers.onSecond();
      } finally {
        process.exit(ExitCode.Stopped);
      }
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    remove() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
