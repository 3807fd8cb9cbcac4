/**
 * Progress of several tasks on stderr: a bar per task on a TTY (cli-progress), redrawn at every
 * look. Anywhere else (a log file, CI, a pipe) a line is a record someone keeps, so a task gets a
 * line only when its state changes (started, waiting begins, done, failed) and the counts that move
 * in between (rows, seconds left) go into a compact summary at most every `summaryEveryMs`: a
 * countdown per window per second filled megabytes of logs.
 */
import cliProgress from 'cli-progress';
import { inertLine } from '../inert-text.js';

export interface TaskProgress {
  /** 0..1, or undefined when the total is unknown. */
  fraction?: number;
  /** Short state with its counts, e.g. `running 1,250 rows` or `waiting for the budget 12s`. */
  detail: string;
  /**
   * The state alone, without the counts that move (`running`, `waiting for the budget`): off a
   * TTY a line is printed when it changes. @default the detail
   */
  state?: string;
  done: boolean;
}

export interface ProgressDisplayOptions {
  /** Where progress goes. @default process.stderr */
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Bars (true) or lines. @default the stream is a TTY and CI is unset */
  tty?: boolean;
  /** Off a TTY, the least time between two summaries. @default 30000 */
  summaryEveryMs?: number;
  /** The clock, for tests. @default Date.now */
  now?: () => number;
}

interface TaskState {
  state: string;
  line: string;
  done: boolean;
}

export class ProgressDisplay {
  private readonly stream: NodeJS.WritableStream;
  private readonly multibar: cliProgress.MultiBar | undefined;
  private readonly bars = new Map<string, cliProgress.SingleBar>();
  private readonly tasks = new Map<string, TaskState>();
  private readonly summaryEveryMs: number;
  private readonly now: () => number;
  private lastPrintAt: number;
  /** Something moved since the last line printed. */
  private moved = false;

  constructor(options: ProgressDisplayOptions = {}) {
    const stream = options.stream ?? process.stderr;
    this.stream = stream;
    this.summaryEveryMs = options.summaryEveryMs ?? 30_000;
    this.now = options.now ?? Date.now;
    this.lastPrintAt = this.now();
    const tty = options.tty ?? (stream.isTTY === true && !process.env.CI);
    this.multibar = tty
      ? new cliProgress.MultiBar(
          { stream: stream as NodeJS.WriteStream, format: ' {label} |{bar}| {detail}', hideCursor: true, clearOnComplete: false, barsize: 24, autopadding: true },
          cliProgress.Presets.shades_classic,
        )
      : undefined;
  }

  update(rawLabel: string, rawProgress: TaskProgress): void {
    // Labels and details carry upstream text (a failed window's reason): shown inert.
    const label = inertLine(rawLabel);
    const detail = inertLine(rawProgress.detail);
    if (this.multibar) {
      const value = Math.round((rawProgress.done ? 1 : (rawProgress.fraction ?? 0)) * 1000);
      let bar = this.bars.get(label);
      if (!bar) {
        bar = this.multibar.create(1000, value, { label, detail });
        this.bars.set(label, bar);
      }
      bar.update(value, { label, detail });
      return;
    }
    const line = `${label}: ${detail}`;
    const state = inertLine(rawProgress.state ?? rawProgress.detail);
    const before = this.tasks.get(label);
    this.tasks.set(label, { state, line, done: rawProgress.done });
    if (before?.line === line) return;
    if (before === undefined || before.state !== state || rawProgress.done !== before.done) this.print(line);
    else this.moved = true;
    this.maybeSummarize();
  }

  stop(): void {
    this.multibar?.stop();
  }

  private print(line: string): void {
    this.stream.write(`${line}\n`);
    this.lastPrintAt = this.now();
  }

  /** Off a TTY: what moved without a state change, once `summaryEveryMs` passed without a line. */
  private maybeSummarize(): void {
    if (!this.moved || this.now() - this.lastPrintAt < this.summaryEveryMs) return;
    this.moved = false;
    this.print(this.summary());
  }

  /** One task: its latest line. Several: how many are done, and how many are in each state. */
  private summary(): string {
    const tasks = [...this.tasks.values()];
    if (tasks.length === 1) return tasks[0]!.line;
    const counts = new Map<string, number>();
    for (const task of tasks) if (!task.done) counts.set(task.state, (counts.get(task.state) ?? 0) + 1);
    const states = [...counts].map(([state, count]) => `${count} ${state}`);
    return `progress: ${tasks.filter((t) => t.done).length} of ${tasks.length} done${states.length ? `, ${states.join(', ')}` : ''}`;
  }
}
