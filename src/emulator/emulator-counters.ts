/**
 * What the emulator saw, readable by tests at any time (the object is live). Per route: requests,
 * responses by status, resets; plus the figures tests assert on most, by name.
 */
import { DATASET_NAMES } from '../datasets/index.js';
import { FAULT_KINDS, ROUTE_NAMES, type FaultKind, type RouteName } from './faults.js';

export interface RouteCounters {
  /** Every request that reached the route, answered or not. */
  requests: number;
  /** Answers sent, by HTTP status. */
  statuses: Record<number, number>;
  /** Connections destroyed without an answer. */
  resets: number;
  /** 200 answers carrying the real result, untouched by any fault. */
  served: number;
}

export class EmulatorCounters {
  readonly routes: Record<RouteName, RouteCounters>;
  /** Injected faults by kind (scripted and random; `delay` includes slow requests). */
  readonly faults: Record<FaultKind, number>;
  /** Analytics requests that consumed organization budget (refused ones do not). */
  analyticsBudgetUsed = 0;
  /** Message requests that consumed a project's budget. */
  messageBudgetUsed = 0;
  /** Create requests that consumed a project's budget (the message budget unless separate). */
  createBudgetUsed = 0;

  constructor() {
    this.routes = Object.fromEntries(
      ROUTE_NAMES.map((route) => [route, { requests: 0, statuses: {}, resets: 0, served: 0 }]),
    ) as Record<RouteName, RouteCounters>;
    this.faults = Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as Record<FaultKind, number>;
  }

  /** Requests to the analytics endpoints (`routes.<dataset>` has each one's). */
  get analyticsRequests(): number {
    return this.sumAnalytics((route) => route.requests);
  }
  /** Analytics answers delivered intact (pages, stats, threads). */
  get analyticsServed(): number {
    return this.sumAnalytics((route) => route.served);
  }
  /** 429 answers on the analytics endpoints (budget and injected). */
  get analytics429(): number {
    return this.sumAnalytics((route) => route.statuses[429] ?? 0);
  }
  /** Requests to the message endpoint. */
  get messageRequests(): number {
    return this.routes.message.requests;
  }
  /** 429 answers on the message endpoint (budget and injected). */
  get message429(): number {
    return this.routes.message.statuses[429] ?? 0;
  }
  /** Requests to the create-agent-job endpoint. */
  get createRequests(): number {
    return this.routes.create.requests;
  }
  /** Requests to the get-agent-job endpoint. */
  get jobRequests(): number {
    return this.routes.job.requests;
  }

  private sumAnalytics(figure: (route: RouteCounters) => number): number {
    return DATASET_NAMES.reduce((sum, dataset) => sum + figure(this.routes[dataset]), 0);
  }

  countStatus(route: RouteName, status: number): void {
    const statuses = this.routes[route].statuses;
    statuses[status] = (statuses[status] ?? 0) + 1;
  }

  /** A plain copy, for logging or comparing before/after. */
  snapshot(): {
    analyticsRequests: number;
    analyticsServed: number;
    analytics429: number;
    analyticsBudgetUsed: number;
    messageRequests: number;
    message429: number;
    messageBudgetUsed: number;
    jobRequests: number;
    routes: Record<RouteName, RouteCounters>;
    faults: Record<FaultKind, number>;
  } {
    return {
      analyticsRequests: this.analyticsRequests,
      analyticsServed: this.analyticsServed,
      analytics429: this.analytics429,
      analyticsBudgetUsed: this.analyticsBudgetUsed,
      messageRequests: this.messageRequests,
      message429: this.message429,
      messageBudgetUsed: this.messageBudgetUsed,
      jobRequests: this.jobRequests,
      routes: structuredClone(this.routes),
      faults: { ...this.faults },
    };
  }
}
