/**
 * The shape of the prompt engine, read from its source: one function posts to the agent API, one
 * function calls the send step, and the engine's modules import each other without a cycle.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** Each call of `pattern` in src/ (the API client and the emulator excluded), as `file:enclosing function`. */
function callers(pattern: RegExp): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const path = relative(SRC, file);
    if (path.startsWith('api/') || path.startsWith('emulator/')) continue;
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(new RegExp(pattern.source, 'g'))) {
      const before = text.slice(0, match.index);
      // Its definition, or a mention in a comment, is no call.
      const line = before.slice(before.lastIndexOf('\n') + 1);
      if (/function\s+$/.test(line) || /^\s*(?:\*|\/\/)/.test(line)) continue;
      const functions = [...before.matchAll(/(?:function|async)\s+(\w+)\s*\(/g)];
      const name = functions.at(-1)?.[1] ?? '(top level)';
      found.push(`${path}:${name}`);
    }
  }
  return found;
}

/** Value imports (not `import type`) between files of src/prompts. */
function promptImports(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const dir = join(SRC, 'prompts');
  for (const file of sourceFiles(dir)) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/^import (?!type )[^;]*? from '\.\/([\w-]+)\.js';/gms)].map((m) => `${m[1]}.ts`);
    graph.set(relative(dir, file), targets);
  }
  return graph;
}

function cycles(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  const walk = (node: string, path: string[]): void => {
    if (path.includes(node)) {
      if (node === path[0]) found.push([...path, node].join(' → '));
      return;
    }
    for (const next of graph.get(node) ?? []) walk(next, [...path, node]);
  };
  for (const start of graph.keys()) walk(start, []);
  return found;
}

describe('the prompt engine', () => {
  it('posts to the agent API from one function: the send step’s post', () => {
    expect(callers(/\.(?:sendMessage|createAgentJob)\(/)).toEqual(['prompts/send-prompt.ts:post', 'prompts/send-prompt.ts:post']);
  });

  it('starts a send from one place, the runner of a prompt’s step, whoever runs it', () => {
    expect(callers(/\bsendStep\(/)).toEqual(['prompts/prompt-step.ts:advance']);
  });

  it('has no import cycle between its modules', () => {
    expect(cycles(promptImports())).toEqual([]);
  });
});
