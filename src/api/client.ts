/**
 * The Mintlify API client: three operations, each response validated, failures mapped to typed
 * errors, and one explicit retry loop (ky's own retry is off) so the rules are exact:
 * reads retry anything transient; the message POST retries only what proves it was not taken.
 */
import type { KyInstance, Options as KyOptions } from 'ky';
import { pino } from 'pino';
import type { z } from 'zod';
import type { Logger } from '../logger.js';
import { UsageError } from '../errors.js';
import { abortableSleep } from './abortable-sleep.js';
import type { ApiEvent } from './api-event.js';
import type { ApiOperation } from './api-operation.js';
import type { CallOptions, MintlifyClientOptions } from './client-options.js';
import { errorFromFetchFailure } from './error-from-fetch-failure.js';
import { errorFromResponse } from './error-from-response.js';
import { AmbiguousSendError, InvalidRequestError, InvalidResponseError, MintlifyApiError, NetworkError, TimeoutError } from './errors/index.js';
import { parseBodyRepairingText, type ParsedBody } from './parse-body.js';
import { DEFAULT_MAX_BODY_BYTES, readBodyText } from './read-body.js';
import { pathSegment } from './path-segment.js';
import { boundRetryAfter, DEFAULT_MAX_RETRY_AFTER_MS, DEFAULT_RETRY_AFTER_MS } from './retry-after.js';
import { backoffDelayMs, resolveRetryPolicy, type RetryPolicy } from './retry-policy.js';
import { isRetryableRead, isRetryableSend, provesNotSent, serverRequestedWaitMs } from './retry-rules.js';
import { agentJobAnswerSchema, agentJobSchema, createdJobSchema, type AgentJob, type AgentJobAnswer } from './schemas.js';

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * A POST's JSON text travels beside ky's request, not in it. ky clones every request before
 * sending it (to be able to retry it), and cloning a request with a body tees the body's stream:
 * a POST through ky cost ~1.6× one through plain fetch (250 concurrent sends: 175 against 110 ms,
 * cold 310 against 200 ms). ky hands options it does not know to its `fetch` as the second
 * argument, so the request ky builds (URL, headers, method, signal) has no body, and
 * `fetchWithJsonBody` attaches the text to it.
 */
const JSON_BODY = 'mintpipeJsonBody';

function fetchWithJsonBody(input: Request | URL | string, init?: RequestInit & { [JSON_BODY]?: string }): Promise<Response> {
  const body = init?.[JSON_BODY];
  return body === undefined ? fetch(input) : fetch(input, { body });
}

interface ApiRequest<S extends z.ZodType> {
  op: ApiOperation;
  /** Log context only (ids are not secret). */
  context: { project: string; job?: string };
  method: 'get' | 'post';
  /** Relative to baseUrl, already encoded. */
  path: string;
  searchParams?: URLSearchParams;
  json?: unknown;
  schema: S;
  /** Resolve with `{ value, repaired }` instead of the value alone. @default false */
  keepRepairs?: boolean;
}

export class MintlifyClient {
  /** ky's settings, the key among them (a private field: it cannot be serialized). */
  readonly #kyOptions: KyOptions;
  #http: KyInstance | undefined;
  readonly #timeoutMs: number;
  readonly #maxBodyBytes: number;
  readonly #retry: RetryPolicy;
  readonly #defaultRetryAfterMs: number;
  readonly #maxRetryAfterMs: number;
  readonly #logger: Logger;
  readonly #onEvent: ((event: ApiEvent) => void) | undefined;

  constructor(options: MintlifyClientOptions) {
    let base: URL;
    try {
      base = new URL(options.baseUrl);
    } catch {
      throw new UsageError(`baseUrl: expected an absolute http(s) URL, got ${JSON.stringify(options.baseUrl)}`);
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new UsageError(`baseUrl: expected an http(s) URL, got ${base.protocol}`);
    }
    if (!options.apiKey) throw new UsageError('apiKey: missing');
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isFinite(this.#timeoutMs) || this.#timeoutMs <= 0) throw new UsageError(`timeoutMs: expected a number > 0, got ${this.#timeoutMs}`);
    this.#maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    if (!Number.isSafeInteger(this.#maxBodyBytes) || this.#maxBodyBytes < 1024) throw new UsageError(`maxBodyBytes: expected an integer >= 1024, got ${this.#maxBodyBytes}`);
    this.#retry = resolveRetryPolicy(options.retry);
    this.#defaultRetryAfterMs = options.defaultRetryAfterMs ?? DEFAULT_RETRY_AFTER_MS;
    if (!Number.isFinite(this.#defaultRetryAfterMs) || this.#defaultRetryAfterMs < 0) {
      throw new UsageError(`defaultRetryAfterMs: expected a number >= 0, got ${this.#defaultRetryAfterMs}`);
    }
    this.#maxRetryAfterMs = options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
    if (!Number.isSafeInteger(this.#maxRetryAfterMs) || this.#maxRetryAfterMs < 0) {
      throw new UsageError(`maxRetryAfterMs: expected an integer >= 0, got ${this.#maxRetryAfterMs}`);
    }
    this.#logger = options.logger ?? pino({ enabled: false });
    this.#onEvent = options.onEvent;
    this.#kyOptions = {
      prefixUrl: base.href,
      headers: { authorization: `Bearer ${options.apiKey}`, accept: 'application/json' },
      retry: 0,
      // Our own per-attempt timeout covers reading the body too; ky's stops at the headers.
      timeout: false,
      throwHttpErrors: false,
      // A redirect would turn the POST into a GET; report it instead of following.
      redirect: 'manual',
      fetch: fetchWithJsonBody,
    };
  }

  /**
   * ky, loaded with the first request: it builds one of fetch's Requests as it loads (~0.1 CPU-s in
   * a new process), which a command that never calls the API (status, plan, the dashboard) skips.
   */
  async #ky(): Promise<KyInstance> {
    const { default: ky } = await import('ky');
    this.#http ??= ky.create(this.#kyOptions);
    return this.#http;
  }

  /**
   * One page of an analytics dataset: `GET /v1/analytics/{projectId}/{endpoint}?{params}`, its body
   * checked against `schema`. Strings with invalid Unicode come back repaired, their paths listed.
   */
  async getAnalyticsPage<S extends z.ZodType>(
    projectId: string,
    endpoint: string,
    params: Record<string, string>,
    schema: S,
    call?: CallOptions,
  ): Promise<ParsedBody<z.output<S>>> {
    const op = 'getAnalytics';
    const project = pathSegment(op, 'projectId', projectId);
    const segments = endpoint.split('/').map((segment) => pathSegment(op, 'endpoint', segment));
    return this.#execute(
      {
        op,
        context: { project: projectId },
        method: 'get',
        path: `v1/analytics/${project}/${segments.join('/')}`,
        searchParams: new URLSearchParams(params),
        schema,
        keepRepairs: true,
      },
      call,
    ) as Promise<ParsedBody<z.output<S>>>;
  }

  /**
   * Sends a follow-up prompt to an agent job. Not idempotent: retried only after a 429 or a
   * connection that was never made; any failure that may have reached the server (5xx, timeout,
   * reset, malformed 200 body) is an AmbiguousSendError and is never retried.
   */
  async sendMessage(projectId: string, jobId: string, prompt: string, call?: CallOptions): Promise<AgentJobAnswer> {
    const op = 'sendMessage';
    const path = `v2/agent/${pathSegment(op, 'projectId', projectId)}/job/${pathSegment(op, 'jobId', jobId)}/message`;
    if (typeof prompt !== 'string' || prompt.length === 0) throw new InvalidRequestError({ op, serverMessage: 'prompt: empty' });
    const answer = await this.#execute(
      { op, context: { project: projectId, job: jobId }, method: 'post', path, json: { prompt }, schema: agentJobAnswerSchema },
      call,
    );
    return { ...answer, id: answer.id ?? jobId };
  }

  /**
   * Starts a new agent job with its first prompt (201 → the job). As non-idempotent as a send,
   * under the same rules: retried only after a 429 or a connection never made; a failure that may
   * have reached the server is an AmbiguousSendError (a job may exist that we do not know of).
   */
  async createAgentJob(projectId: string, prompt: string, call?: CallOptions): Promise<AgentJobAnswer> {
    const op = 'createAgentJob';
    const path = `v2/agent/${pathSegment(op, 'projectId', projectId)}/job`;
    if (typeof prompt !== 'string' || prompt.length === 0) throw new InvalidRequestError({ op, serverMessage: 'prompt: empty' });
    return this.#execute({ op, context: { project: projectId }, method: 'post', path, json: { prompt }, schema: createdJobSchema }, call);
  }

  async getAgentJob(projectId: string, jobId: string, call?: CallOptions): Promise<AgentJob> {
    const op = 'getAgentJob';
    const path = `v2/agent/${pathSegment(op, 'projectId', projectId)}/job/${pathSegment(op, 'jobId', jobId)}`;
    const job = await this.#execute({ op, context: { project: projectId, job: jobId }, method: 'get', path, schema: agentJobSchema }, call);
    return { ...job, id: job.id ?? jobId };
  }

  /** The caller's afterAttempt: bookkeeping, which never turns an answered attempt into a failure. */
  async #afterAttempt(call: CallOptions, attempt: number): Promise<void> {
    try {
      await call.afterAttempt?.(attempt);
    } catch (err) {
      (call.logger ?? this.#logger).warn({ event: 'api.after_attempt_failed', error: err instanceof Error ? err.message : String(err) }, 'after-attempt hook failed');
    }
  }

  async #execute<S extends z.ZodType>(request: ApiRequest<S>, call: CallOptions = {}): Promise<z.output<S>> {
    const policy = call.retry === false ? { ...this.#retry, attempts: 1 } : resolveRetryPolicy(this.#retry, call.retry);
    const isSend = request.method === 'post';
    // Time spent in attempts and waits; budget waits inside beforeAttempt are not failures.
    let spentMs = 0;
    for (let attempt = 1; ; attempt++) {
      call.signal?.throwIfAborted();
      await call.beforeAttempt?.(attempt);
      call.signal?.throwIfAborted();
      const startedAt = performance.now();
      try {
        const { value, status } = await this.#attempt(request, call.signal, call.logger);
        await this.#afterAttempt(call, attempt);
        this.#report(call.logger, request, { op: request.op, attempt, status, durationMs: performance.now() - startedAt, outcome: 'ok' });
        return value;
      } catch (caught) {
        const durationMs = performance.now() - startedAt;
        if (!(caught instanceof MintlifyApiError)) {
          // The caller aborted mid-attempt: a send may already be on the server.
          await this.#afterAttempt(call, attempt);
          this.#report(call.logger, request, { op: request.op, attempt, durationMs, outcome: 'error', reason: 'aborted' });
          throw isSend ? new AmbiguousSendError({ cause: caught }) : caught;
        }
        const failure = caught;
        failure.attempts = attempt;
        // Not a 429 (refused, but counted by the server): only a connection never made.
        if (failure instanceof NetworkError && !failure.mayHaveReachedServer) await call.onNotSent?.(attempt);
        else await this.#afterAttempt(call, attempt);
        spentMs += durationMs;
        const event = { op: request.op, attempt, status: failure.status, durationMs, reason: failure.reason };
        if (failure.status === 429 && call.onRateLimited) {
          try {
            await call.onRateLimited(serverRequestedWaitMs(failure));
          } catch (hookError) {
            // The caller stops here (e.g. to delay its queue job); the 429 still counts in metrics.
            this.#report(call.logger, request, { ...event, outcome: 'error' });
            throw hookError;
          }
        }
        const retryable = isSend ? isRetryableSend(failure) : isRetryableRead(failure);
        const delayMs = Math.max(backoffDelayMs(policy, attempt - 1), serverRequestedWaitMs(failure));
        if (!retryable || attempt >= policy.attempts || spentMs + delayMs > policy.maxTotalMs) {
          this.#report(call.logger, request, { ...event, outcome: 'error' });
          throw isSend && !provesNotSent(failure) ? new AmbiguousSendError({ cause: failure }) : failure;
        }
        this.#report(call.logger, request, { ...event, outcome: 'retry' });
        (call.logger ?? this.#logger).warn(
          { event: 'api.retry', op: request.op, ...request.context, attempt, status: failure.status, reason: failure.reason, delayMs, error: failure.message },
          'api retry',
        );
        await abortableSleep(delayMs, call.signal);
        spentMs += delayMs;
      }
    }
  }

  /** One HTTP exchange, body included, within timeoutMs. Throws MintlifyApiError, or the caller's abort reason. */
  async #attempt<S extends z.ZodType>(request: ApiRequest<S>, callerSignal?: AbortSignal, logger?: Logger): Promise<{ value: z.output<S>; status: number }> {
    const http = this.#http ?? (await this.#ky());
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), this.#timeoutMs);
    const signal = callerSignal ? AbortSignal.any([callerSignal, timeout.signal]) : timeout.signal;
    try {
      const response = await http(request.path, {
        method: request.method,
        searchParams: request.searchParams,
        signal,
        ...(request.json === undefined ? {} : { headers: { 'content-type': 'application/json' }, [JSON_BODY]: JSON.stringify(request.json) }),
      });
      const bodyText = await readBodyText(request.op, response, this.#maxBodyBytes);
      if (!response.ok) {
        throw errorFromResponse({
          op: request.op,
          status: response.status,
          retryAfterMs: this.#retryAfterMs(request, response.headers.get('retry-after'), logger),
          bodyText,
          defaultRetryAfterMs: this.#defaultRetryAfterMs,
        });
      }
      const parsed = this.#parse(request, response.status, bodyText, logger);
      // keepRepairs callers (getAnalyticsPage) unwrap the pair themselves.
      return { value: (request.keepRepairs ? parsed : parsed.value) as z.output<S>, status: response.status };
    } catch (error) {
      if (error instanceof MintlifyApiError) throw error;
      if (callerSignal?.aborted) throw callerSignal.reason;
      if (timeout.signal.aborted) throw new TimeoutError({ op: request.op, timeoutMs: this.#timeoutMs });
      throw errorFromFetchFailure(request.op, error);
    } finally {
      clearTimeout(timer);
    }
  }

  /** A 2xx body checked against its schema; one that breaks the contract is a finding about the upstream, logged once (never retried). */
  #parse<S extends z.ZodType>(request: ApiRequest<S>, status: number, bodyText: string, logger: Logger | undefined): ParsedBody<z.output<S>> {
    try {
      return parseBodyRepairingText(request.op, status, bodyText, request.schema);
    } catch (error) {
      if (error instanceof InvalidResponseError) {
        (logger ?? this.#logger).warn({ event: 'finding', kind: 'invalid_response_body', op: request.op, ...request.context, status, problem: error.problem }, 'invalid response body');
      }
      throw error;
    }
  }

  /** The server's Retry-After within the cap; a longer one is a finding, logged once per answer. */
  #retryAfterMs(request: ApiRequest<z.ZodType>, header: string | null, logger: Logger | undefined): number | undefined {
    const bounded = boundRetryAfter(header, this.#maxRetryAfterMs);
    if (bounded.askedMs !== undefined) {
      (logger ?? this.#logger).warn(
        { event: 'finding', kind: 'retry_after_capped', op: request.op, ...request.context, retryAfter: header?.slice(0, 64), cappedMs: bounded.ms },
        'Retry-After above the cap',
      );
    }
    return bounded.ms;
  }

  #report(logger: Logger | undefined, request: ApiRequest<z.ZodType>, event: ApiEvent): void {
    const ms = Math.round(event.durationMs);
    (logger ?? this.#logger).debug(
      { event: 'api.attempt', op: event.op, ...request.context, attempt: event.attempt, status: event.status, ms, outcome: event.outcome, reason: event.reason },
      'api attempt',
    );
    try {
      this.#onEvent?.(event);
    } catch (error) {
      // A broken metrics subscriber must not turn a sent message into a failed call.
      this.#logger.error({ event: 'api.on_event_failed', op: event.op, err: error }, 'onEvent threw');
    }
  }
}
