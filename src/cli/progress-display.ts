/**
 * Progress of several tasks on stderr: a bar per task on a TTY (cli-progress), plain lines
 * otherwise (one line when a task's state changes), so logs and CI output stay readable.
 */
import cliProgress from 'cli-progress';
import { inertLine } from '../inert-text.js';

export interface TaskProgress {
  /** 0..1, or undefined when the total is unknown. */
  fraction?: number;
  /** Short state, e.g. `running 1,250 rows` or `waiting for budget 12s`. */
  detail: string;
  done: boolean;
}

export class ProgressDisplay {
  private readonly tty: boolean;
  private readonly multibar: cliProgress.MultiBar | undefined;
  private readonly bars = new Map<string, cliProgress.SingleBar>();
  private readonly lastLine = new Map<string, string>();

  constructor(stream: NodeJS.WriteStream = process.stderr) {
    this.tty = stream.isTTY === true && !process.env.CI;
    this.multibar = this.tty
      ? new cliProgress.MultiBar(
          { stream, format: ' {label} |{bar}| {detail}', hideCursor: true, clearOnComplete: false, barsize: 24, autopadding: true },
          cliProgress.Presets.shades_classic,
        )
      : undefined;
  }

  update(rawLabel: string, rawProgress: TaskProgress): void {
    // Labels and details carry upstream text (a failed window's reason): shown inert.
    const label = inertLine(rawLabel);
    const progress = { ...rawProgress, detail: inertLine(rawProgress.detail) };
    const value = Math.round((progress.done ? 1 : (progress.fraction ?? 0)) * 1000);
    if (this.multibar) {
      let bar = this.bars.get(label);
      if (!bar) {
        bar = this.multibar.create(1000, value, { label, detail: progress.detail });
        this.bars.set(label, bar);
      }
      bar.update(value, { label, detail: progress.detail });
      return;
    }
    const line = `${label}: ${progress.detail}`;
    if (this.lastLine.get(label) !== line) {
      this.lastLine.set(label, line);
      process.stderr.write(`${line}\n`);
    }
  }

  stop(): void {
    this.multibar?.stop();
  }
}
