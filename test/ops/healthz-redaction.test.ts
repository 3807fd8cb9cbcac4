/**
 * `/healthz` answers without a token and quotes the failed probe's error: that line must not carry
 * a secret — the API key (as configured, or anything shaped like one) or another registered secret
 * such as a warehouse password that a connection error quotes in its URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { startDashboard, type Dashboard } from '../../src/ops/dashboard-server.js';
import type { OpsSource } from '../../src/ops/ops-source.js';
import { registerSecret } from '../../src/secrets/registered-secrets.js';
import { openDashboardStack, type DashboardStack } from '../support/dashboard-stack.js';
import { TEST_API_KEY } from '../support/test-env.js';

const PASSWORD = 'wh-pass-5f2c9e71d0';
let stack: DashboardStack;
let dashboard: Dashboard | undefined;

beforeAll(async () => {
  registerSecret(PASSWORD);
  stack = await openDashboardStack();
});

afterAll(async () => {
  await dashboard?.close();
  await stack?.close();
});

describe('/healthz when a probe fails with a secret in its error', () => {
  it('answers 503 naming the failed warehouse, with the key and the password redacted', async () => {
    const source: OpsSource = {
      ...stack.source,
      warehouse: () => Promise.reject(new Error(`cannot reach http://default:${PASSWORD}@clickhouse:8123 (sent Authorization: Bearer ${TEST_API_KEY})`)),
    };
    dashboard = await startDashboard({ runtime: source, host: '127.0.0.1', port: 0, logger: createLogger({ level: 'silent', pretty: false }) });

    const response = await fetch(`${dashboard.url}/healthz`);
    const text = await response.text();

    expect(response.status).toBe(503);
    expect(JSON.parse(text)).toMatchObject({ redis: 'ok', warehouse: 'failed', errors: { warehouse: expect.stringMatching(/cannot reach .*\[REDACTED\]/) } });
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain(TEST_API_KEY);
    expect(text).not.toContain(TEST_API_KEY.slice('mint_'.length));
  });
});
