/**
 * The official response schemas of the analytics operations (test/support/analytics-spec.json,
 * derived from Mintlify's published OpenAPI, kept beside it as analytics.openapi.json) as ajv
 * validators, and the spec's parameter limits.
 */
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import type { AnalyticsDataset } from '../../src/emulator/index.js';

interface ParameterSchema {
  type?: string;
  minimum?: number;
  maximum?: number;
  default?: number;
  enum?: string[];
}

interface SpecFixture {
  operations: Record<
    AnalyticsDataset,
    { path: string; parameters: Record<string, { in: string; required: boolean; schema: ParameterSchema }>; responses: Record<string, object> }
  >;
  definitions: Record<string, { properties?: Record<string, unknown>; additionalProperties?: unknown }>;
}

export const analyticsSpec = JSON.parse(readFileSync(new URL('./analytics-spec.json', import.meta.url), 'utf8')) as SpecFixture;

// strict: false because the OpenAPI text carries descriptions and `format: ulid`, which JSON Schema leaves to the reader.
const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addSchema(analyticsSpec);

/** Problems of `body` against the spec's response schema for `status` of the dataset's operation ([] when valid). */
export function specProblems(dataset: AnalyticsDataset, status: number, body: unknown): string[] {
  const validate = ajv.getSchema(`https://mintpipe.test/analytics-spec.json#/operations/${dataset}/responses/${status}`);
  if (!validate) return [`the spec has no ${status} answer for ${dataset}`];
  return validate(body) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message ?? ''}`);
}

/** The spec's `limit` parameter of an operation: bounds, default and whether it must be whole. */
export function specLimit(dataset: AnalyticsDataset): { min: number; max: number; default: number; integer: boolean } | undefined {
  const schema = analyticsSpec.operations[dataset].parameters.limit?.schema;
  if (!schema) return undefined;
  return { min: schema.minimum!, max: schema.maximum!, default: schema.default!, integer: schema.type === 'integer' };
}
