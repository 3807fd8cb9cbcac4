import { describe, expect, it } from 'vitest';
import { fdDestination } from '../../src/log-destination.js';

function failure(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(code), { code });
}

describe('the log destination', () => {
  it('writes every byte of a line, going on after a partial write and after a full pipe (EAGAIN)', () => {
    const written: string[] = [];
    const answers: Array<number | NodeJS.ErrnoException> = [3, failure('EAGAIN')];
    const destination = fdDestination(2, ((_fd: number, buffer: Buffer) => {
      const next = answers.shift() ?? buffer.length;
      if (typeof next !== 'number') throw next;
      written.push(buffer.subarray(0, next).toString());
      return next;
    }) as never);
    destination.write('hello\n');
    expect(written.join('')).toBe('hello\n');
    expect(destination.closed).toBe(false);
  });

  it('stops writing, without throwing, once the terminal, the reader or the descriptor is gone (EIO, EPIPE, EBADF)', () => {
    for (const code of ['EIO', 'EPIPE', 'EBADF']) {
      let calls = 0;
      const destination = fdDestination(2, (() => {
        calls += 1;
        throw failure(code);
      }) as never);
      destination.write('lost\n');
      destination.write('lost too\n');
      expect([code, destination.closed, calls]).toEqual([code, true, 1]);
    }
  });

  it('throws any other failure', () => {
    const destination = fdDestination(2, (() => {
      throw failure('ENOSPC');
    }) as never);
    expect(() => destination.write('x\n')).toThrow('ENOSPC');
  });
});
