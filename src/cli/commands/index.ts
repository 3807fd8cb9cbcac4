/** Every CLI command, one file each; each file exports `register(program)`. */
import type { Command } from 'commander';

export type RegisterCommand = (program: Command) => void;

export const commands: RegisterCommand[] = [];
