/**
 * Preload (`node --import ./test/support/module-trace.mjs …`) that writes, when the process exits,
 * every module it loaded to the file named by MODULE_TRACE_OUT: ES modules as the loader saw them
 * (a hook on its thread reports each URL), CommonJS ones from require's cache, and the modules of
 * the CLI bundle (dist/cli/main.cjs, one file) that ran, which the bundle lists itself when
 * `globalThis.__mintpipeModuleTrace` is an array (bin/build.mjs), as `bundle:/<path in the bundle>`.
 * Plain JavaScript, so it runs before any TypeScript loader.
 */
import { createRequire, register } from 'node:module';
import { writeFileSync } from 'node:fs';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';

const out = process.env.MODULE_TRACE_OUT;
if (!out) throw new Error('module-trace: set MODULE_TRACE_OUT to the file to write');
const loaded = new Set();
globalThis.__mintpipeModuleTrace = [];
const { port1, port2 } = new MessageChannel();
port1.on('message', (url) => loaded.add(url));
port1.unref();
const hooks = `let port;
export function initialize(data) { port = data.port; }
export async function load(url, context, next) { port.postMessage(url); return next(url, context); }`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: { port: port2 }, transferList: [port2] });

process.on('exit', () => {
  // Reports still in flight when the process ends.
  for (let message = receiveMessageOnPort(port1); message; message = receiveMessageOnPort(port1)) loaded.add(message.message);
  const required = Object.keys(createRequire(import.meta.url).cache).map((file) => `file://${file}`);
  const bundled = globalThis.__mintpipeModuleTrace.map((path) => `bundle:/${path}`);
  writeFileSync(out, JSON.stringify([...loaded, ...required, ...bundled]));
});
