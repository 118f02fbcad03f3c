/**
 * Ctrl-C semantics of a running job (issue: "Interrupts"): the first SIGINT or SIGTERM stops dispatching and lets the
 * requests in flight finish for a bounded time, then the output is written and the job exits 3; a second one exits at
 * once after the journal — whose lines are already written one by one — is flushed to disk. The handlers stay
 * installed until the job has printed its summary: a second Ctrl-C while the output or the report is written quits
 * at once too, never by the default SIGINT death (exit 130, no summary, the lock left behind).
 */
import { ExitCode } from '../errors.js';

export interface InterruptHandlers {
  onFirst(): void;
  /**
   * Runs synchronously before the process exits.
   * @returns the exit code (3 when it throws).
   */
  onSecond(): number;
}

/** Installs the handlers; `remove()` restores the default behaviour. */
export function installInterrupts(handlers: InterruptHandlers): { remove(): void } {
  let count = 0;
  const onSignal = () => {
    count++;
    if (count === 1) handlers.onFirst();
    else {
      let code: number = ExitCode.Stopped;
      try {
        code = handlers.onSecond();
      } finally {
        process.exit(code);
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
