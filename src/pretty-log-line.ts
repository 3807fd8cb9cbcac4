/**
 * One pino JSON line as one readable terminal line: `time LEVEL message key=value …`. Hand-written
 * instead of pino-pretty, whose transport starts a worker thread and loads its own dependencies
 * (measured: ~130 ms and ~13 MB more per process start). It reads the line after the logger's
 * redaction hook, so it shows nothing the JSON line would not.
 */
import { inertLine } from './inert-text.js';

const LEVELS: Record<number, { name: string; color: string }> = {
  10: { name: 'TRACE', color: '90' },
  20: { name: 'DEBUG', color: '34' },
  30: { name: 'INFO ', color: '32' },
  40: { name: 'WARN ', color: '33' },
  50: { name: 'ERROR', color: '31' },
  60: { name: 'FATAL', color: '35' },
};

/** Fields every line carries, or that the message already says: left out of the pretty line. */
const HIDDEN = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'event']);
/** Longest rendering of one field value; objects and lists are cut, not wrapped. */
const MAX_VALUE_CHARS = 120;
/** Shortest string value that a later field repeating it names instead of printing again. */
const MIN_NAMED_REPEAT = 16;

export interface PrettyOptions {
  /** ANSI colors for level, time and keys. @default false */
  colors?: boolean;
}

/** Formats one JSON log line (with or without its newline); a line that is not JSON passes as is. */
export function prettyLogLine(jsonLine: string, options: PrettyOptions = {}): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(jsonLine) as Record<string, unknown>;
  } catch {
    return jsonLine.endsWith('\n') ? jsonLine : `${jsonLine}\n`;
  }
  const paint = (code: string, text: string) => (options.colors ? `\u001b[${code}m${text}\u001b[0m` : text);
  const level = LEVELS[Number(entry.level)] ?? { name: String(entry.level).toUpperCase().padEnd(5), color: '0' };
  const parts = [paint('2', clock(entry.time)), paint(level.color, level.name)];
  if (typeof entry.msg === 'string' && entry.msg !== '') parts.push(inertLine(oneLine(entry.msg)));
  // A long id shown once is named, not repeated (an export's runId is its jobId: ~90 characters).
  const shown = new Map<string, string>();
  for (const [key, value] of Object.entries(entry)) {
    if (HIDDEN.has(key) || value === undefined) continue;
    const earlier = typeof value === 'string' && value.length >= MIN_NAMED_REPEAT ? shown.get(value) : undefined;
    parts.push(`${paint('2', `${key}=`)}${earlier ? `(same as ${earlier})` : inertLine(render(key, value))}`);
    if (typeof value === 'string' && !earlier) shown.set(value, key);
  }
  return `${parts.join(' ')}\n`;
}

function clock(time: unknown): string {
  const date = new Date(typeof time === 'number' || typeof time === 'string' ? time : Date.now());
  if (Number.isNaN(date.getTime())) return '--:--:--.---';
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

function render(key: string, value: unknown): string {
  // An error says what happened in its message; the stack is in the JSON lines (LOG_FORMAT=json).
  if ((key === 'err' || key === 'error') && value !== null && typeof value === 'object' && 'message' in value) {
    const { type, message } = value as { type?: unknown; message?: unknown };
    const named = typeof type === 'string' && type !== 'Error' ? `${type}: ${String(message)}` : String(message);
    return cut(JSON.stringify(oneLine(named)));
  }
  if (typeof value === 'string') return cut(/^[\w.:/@+-]+$/.test(value) ? value : JSON.stringify(value));
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return cut(JSON.stringify(value) ?? String(value));
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ⏎ ');
}

function cut(text: string): string {
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 1)}…` : text;
}
