/** Three workers on one Redis and one ClickHouse server over HTTP (test/support/scale-out-scenario.ts). */
import { defineScaleOutTests } from '../support/scale-out-scenario.js';

defineScaleOutTests('one Redis', async () => process.env.REDIS_URL!);
