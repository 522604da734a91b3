// Where the service's log lines go: stdout, written asynchronously, and never a reason to stay alive.
import { boundedWait } from '@catalog-search/core';
import sonicBoom from 'sonic-boom';

// A CommonJS module whose types declare an ES default export: the class is a property of it.
const { SonicBoom } = sonicBoom;

/** Lines waiting for a slow stdout reader beyond this are dropped, not kept in memory. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

interface LogDestination {
  write(line: string): void;
  /** Writes what is buffered, then stops; resolves after `timeoutMs` at the latest, written or not. */
  close(timeoutMs: number): Promise<void>;
}

/**
 * Not pino's default destination: that one flushes at process exit with a synchronous loop that retries a
 * failed write forever, so a stdout whose reader had gone (`npm start | head -3`) kept the process alive
 * after SIGTERM. Here a failed write (EPIPE, EBADF, …) stops logging for good, nothing is flushed at
 * exit, and server.ts closes the destination within the shutdown's time limit.
 */
export function stdoutLogDestination(fd = 1): LogDestination {
  const sonic = new SonicBoom({ fd, sync: false, maxLength: MAX_BUFFERED_BYTES });
  let open = true;
  // The reader has gone: later lines would fail the same way.
  sonic.on('error', () => {
    open = false;
  });
  return {
    write(line) {
      if (open) sonic.write(line);
    },
    close(timeoutMs) {
      if (!open) return Promise.resolve();
      open = false;
      const closed = new Promise<void>((resolve) => {
        sonic.once('close', resolve);
        sonic.once('error', () => resolve());
      });
      sonic.end();
      // Core's one bounded wait: a reader that never drains the pipe must not hold the shutdown.
      return boundedWait(closed, { ms: timeoutMs }).then(() => undefined);
    },
  };
}
