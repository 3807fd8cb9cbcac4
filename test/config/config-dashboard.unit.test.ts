import { describe, expect, it } from 'vitest';
import { configRefusal as refusal } from '../support/config-refusal.js';
import { loadConfig, MIN_DASHBOARD_TOKEN_CHARS } from '../../config/index.js';

describe('the dashboard token (MINTPIPE_DASHBOARD_TOKEN)', () => {
  it('is at least 16 characters', () => {
    expect(MIN_DASHBOARD_TOKEN_CHARS).toBe(16);
    const token = 'k'.repeat(16);
    expect(loadConfig({ MINTPIPE_DASHBOARD_TOKEN: token }).dashboard.token).toBe(token);
    expect(loadConfig({ MINTPIPE_DASHBOARD_TOKEN: '  ' }).dashboard.token).toBeUndefined();
  });

  it('refuses a shorter one with exit 2 and one line naming the key, without repeating the token', () => {
    for (const token of ['§', 'Q7#', 'Zq9-Zq9-Zq9-Zq9', ` ${'W'.repeat(15)} `]) {
      const err = refusal({ MINTPIPE_DASHBOARD_TOKEN: token });
      expect(err.exitCode).toBe(2);
      expect(err.key).toBe('MINTPIPE_DASHBOARD_TOKEN');
      expect(err.message).toMatch(/^MINTPIPE_DASHBOARD_TOKEN: expected at least 16 characters/);
      expect(err.message).not.toContain('\n');
      expect(err.message).not.toContain(token.trim());
    }
  });
});

describe('the names the dashboard serves (MINTPIPE_DASHBOARD_HOSTS)', () => {
  it('is empty by default', () => {
    expect(loadConfig({}).dashboard.hosts).toEqual([]);
  });

  it('takes a comma list of names and addresses, lower-cased, IPv6 in brackets', () => {
    const hosts = loadConfig({ MINTPIPE_DASHBOARD_HOSTS: ' Dash.Example.com, 10.0.0.5,,::1 , [fd00::2],mintpipe ' }).dashboard.hosts;
    expect(hosts).toEqual(['dash.example.com', '10.0.0.5', '[::1]', '[fd00::2]', 'mintpipe']);
  });

  it('refuses entries that are not bare names: schemes, ports, paths, wildcards', () => {
    for (const entry of ['http://dash.example.com', 'dash.example.com:3000', 'dash/queues', '*', '*.example.com', 'a b']) {
      const err = refusal({ MINTPIPE_DASHBOARD_HOSTS: `localhost,${entry}` });
      expect(err.key, entry).toBe('MINTPIPE_DASHBOARD_HOSTS');
      expect(err.exitCode).toBe(2);
      expect(err.message).toMatch(/expected a comma-separated list of host names or IP addresses/);
    }
  });
});
