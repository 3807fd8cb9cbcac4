/**
 * `mintpipe worker --queues prompts` as a child process, as in production, for the tests that kill
 * one mid-batch; and the settings those tests run it with (fast polls, a short lock and send guard).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { TEST_API_KEY } from './prompts-stack.js';
import { fileTempDir } from './test-env.js';

const started: ChildProcess[] = [];

/**
 * Starts a prompts worker on `env`; its stderr is printed if it exits other than by SIGKILL or with 0.
 * killPromptWorkers() (in the file's afterAll) kills the ones still running.
 */
export function startPromptWorker(env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['bin/mintpipe.js', 'worker', '--queues', 'prompts'], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  child.on('exit', (code, signal) => {
    if (code !== 0 && signal !== 'SIGKILL') process.stderr.write(`worker exited ${code ?? signal}: ${stderr}\n`);
  });
  started.push(child);
  return child;
}

export function killPromptWorkers(): void {
  for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
}

/** Settings of a worker that a test kills: the test Redis, a prefix and data dir of its own (named after `tag`). */
export function crashTestEnv(emulatorUrl: string, tag: string) {
  return {
    REDIS_URL: process.env.REDIS_URL!,
    MINTLIFY_API_URL: emulatorUrl,
    MINTLIFY_API_KEY: TEST_API_KEY,
    MINTPIPE_QUEUE_PREFIX: `${tag}${randomBytes(4).toString('hex')}`,
    MINTPIPE_DATA_DIR: fileTempDir(tag),
    MINTPIPE_MESSAGE_RATE: 'off',
    MINTPIPE_POLL_INITIAL: '50ms',
    MINTPIPE_POLL_SETTLE: '300ms',
    MINTPIPE_POLL_MAX: '200ms',
    MINTPIPE_PROMPT_CONCURRENCY: '8',
    MINTPIPE_LOCK_DURATION: '1s',
    // A send in progress is guarded by its job for the API timeout and 5 s: keep that short here.
    MINTPIPE_HTTP_TIMEOUT: '2s',
    MINTPIPE_STALLED_INTERVAL: '500ms',
    LOG_LEVEL: 'warn',
  };
}
