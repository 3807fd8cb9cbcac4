/** Types of bin/dist-freshness.js (plain JavaScript: the bin runs it before any TypeScript loader). */
export function compiledEntry(root: string): string;
export function staleReason(root: string): string | undefined;
