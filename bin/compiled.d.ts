/** Types of bin/compiled.js (plain JavaScript: the bin runs it before any TypeScript loader). */
export function cacheName(command: string | undefined): string;
export function runCompiled(entry: string, command: string | undefined): void;
