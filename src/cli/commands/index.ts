/**
 * Every CLI command, one file each; each file exports `register(program)`. Registering loads every
 * file, so at their top they import only commander types and small modules: what an action needs
 * (context, config, queues, engine, servers) it imports in the action. `--help` and usage errors
 * then load commander alone (test/cli/cli-module-loading.test.ts).
 */
import type { Command } from 'commander';
import { register as dashboardCommand } from './dashboard.js';
import { register as emulatorCommand } from './emulator.js';
import { register as exportCommand } from './export.js';
import { register as planCommand } from './plan.js';
import { register as promptsCommand } from './prompts.js';
import { register as queryCommand } from './query.js';
import { register as startCommand } from './start.js';
import { register as statusCommand } from './status.js';
import { register as triageCommand } from './triage.js';
import { register as workerCommand } from './worker.js';

export type RegisterCommand = (program: Command) => void;

export const commands: RegisterCommand[] = [startCommand, exportCommand, planCommand, promptsCommand, workerCommand, queryCommand, statusCommand, emulatorCommand, dashboardCommand, triageCommand];
