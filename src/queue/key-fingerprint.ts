/**
 * A fingerprint of the API key that lets two processes tell whether they use the same key without
 * either publishing it: HMAC-SHA256 of the key under a random salt kept per installation (queue
 * prefix) in Redis. Not reversible; shown by its first 8 hex characters.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

function saltKey(queuePrefix: string): string {
  return `${queuePrefix}:installation-salt`;
}

/** The installation's salt, created (once, by whichever process comes first) when missing. */
export async function installationSalt(redis: Redis, queuePrefix: string): Promise<string> {
  await redis.set(saltKey(queuePrefix), randomBytes(32).toString('hex'), 'NX');
  const salt = await redis.get(saltKey(queuePrefix));
  if (!salt) throw new Error('the installation salt vanished from Redis');
  return salt;
}

/** HMAC-SHA256 of `key` under `salt`, hex; null without a key. */
export function keyFingerprint(salt: string, key: string | undefined): string | null {
  return key ? createHmac('sha256', salt).update(key).digest('hex') : null;
}

/** How a fingerprint is shown: its first 8 hex characters, or `none` for no key. */
export function shortFingerprint(fingerprint: string | null | undefined): string {
  return fingerprint ? fingerprint.slice(0, 8) : 'none';
}
