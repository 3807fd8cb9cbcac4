/**
 * `mintpipe prompts send|status|resend|cancel|recover`: submit a prompt file as a batch, follow
 * it, resend ambiguous prompts on request, cancel what was never sent, rebuild a batch Redis lost
 * from the ledger. Submitting and following need only Redis, so they work with workers running
 * elsewhere (the worker that starts a batch consults the ledger); `--wait` starts in-process
 * workers only when none are connected.
 *
 * Exit codes: 2 for bad usage or any bad line (the good lines are still enqueued); with --wait,
 * 1 when a prompt did not end delivered (rejected, timed_out, ambiguous, skipped, cancelled, or
 * held behind an ambiguous step) and when the batch's start failed for good (the message names
 * `recover`; `status` shows it and exits 0); 1 when Redis lost the batch (the message names `recover`);
 * 2 for a batch neither Redis nor the ledger knows (a mistyped id); else 0.
 */
import type { Command } from 'commander';
import { register as cancelCommand } from './prompts-cancel.js';
import { register as recoverCommand } from './prompts-recover.js';
import { register as resendCommand } from './prompts-resend.js';
import { register as sendCommand } from './prompts-send.js';
import { register as statusCommand } from './prompts-status.js';

/** The subcommands, in the order `prompts --help` lists them. */
const SUBCOMMANDS = [sendCommand, statusCommand, resendCommand, recoverCommand, cancelCommand];

export function register(program: Command): void {
  const prompts = program.command('prompts').description('queued batch prompting of agent jobs');
  for (const subcommand of SUBCOMMANDS) subcommand(prompts);
}
