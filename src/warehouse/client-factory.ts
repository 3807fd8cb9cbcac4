/**
 * The ClickHouse client and its log routing, behind one module of ours: the factory loads it on
 * use (a read-only query on the embedded engine needs neither). A module of ours rather than
 * `import('@clickhouse/client')` itself, because the bundled CLI (bin/build.mjs) gives a CommonJS
 * package loaded by dynamic import only its default export.
 */
export { createClient } from '@clickhouse/client';
export { clientLogOptions } from './client-log.js';
