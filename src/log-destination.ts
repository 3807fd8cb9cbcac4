/**
 * Where log lines go: a file descriptor (stderr), each line written at once, synchronously, so none
 * is lost when the process exits. Written here instead of pino.destination() (sonic-boom), whose
 * flush at exit retries a failed write every 100 ms for as long as it keeps failing: after the
 * terminal of a `start` closed (SIGHUP), every write fails with EIO, and the process never exited
 * (and never stopped its private redis-server). Here a descriptor that stops taking lines (EIO: the
 * terminal is gone; EPIPE: the reader is; EBADF) ends the logging, never the process. A full pipe
 * (EAGAIN, a non-blocking descriptor) is waited for, as a blocking write would.
 */
import { writeSync } from 'node:fs';

export interface LineDestination {
  write(line: string): void;
  /** True once the descriptor stopped taking lines: later lines are dropped. */
  readonly closed: boolean;
}

/** Errors after which nothing more can be written to the descriptor. */
const GONE = new Set(['EIO', 'EPIPE', 'EBADF', 'ENXIO', 'ECONNRESET']);
const FULL_PIPE_WAIT_MS = 5;

export function fdDestination(fd: number, write: typeof writeSync = writeSync): LineDestination {
  let closed = false;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  return {
    get closed() {
      return closed;
    },
    write(line: string) {
      if (closed) return;
      let rest = Buffer.from(line, 'utf8');
      while (rest.length > 0) {
        try {
          rest = rest.subarray(write(fd, rest));
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code ?? '';
          if (code === 'EAGAIN') {
            Atomics.wait(pause, 0, 0, FULL_PIPE_WAIT_MS);
            continue;
          }
          if (GONE.has(code)) {
            closed = true;
            return;
          }
          throw err;
        }
      }
    },
  };
}
