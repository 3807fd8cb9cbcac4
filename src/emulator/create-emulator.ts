/**
 * A spec-faithful local Mintlify API (an analytics operation per dataset of datasets/ and the agent ones) on fastify, with
 * deterministic data, rate limits and fault injection. `createEmulator` builds it without
 * listening (use `app.inject` or `startEmulator`).
 *
 * Each request goes: latency → auth (401) → one fault, scripted first, else random (faults.ts
 * says which strike before or after processing) → rate limit (429, counted requests only) →
 * validation (400) → processing → answer. See serve-request.ts.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { AgentJobStore } from './agent-job-store.js';
import { errorAnswer, type EmulatorContext } from './emulator-context.js';
import { createEmulatorControl, type EmulatorControl } from './emulator-control.js';
import { EmulatorCounters } from './emulator-counters.js';
import { resolveEmulatorOptions, type EmulatorOptions, type ResolvedEmulatorOptions } from './emulator-options.js';
import { FaultScript, RandomFaults } from './faults.js';
import { FixedWindowLimiter } from './fixed-window-limiter.js';
import type { ReceivedCreate, ReceivedMessage } from './received-message.js';
import { registerAgentCreateRoute } from './routes/agent-create-route.js';
import { registerAgentJobRoute } from './routes/agent-job-route.js';
import { registerAgentMessageRoute } from './routes/agent-message-route.js';
import { registerAnalyticsRoutes } from './routes/analytics-route.js';
import { createRandom, hashNumbers } from './seeded-random.js';
import { Sleeper } from './sleeper.js';
import { WindowStore } from './window-store.js';

export interface Emulator {
  /** The fastify app (not listening). */
  app: FastifyInstance;
  /** Resolved options; `control` changes faults and latency in here. */
  options: ResolvedEmulatorOptions;
  /** Every message accepted, in order of arrival (live array). */
  messages: ReceivedMessage[];
  /** Every agent job created, in order of arrival (live array). */
  creates: ReceivedCreate[];
  /** Request, status and fault counts (live object). */
  counters: EmulatorCounters;
  control: EmulatorControl;
  /** Windows computed so far (cache misses). */
  readonly windowsComputed: number;
  /** Stops serving: pending delays end at once and open connections are closed. */
  close(): Promise<void>;
}

/** Salt so fault draws do not correlate with data drawn from the same seed. */
const FAULT_SALT = 0xfa017;

export function createEmulator(options: EmulatorOptions = {}): Emulator {
  const resolved = resolveEmulatorOptions(options);
  const messageLimiter = resolved.messageRate && new FixedWindowLimiter(resolved.messageRate, resolved.now);
  const ctx: EmulatorContext = {
    options: resolved,
    counters: new EmulatorCounters(),
    messages: [],
    creates: [],
    windows: new WindowStore(resolved.windowCacheSize, resolved.windowCacheRows),
    jobs: new AgentJobStore(resolved.seed, resolved.jobsPerProject, resolved.agentTimeMs, resolved.now, resolved.agentTimeJitter, resolved.pickupDelayMs),
    script: new FaultScript(),
    randomFaults: new RandomFaults(resolved.faults, createRandom(hashNumbers(resolved.seed, FAULT_SALT))),
    analyticsLimiter: resolved.analyticsRate && new FixedWindowLimiter(resolved.analyticsRate, resolved.now),
    messageLimiter,
    createLimiter:
      resolved.createBudget === 'shared' ? messageLimiter : resolved.messageRate && new FixedWindowLimiter(resolved.messageRate, resolved.now),
    sleeper: new Sleeper(),
  };

  // Connections are closed on close() even when busy, so a test or a demo never hangs on shutdown.
  const app = Fastify({ logger: resolved.logger, forceCloseConnections: true });
  // Bodies arrive as text: the message route answers broken JSON with the API's 400 shape, not fastify's.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  app.setNotFoundHandler((_request, reply) => {
    reply.code(404).send(errorAnswer(404, 'Not found').body);
  });
  app.setErrorHandler((error: { statusCode?: number }, _request, reply) => {
    const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    reply.code(status).send(errorAnswer(status, status === 500 ? 'Internal server error' : 'Bad request').body);
  });
  registerAnalyticsRoutes(app, ctx);
  registerAgentMessageRoute(app, ctx);
  registerAgentJobRoute(app, ctx);
  registerAgentCreateRoute(app, ctx);

  return {
    app,
    options: resolved,
    messages: ctx.messages,
    creates: ctx.creates,
    counters: ctx.counters,
    control: createEmulatorControl(ctx),
    get windowsComputed() {
      return ctx.windows.computed;
    },
    async close() {
      ctx.sleeper.wakeAll();
      await app.close();
    },
  };
}
