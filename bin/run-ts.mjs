#!/usr/bin/env node
// Runs a TypeScript entry file (benchmarks, test helpers) with tsx's loader.
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
const { register } = await import('tsx/esm/api');
register();
const [file, ...rest] = process.argv.slice(2);
process.argv = [process.argv[0], resolve(file), ...rest];
await import(pathToFileURL(resolve(file)).href);
