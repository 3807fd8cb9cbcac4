/**
 * The path of every request through the emulator: latency, auth, a fault drawn (scripted first,
 * then random), faults that strike before processing, the route's own processing, faults that
 * strike after it, and the answer. Kept in one place so every route fails the same ways.
 */
import { STATUS_CODES } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorAnswer, rateLimitedAnswer, type Answer, type EmulatorContext } from './emulator-context.js';
import { faultTiming, type Fault, type RouteName } from './faults.js';

const BEARER_KEY = /^Bearer (mint_\S+)$/;

export async function serveRequest(
  ctx: EmulatorContext,
  route: RouteName,
  request: FastifyRequest,
  reply: FastifyReply,
  process: () => Answer,
): Promise<void> {
  ctx.counters.routes[route].requests++;
  if (ctx.options.latencyMs > 0) await ctx.sleeper.sleep(ctx.options.latencyMs);
  if (!authorized(request.headers.authorization, ctx.options.apiKey)) {
    // Never echo the header back: it may hold a real key.
    return send(ctx, route, reply, errorAnswer(401, 'Missing or invalid API key: send Authorization: Bearer mint_…'));
  }
  const fault = ctx.script.next(route) ?? ctx.randomFaults.draw(route);
  if (fault) ctx.counters.faults[fault.kind]++;
  if (fault && faultTiming(fault) === 'before') {
    if (fault.kind !== 'delay') return strike(ctx, route, request, reply, fault, undefined);
    await ctx.sleeper.sleep(fault.ms);
  }
  const answer = process();
  if (fault && faultTiming(fault) === 'after') {
    if (fault.kind !== 'delay') return strike(ctx, route, request, reply, fault, answer);
    await ctx.sleeper.sleep(fault.ms);
  }
  if (answer.status >= 200 && answer.status < 300) ctx.counters.routes[route].served++;
  send(ctx, route, reply, answer);
}

function authorized(header: string | undefined, expectedKey: string | undefined): boolean {
  const match = header ? BEARER_KEY.exec(header) : null;
  return match !== null && (expectedKey === undefined || match[1] === expectedKey);
}

/** Applies a fault that ends the request; `answer` is the processed result for faults after processing. */
function strike(
  ctx: EmulatorContext,
  route: RouteName,
  request: FastifyRequest,
  reply: FastifyReply,
  fault: Exclude<Fault, { kind: 'delay' }>,
  answer: Answer | undefined,
): void {
  switch (fault.kind) {
    case 'status': {
      const headers = fault.retryAfterSeconds === undefined ? undefined : { 'retry-after': String(fault.retryAfterSeconds) };
      return send(ctx, route, reply, errorAnswer(fault.status, STATUS_CODES[fault.status] ?? 'Error', undefined, headers));
    }
    case 'rateLimit':
      return send(ctx, route, reply, rateLimitedAnswer(fault.retryAfter ?? fault.retryAfterSeconds ?? ctx.options.retryAfterSeconds));
    case 'reset':
      ctx.counters.routes[route].resets++;
      reply.hijack();
      request.raw.socket.destroy();
      return;
    case 'malformed': {
      const text = JSON.stringify(answer?.body ?? {});
      // Cut mid-document: never valid JSON, yet it starts like the real answer.
      return sendRaw(ctx, route, reply, answer?.status ?? 200, text.slice(0, Math.max(1, Math.floor(text.length / 2))));
    }
    case 'body': {
      const text = typeof fault.body === 'string' ? fault.body : (JSON.stringify(fault.body) ?? '');
      return sendRaw(ctx, route, reply, fault.status ?? 200, text);
    }
  }
}

function send(ctx: EmulatorContext, route: RouteName, reply: FastifyReply, answer: Answer): void {
  ctx.counters.countStatus(route, answer.status);
  reply.code(answer.status);
  if (answer.headers) reply.headers(answer.headers);
  reply.send(answer.body);
}

function sendRaw(ctx: EmulatorContext, route: RouteName, reply: FastifyReply, status: number, text: string): void {
  ctx.counters.countStatus(route, status);
  reply.code(status).header('content-type', 'application/json; charset=utf-8').send(text);
}
