/** Three workers on a Redis Cluster of 3 masters and one ClickHouse server over HTTP (test/support/scale-out-scenario.ts). */
import { afterAll } from 'vitest';
import { startTestCluster, type TestCluster } from '../support/redis-cluster.js';
import { defineScaleOutTests } from '../support/scale-out-scenario.js';

let cluster: TestCluster | undefined;
afterAll(async () => {
  await cluster?.stop();
});

// What differs from one Redis (scale-out-workers.test.ts) is where the keys live: every script on its slot.
defineScaleOutTests('a Redis Cluster of 3 masters', async () => (cluster ??= await startTestCluster()).url);
