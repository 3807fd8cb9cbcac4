import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../config/config-error.js';
import { createLogger, parseLogFormat, registerSecret, resolveLogFormat } from '../../src/logger.js';
import { prettyLogLine } from '../../src/pretty-log-line.js';

const AT = new Date(2026, 9, 1, 14, 5, 9, 42).getTime();
const line = (fields: Record<string, unknown>) => JSON.stringify({ level: 30, time: AT, pid: 4242, hostname: 'box', msg: 'window complete', ...fields });

function collect(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

describe('pretty log lines', () => {
  it('read as time, level, message and the fields that matter, on one line', () => {
    const text = prettyLogLine(line({ event: 'window.complete', project: 'acme', window: '2026-10-01..2026-10-02', rows: 1234, ms: 56 }));
    expect(text).toBe('14:05:09.042 INFO  window complete project=acme window=2026-10-01..2026-10-02 rows=1234 ms=56\n');
  });

  it('leave out what every line carries (pid, hostname) and the event name the message already says', () => {
    const text = prettyLogLine(line({ event: 'window.complete' }));
    expect(text).not.toMatch(/4242|box|window\.complete/);
  });

  it('name each level', () => {
    const levels = [10, 20, 30, 40, 50, 60].map((level) => prettyLogLine(JSON.stringify({ level, time: AT, msg: 'm' })).split(' ')[1]);
    expect(levels).toEqual(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL']);
  });

  it('show an error by its type and message, never its stack', () => {
    const err = { type: 'ApiError', message: 'upstream said 503', stack: 'ApiError: upstream said 503\n    at send (api.ts:1:1)' };
    const text = prettyLogLine(line({ level: 50, err }));
    expect(text).toContain('err="ApiError: upstream said 503"');
    expect(text).not.toContain('at send');
    expect(text.split('\n')).toHaveLength(2);
  });

  it('stay one line when a message or value has line breaks, and quote values with spaces', () => {
    const text = prettyLogLine(line({ msg: 'first\nsecond', reason: 'data moved\nmid-run' }));
    expect(text.trimEnd().split('\n')).toHaveLength(1);
    expect(text).toContain('first ⏎ second');
    expect(text).toContain('reason="data moved\\nmid-run"');
  });

  it('name a long value a later field repeats instead of printing it twice', () => {
    const id = 'visitors:acme:2026-10-01:2026-10-02:manual:0123456789abcdef';
    const text = prettyLogLine(line({ jobId: id, runId: id, project: 'acme', dataset: 'acme' }));
    expect(text).toContain(`jobId=${id} runId=(same as jobId) project=acme dataset=acme`);
  });

  it('cut long objects instead of wrapping them', () => {
    const text = prettyLogLine(line({ queues: Array.from({ length: 100 }, (_, i) => `queue-${i}`) }));
    const value = /queues=(\S+)/.exec(text)?.[1] ?? '';
    expect(value.startsWith('["queue-0","queue-1"')).toBe(true);
    expect(value.endsWith('…')).toBe(true);
    expect(value.length).toBe(120);
  });

  it('color only when asked', () => {
    expect(prettyLogLine(line({}))).not.toContain('\u001b[');
    expect(prettyLogLine(line({}), { colors: true })).toContain('\u001b[32mINFO');
  });

  it('pass a line that is not JSON through unchanged', () => {
    expect(prettyLogLine('not json')).toBe('not json\n');
  });
});

describe('the log format', () => {
  it('is pretty for a person at a terminal and JSON lines when piped or under CI', () => {
    expect(resolveLogFormat({}, { isTTY: true })).toBe('pretty');
    expect(resolveLogFormat({}, { isTTY: false })).toBe('json');
    expect(resolveLogFormat({}, {})).toBe('json');
    expect(resolveLogFormat({ CI: 'true' }, { isTTY: true })).toBe('json');
  });

  it('is what LOG_FORMAT says, either way, in any case', () => {
    expect(resolveLogFormat({ LOG_FORMAT: 'json' }, { isTTY: true })).toBe('json');
    expect(resolveLogFormat({ LOG_FORMAT: 'pretty' }, { isTTY: false })).toBe('pretty');
    expect(resolveLogFormat({ LOG_FORMAT: ' Pretty ' }, { isTTY: false })).toBe('pretty');
    expect(parseLogFormat('')).toBeUndefined();
  });

  it('refuses any other LOG_FORMAT with a ConfigError naming it', () => {
    const refusal = (() => {
      try {
        parseLogFormat('yaml');
      } catch (err) {
        return err;
      }
    })();
    expect(refusal).toBeInstanceOf(ConfigError);
    expect((refusal as ConfigError).exitCode).toBe(2);
    expect((refusal as ConfigError).message).toBe('LOG_FORMAT: expected pretty or json, got "yaml"');
  });
});

describe('a pretty logger', () => {
  it('writes pretty lines, redacted like the JSON ones', () => {
    const key = 'mint_PrettyLoggerSecret0123456789';
    registerSecret(key);
    const out = collect();
    const logger = createLogger({ level: 'info', format: 'pretty', destination: out.stream });
    logger.info({ event: 'api.call', project: 'acme', detail: `sent with ${key}`, headers: { authorization: `Bearer ${key}` } }, `calling with ${key}`);
    const text = out.text();
    expect(text).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}calling with \[REDACTED\] project=acme detail="sent with \[REDACTED\]" headers=\{"authorization":"\[REDACTED\]"\}\n$/);
    expect(text).not.toContain('PrettyLoggerSecret');
  });

  it('and a JSON logger JSON lines', () => {
    const out = collect();
    createLogger({ level: 'info', format: 'json', destination: out.stream }).info({ event: 'x', rows: 3 }, 'done');
    expect(JSON.parse(out.text())).toMatchObject({ level: 30, event: 'x', rows: 3, msg: 'done' });
  });
});
