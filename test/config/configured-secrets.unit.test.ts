import { describe, expect, it } from 'vitest';
import { configuredSecrets } from '../../config/configured-secrets.js';
import { loadConfig } from '../../config/index.js';

describe('configured secrets', () => {
  it('are the key, URL credentials, the ClickHouse password and the dashboard token, not the built-in user', () => {
    const config = loadConfig({
      MINTLIFY_API_KEY: 'mint_configured_secret_key_01',
      REDIS_URL: 'redis://queue-user:redis-pass-7@127.0.0.1:6379',
      CLICKHOUSE_URL: 'http://default:ch-url-pass-9@127.0.0.1:8123',
      CLICKHOUSE_PASSWORD: 'ch-password-3',
      MINTPIPE_DASHBOARD_TOKEN: 'dashboard-token-0123456789',
    });
    expect(configuredSecrets(config).sort()).toEqual(
      ['mint_configured_secret_key_01', 'queue-user', 'redis-pass-7', 'ch-url-pass-9', 'ch-password-3', 'dashboard-token-0123456789'].sort(),
    );
  });
});
