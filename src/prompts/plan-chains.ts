/**
 * What each row of a prompt file does, decided for the whole file: a row naming a `jobId` is a
 * message to that job; a row without one starts a new agent job (a create, which cannot be undone:
 * only with `allowCreate`). Rows sharing a `chain` key (scoped to the file) run in input order on
 * one job: the chain's first row creates it or names it, later rows are follow-ups to it and must
 * name no job of their own, with the first row's `projectId`.
 *
 * A refused row of a chain also refuses the chain's rows after it: they would otherwise run out of
 * the order the file gives (rows before it still go). Good rows of other chains are unaffected.
 */
import type { LineProblem, PromptInput } from './prompt-input.js';

export type PromptKind = 'create' | 'message';

export type PlannedPrompt<T extends PromptInput> = T & {
  kind: PromptKind;
  /** Index (in `prompts`) of the first row of this row's chain; itself for a first row, and for a row without chain. */
  head: number;
};

export interface ChainPlan<T extends PromptInput> {
  prompts: Array<PlannedPrompt<T>>;
  /** Rows refused by the plan, by index in the input, in input order. */
  problems: Array<{ index: number; reason: string }>;
}

export interface PlanOptions {
  /** Rows without `jobId` may create agent jobs. @default false */
  allowCreate?: boolean;
  /** Rows already refused (with their chain when known): later rows of those chains are refused too. @default [] */
  refused?: readonly LineProblem[];
  /** How a row is named in a problem. @default `row N` (1-based) */
  label?: (index: number) => string;
}

interface ChainState {
  /** Input index of the first row. */
  first: number;
  /** Index of the first row in `prompts`; undefined when it was refused. */
  head: number | undefined;
  projectId: string;
  /** Set once a row of the chain was refused: every later row is refused with this reason. */
  brokenBy?: string;
}

const NEEDS_CREATE = 'jobId: missing (a row without a jobId starts a new agent job, which cannot be undone: pass --allow-create)';

export function planChains<T extends PromptInput & { line?: number }>(rows: readonly T[], options: PlanOptions = {}): ChainPlan<T> {
  const label = options.label ?? ((index: number) => (rows[index]?.line === undefined ? `row ${index + 1}` : `line ${rows[index]!.line}`));
  const prompts: Array<PlannedPrompt<T>> = [];
  const problems: Array<{ index: number; reason: string }> = [];
  const chains = new Map<string, ChainState>();
  // The first refused line of each chain: rows after it cannot keep the file's order.
  const firstRefused = new Map<string, number>();
  for (const problem of options.refused ?? []) {
    if (problem.chain !== undefined) firstRefused.set(problem.chain, Math.min(problem.line, firstRefused.get(problem.chain) ?? Infinity));
  }

  rows.forEach((row, index) => {
    const refuse = (reason: string) => problems.push({ index, reason });
    const accept = (kind: PromptKind, head: number) => prompts.push({ ...row, kind, head });
    if (row.chain === undefined) {
      if (row.jobId !== undefined) accept('message', prompts.length);
      else if (options.allowCreate) accept('create', prompts.length);
      else refuse(NEEDS_CREATE);
      return;
    }
    const name = JSON.stringify(row.chain);
    const refusedAt = firstRefused.get(row.chain);
    let chain = chains.get(row.chain);
    if (!chain && refusedAt !== undefined && row.line !== undefined && row.line > refusedAt) {
      chain = { first: index, head: undefined, projectId: row.projectId, brokenBy: `chain ${name}: not sent, because line ${refusedAt} of the chain was refused` };
      chains.set(row.chain, chain);
    }
    if (chain?.brokenBy) return refuse(chain.brokenBy);
    if (!chain) {
      chain = { first: index, head: undefined, projectId: row.projectId };
      chains.set(row.chain, chain);
      if (row.jobId === undefined && !options.allowCreate) {
        chain.brokenBy = `chain ${name}: not sent, because its first row (${label(index)}) was refused`;
        return refuse(NEEDS_CREATE);
      }
      chain.head = prompts.length;
      return accept(row.jobId === undefined ? 'create' : 'message', prompts.length);
    }
    if (refusedAt !== undefined && row.line !== undefined && row.line > refusedAt) {
      chain.brokenBy = `chain ${name}: not sent, because line ${refusedAt} of the chain was refused`;
      return refuse(chain.brokenBy);
    }
    const problem =
      row.projectId !== chain.projectId
        ? `chain ${name}: projectId "${row.projectId}" differs from the chain's first row (${label(chain.first)}, "${chain.projectId}")`
        : row.jobId !== undefined
          ? `chain ${name}: a follow-up must not name a jobId (got "${row.jobId}"): the chain's first row, ${label(chain.first)}, starts or names its agent job`
          : undefined;
    if (problem) {
      chain.brokenBy = `chain ${name}: not sent, because ${label(index)} of the chain was refused`;
      return refuse(problem);
    }
    accept('message', chain.head!);
  });
  return { prompts, problems };
}
