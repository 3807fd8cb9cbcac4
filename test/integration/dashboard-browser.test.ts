/**
 * The dashboard page in a real browser (Debian's headless Chromium driven by playwright-core),
 * against a stack with data: the chart draws a bar and points per exported day, the tables fill,
 * nothing breaks the page's CSP. Screenshots go to test-artifacts/.
 *
 * The only test that needs a browser. Without one it is skipped locally, with the reason in its
 * name; under CI (CI=true, set by .ci/run, which installs chromium) a missing browser fails it.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { startDashboard, type Dashboard } from '../../src/ops/dashboard-server.js';
import { QUEUE_NAMES } from '../../src/queue/queues.js';
import { findChromium } from '../support/chromium.js';
import { openDashboardStack, seedDashboardData, type DashboardStack, type SeedResult } from '../support/dashboard-stack.js';

const CHROMIUM = findChromium();
const IN_CI = process.env.CI === 'true';
const SKIP = CHROMIUM.path === undefined && !IN_CI;
const TITLE = CHROMIUM.path === undefined ? `dashboard page in Chromium (${IN_CI ? 'fails under CI' : 'skipped'}: ${CHROMIUM.reason})` : 'dashboard page in Chromium';
if (SKIP) console.warn(`skipping the dashboard browser test: ${CHROMIUM.reason}`);
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const ARTIFACTS = join(process.cwd(), 'test-artifacts');

const logger = createLogger({ level: 'silent', pretty: false });
let stack: DashboardStack;
let emptyStack: DashboardStack;
let seed: SeedResult;
let dashboard: Dashboard;
let emptyDashboard: Dashboard;
let tokenDashboard: Dashboard;
const TOKEN = 'browser-token-5d2c9e';
let profileDir: string;
let browser: BrowserContext;
const pageErrors: string[] = [];

async function openPage(url: string): Promise<Page> {
  const page = await browser.newPage();
  page.on('pageerror', (err) => pageErrors.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') pageErrors.push(`console: ${msg.text()}`);
  });
  await page.goto(url);
  await page.waitForSelector('body[data-loaded="true"]', { timeout: 30_000 });
  return page;
}

describe.skipIf(SKIP)(TITLE, () => {
  beforeAll(async () => {
    if (CHROMIUM.path === undefined) throw new Error(`CI=true needs a browser for this test: ${CHROMIUM.reason}`);
    stack = await openDashboardStack();
    emptyStack = await openDashboardStack({ dataDir: stack.dataDir, database: 'mintpipe_empty' });
    seed = await seedDashboardData(stack.warehouse);
    await stack.queue(QUEUE_NAMES.export).add('window', { projectId: seed.projectId });
    dashboard = await startDashboard({ runtime: stack.source, host: '127.0.0.1', port: 0, logger });
    emptyDashboard = await startDashboard({ runtime: emptyStack.source, host: '127.0.0.1', port: 0, logger });
    tokenDashboard = await startDashboard({ runtime: stack.source, host: '127.0.0.1', port: 0, token: TOKEN, logger });
    profileDir = mkdtempSync(join(tmpdir(), 'mintpipe-chromium-'));
    browser = await chromium.launchPersistentContext(profileDir, {
      executablePath: CHROMIUM.path,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1440, height: 900 },
      deviceScaleFactor: 1,
      colorScheme: 'light',
    });
    mkdirSync(ARTIFACTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await tokenDashboard?.close();
    await emptyDashboard?.close();
    await dashboard?.close();
    await emptyStack?.close();
    await stack?.close();
    if (profileDir) rmSync(profileDir, { recursive: true, force: true });
  });

  it('draws a bar and human and AI points for every exported day, and marks the gaps', async () => {
    const page = await openPage(dashboard.url);
    await page.waitForSelector('#chart svg .bar-total');
    expect(await page.locator('#chart svg .bar-total').count()).toBe(seed.days.length);
    expect(await page.locator('#chart svg .point-human').count()).toBe(seed.days.length);
    expect(await page.locator('#chart svg .point-ai').count()).toBe(seed.days.length);
    expect(await page.locator('#chart svg .bar-missing').count()).toBe(30 - seed.days.length);
    const barDates = await page.locator('#chart svg .band:has(.bar-total)').evaluateAll((els) => els.map((e) => e.getAttribute('data-date')));
    expect(barDates).toEqual(seed.days);
    // Bars have real heights: the busiest day's bar is the tallest.
    const heights = await page.locator('#chart svg .bar-total').evaluateAll((els) => els.map((e) => Number(e.getAttribute('height'))));
    expect(Math.min(...heights)).toBeGreaterThan(5);
    const busiest = seed.days.reduce((a, b) => (seed.totals.get(b)!.total > seed.totals.get(a)!.total ? b : a));
    expect(heights[seed.days.indexOf(busiest)]).toBe(Math.max(...heights));

    await page.locator('#chart svg .hit').nth(30 - 1).hover();
    await expect.poll(() => page.locator('#tooltip').isVisible()).toBe(true);
    expect(await page.locator('#tooltip').innerText()).toMatch(/Total[\s\S]*Human[\s\S]*AI/);

    expect(await page.locator('#tiles .tile').count()).toBeGreaterThanOrEqual(3);
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard.png'), fullPage: true });
    await page.close();
  });

  it('switches the chart to 90 days', async () => {
    const page = await openPage(dashboard.url);
    await page.click('.segmented button[data-days="90"]');
    await expect.poll(() => page.locator('#chart svg .bar-missing').count()).toBe(90 - seed.days.length);
    expect(await page.locator('#chart svg .bar-total').count()).toBe(seed.days.length);
    expect(page.url()).toContain('days=90');
    await page.close();
  });

  it('fills the top pages, export runs and prompt batch panels', async () => {
    const page = await openPage(dashboard.url);
    await page.waitForSelector('#pages tbody tr');
    expect(await page.locator('#pages tbody tr').count()).toBe(10);
    // Default window: the newest, here the week; its busiest page comes first.
    expect(await page.locator('#pages tbody tr').first().locator('.path').innerText()).toBe(seed.week.top.path);

    expect(await page.locator('#runs tbody tr').count()).toBe(seed.days.length + 3);
    expect(await page.locator('#runs .badge.failed').count()).toBe(1);
    expect(await page.locator('#runs').innerText()).toMatch(/total invariant/);

    expect(await page.locator('#batches .batch').count()).toBe(1);
    const links = await page.locator('#batches a[href^="https://github.com/"]').evaluateAll((els) => els.map((e) => e.getAttribute('href')));
    expect(links.sort()).toEqual([...seed.prLinks].sort());
    expect(await page.locator('#batches .stack i').count()).toBe(8); // every status but 'sending'

    expect(await page.locator('#queue-pills').innerText()).toMatch(/export[\s\S]*1 waiting/);

    // Choosing a 1-day window reloads the table with that day's pages.
    const day = seed.days.at(-1)!;
    await page.selectOption('#window', { value: `${day}..${seed.week.dateTo}` });
    await expect.poll(() => page.url()).toContain(`window=${day}..`);
    await page.waitForSelector('#pages tbody tr');
    expect(await page.locator('#pages p').innerText()).toContain('unique visitors');
    await page.close();
  });

  it('explains every empty panel when the warehouse has no data yet', async () => {
    const page = await openPage(emptyDashboard.url);
    expect(await page.locator('#chart .empty').innerText()).toMatch(/No exports in the warehouse yet[\s\S]*mintpipe export/);
    expect(await page.locator('#runs .empty').innerText()).toMatch(/No export runs yet/);
    expect(await page.locator('#batches .empty').innerText()).toMatch(/No prompt batches yet[\s\S]*prompts send/);
    expect(await page.locator('#pages .empty').innerText()).toMatch(/No windows/);
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-empty.png'), fullPage: true });
    await page.close();
  });

  it('opens with ?token= once, then works from the cookie with the token gone from the address bar', async () => {
    const page = await openPage(`${tokenDashboard.url}/?token=${TOKEN}#days=30`);
    expect(page.url()).not.toContain(TOKEN);
    await page.waitForSelector('#chart svg .bar-total');
    expect(await page.locator('#chart svg .bar-total').count()).toBe(seed.days.length);
    expect(await page.content()).not.toContain(TOKEN);
    await page.goto(`${tokenDashboard.url}/queues`);
    await expect.poll(() => page.locator('body').innerText(), { timeout: 20_000 }).toMatch(/export[\s\S]*prompts|prompts[\s\S]*export/);
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-queues.png') });
    await page.close();
  });

  it('ran without script errors or content security policy violations', () => {
    expect(pageErrors).toEqual([]);
  });
});
