/**
 * The dashboard page in a real browser (Debian's headless Chromium driven by playwright-core),
 * against a stack with data, opened from the address `start` prints (with the generated token, as
 * a user clicks it): the chart draws a bar and points per exported day, the tables fill,
 * nothing breaks the page's CSP. Screenshots go to test-artifacts/.
 *
 * The only test that needs a browser. Without one it is skipped locally, with the reason in its
 * name; under CI (CI=true, set by .ci/run, which installs chromium) a missing browser fails it.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { dayInTimeZone } from '../../src/export/dates.js';
import { startDashboard, type Dashboard } from '../../src/ops/dashboard-server.js';
import { PromptStore, submitBatch } from '../../src/prompts/index.js';
import { QUEUE_NAMES } from '../../src/queue/queues.js';
import { findChromium } from '../support/chromium.js';
import { loadConfig } from '../../config/index.js';
import { describeProcess, publishInstallation, type Publication } from '../../src/queue/installation-info.js';
import { openDashboardStack, seedDashboardData, seedDatasetData, type DashboardStack, type DatasetSeed, type SeedResult } from '../support/dashboard-stack.js';
import { fileTempDir } from '../support/test-env.js';

const CHROMIUM = findChromium();
/** The dashboards' clock, pinned: a run across midnight (UTC) still has one today. */
const NOW = new Date();
const TODAY = dayInTimeZone(NOW, 'UTC');
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
let datasetSeed: DatasetSeed;
let published: Publication;
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

/**
 * One page of the seeded dashboard, shared by the cases that only read it and hover its charts
 * (each hover shows that chart's own tooltip); opening it is most of such a case's time.
 */
let seededPage: Page | undefined;
async function seededDashboard(): Promise<Page> {
  seededPage ??= await openPage(dashboard.browserUrl);
  return seededPage;
}

describe.skipIf(SKIP)(TITLE, () => {
  beforeAll(async () => {
    if (CHROMIUM.path === undefined) throw new Error(`CI=true needs a browser for this test: ${CHROMIUM.reason}`);
    stack = await openDashboardStack();
    emptyStack = await openDashboardStack({ dataDir: stack.dataDir, database: 'mintpipe_empty' });
    seed = await seedDashboardData(stack.warehouse, { today: TODAY });
    datasetSeed = await seedDatasetData(stack.warehouse, { projectId: seed.projectId, today: TODAY });
    // A worker of this installation runs with a budget of its own; the dashboard's process has the default.
    const worker = describeProcess('worker', loadConfig({ MINTPIPE_ANALYTICS_RATE: '7/1m', MINTPIPE_PROJECTS: seed.projectId }), { queues: ['export'], scheduler: false });
    // On another machine: its pid cannot be checked from here, so its record stands until it lapses.
    published = await publishInstallation(stack.redis, stack.prefix, { ...worker, pid: 4242, host: 'worker-host', pidSpace: 'worker-host-boot/pid:[1]' });
    await stack.queue(QUEUE_NAMES.export).add('window', { projectId: seed.projectId });
    dashboard = await startDashboard({ runtime: stack.source, host: '127.0.0.1', port: 0, now: () => NOW, logger });
    emptyDashboard = await startDashboard({ runtime: emptyStack.source, host: '127.0.0.1', port: 0, now: () => NOW, logger });
    tokenDashboard = await startDashboard({ runtime: stack.source, host: '127.0.0.1', port: 0, token: TOKEN, now: () => NOW, logger });
    profileDir = fileTempDir('chromium');
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
    await seededPage?.close();
    await browser?.close();
    await published?.stop();
    await tokenDashboard?.close();
    await emptyDashboard?.close();
    await dashboard?.close();
    await emptyStack?.close();
    await stack?.close();
    if (profileDir) rmSync(profileDir, { recursive: true, force: true });
  });

  it('opens from the address with the generated token, which then leaves the address bar', async () => {
    expect(dashboard.browserUrl).toBe(`${dashboard.url}/?token=${stack.token()}`);
    const page = await seededDashboard();
    expect(page.url()).toMatch(new RegExp(`^${dashboard.url}/#`));
    expect(page.url()).not.toContain('token');
    expect(await page.content()).not.toContain(stack.token());
  });

  it('draws a bar and human and AI points for every exported day, and marks the gaps', async () => {
    const page = await seededDashboard();
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
  });

  it('draws assistant conversations per day stacked answered over unanswered, with gaps', async () => {
    const page = await seededDashboard();
    await page.waitForSelector('#assistant-chart svg .bar-answered');
    const days = [...datasetSeed.assistant.keys()];
    expect(await page.locator('#assistant-chart svg .bar-answered').count()).toBe(days.length);
    expect(await page.locator('#assistant-chart svg .bar-unanswered').count()).toBe(days.length);
    expect(await page.locator('#assistant-chart svg .bar-missing').count()).toBe(30 - days.length);
    const bands = await page.locator('#assistant-chart svg .band:has(.bar-answered)').evaluateAll((els) =>
      els.map((e) => ({
        date: e.getAttribute('data-date'),
        answered: Number(e.querySelector('.bar-answered')?.getAttribute('data-value')),
        unanswered: Number(e.querySelector('.bar-unanswered')?.getAttribute('data-value')),
        height: [...e.querySelectorAll('rect')].reduce((n, r) => n + Number(r.getAttribute('height')), 0),
      })),
    );
    expect(bands.map((b) => ({ date: b.date, answered: b.answered, unanswered: b.unanswered }))).toEqual(days.map((date) => ({ date, ...datasetSeed.assistant.get(date) })));
    // Stacks have real heights: the busiest day is the tallest, an empty day has none.
    const busiest = bands.reduce((a, b) => (b.answered + b.unanswered > a.answered + a.unanswered ? b : a));
    expect(busiest.height).toBe(Math.max(...bands.map((b) => b.height)));
    expect(busiest.height).toBeGreaterThan(50);
    expect(Math.min(...bands.map((b) => b.height))).toBe(0);
    await page.locator('#assistant-chart svg .hit').nth(29).hover();
    await expect.poll(() => page.locator('#tooltip').isVisible()).toBe(true);
    expect(await page.locator('#tooltip').innerText()).toMatch(/Unanswered[\s\S]*Answered/);
  });

  it('draws feedback per day stacked helpful over not helpful, unrated in the tooltip', async () => {
    const page = await seededDashboard();
    await page.waitForSelector('#feedback-chart svg .bar-helpful');
    const days = [...datasetSeed.feedback.keys()];
    expect(await page.locator('#feedback-chart svg .bar-helpful').count()).toBe(days.length);
    expect(await page.locator('#feedback-chart svg .bar-not-helpful').count()).toBe(days.length);
    expect(await page.locator('#feedback-chart svg .bar-missing').count()).toBe(30 - days.length);
    const values = await page.locator('#feedback-chart svg .band:has(.bar-helpful)').evaluateAll((els) =>
      els.map((e) => [Number(e.querySelector('.bar-helpful')?.getAttribute('data-value')), Number(e.querySelector('.bar-not-helpful')?.getAttribute('data-value'))]),
    );
    expect(values).toEqual(days.map((d) => [datasetSeed.feedback.get(d)!.helpful, datasetSeed.feedback.get(d)!.notHelpful]));
    await page.locator('#feedback-chart svg .hit').nth(29).hover();
    await expect.poll(() => page.locator('#tooltip').isVisible()).toBe(true);
    const yesterday = datasetSeed.feedback.get(days.at(-1)!)!;
    expect(await page.locator('#tooltip').innerText()).toMatch(new RegExp(`Not helpful\\s+${yesterday.notHelpful}[\\s\\S]*Helpful\\s+${yesterday.helpful}[\\s\\S]*Unrated\\s+${yesterday.unrated}`));
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-datasets.png'), fullPage: true });
  });

  it('lists every dataset with its last complete window, lag, rows, failed windows and findings', async () => {
    const page = await seededDashboard();
    await page.waitForSelector('#freshness tbody tr');
    const feedback = page.locator('#freshness tbody tr[data-dataset="feedback"]');
    const cells = await feedback.locator('td').allInnerTexts();
    const yesterday = datasetSeed.feedback.get([...datasetSeed.feedback.keys()].at(-1)!)!;
    expect(cells[2]).toBe('0 d');
    expect(cells[3]).toBe(String(yesterday.helpful + yesterday.notHelpful + yesterday.unrated));
    expect(cells[4]).toBe('1');
    expect(cells[5]).toBe('invalid text 2');
    expect(await page.locator('#freshness tbody tr[data-dataset="assistant"] .finding').innerText()).toBe('cursor restarted 1');
    expect(await page.locator('#freshness tbody tr[data-dataset="visitors"] td').nth(5).innerText()).toBe('none');
    // Enabled (by the worker's settings) and never exported.
    expect(await page.locator('#freshness tbody tr[data-dataset="searches"] td').nth(1).innerText()).toBe('none yet');
  });

  it("shows the running worker and the budget it uses, not the dashboard's own", async () => {
    const page = await openPage(dashboard.browserUrl);
    await page.waitForSelector('#installation .process');
    expect(await page.locator('#installation .process').count()).toBe(1);
    expect(await page.locator('#installation .process').innerText()).toMatch(/worker[\s\S]*pid 4242 on worker-host[\s\S]*workers: export/);
    expect(await page.locator('#installation dd[data-setting="Analytics budget"]').innerText()).toBe('7/1m');
    expect(await page.locator('#installation dd[data-setting="Projects"]').innerText()).toBe(seed.projectId);
    expect(await page.locator('#installation [data-notice="heartbeat-late"]').count()).toBe(0);
    await page.close();
  });

  it('says when a listed process has missed its heartbeat (killed, its record not lapsed yet)', async () => {
    // A record as a process on another machine, killed 2 s after its last refresh, leaves it: refreshed
    // every 100 ms, 60 s to live (one on this machine drops out at once: status-installation.test).
    const worker = describeProcess('worker', loadConfig({ MINTPIPE_PROJECTS: seed.projectId }), { queues: ['prompts'], scheduler: false });
    const key = `${stack.prefix}:installation:gone-host:5151:dead0000`;
    const setAt = Date.now();
    await stack.redis.set(key, JSON.stringify({ ...worker, pid: 5151, host: 'gone-host', pidSpace: 'gone-host-boot/pid:[1]', refresh: { everyMs: 100, ttlMs: 60_000 } }), 'PX', 58_000);
    try {
      const page = await openPage(dashboard.browserUrl);
      await page.waitForSelector('#installation [data-notice="heartbeat-late"]');
      expect(await page.locator('#installation .process').count()).toBe(2);
      // 2 s at the set, plus however long the page took to ask (a loaded machine: seconds).
      const shown = Number(/no heartbeat for (\d+)s: it may have stopped/.exec(await page.locator('#installation .process', { hasText: 'pid 5151' }).innerText())?.[1]);
      expect(shown).toBeGreaterThanOrEqual(2);
      expect(shown).toBeLessThanOrEqual(2 + Math.ceil((Date.now() - setAt) / 1000));
      expect(await page.locator('#installation .process', { hasText: 'pid 4242' }).locator('[data-notice]').count()).toBe(0);
      await page.close();
    } finally {
      await stack.redis.del(key);
    }
  });

  it('switches the chart to 90 days', async () => {
    const page = await openPage(dashboard.browserUrl);
    await page.click('.segmented button[data-days="90"]');
    await expect.poll(() => page.locator('#chart svg .bar-missing').count()).toBe(90 - seed.days.length);
    expect(await page.locator('#chart svg .bar-total').count()).toBe(seed.days.length);
    expect(page.url()).toContain('days=90');
    await page.close();
  });

  it('fills the top pages, export runs and prompt batch panels', async () => {
    // A batch whose batch job gave up: the warehouse has nothing of it, Redis says why.
    const deps = { redis: stack.redis, queue: stack.source.queue(QUEUE_NAMES.prompts), prefix: stack.source.config.queuePrefix };
    const stuck = await submitBatch(deps, [{ projectId: 'acme-docs', jobId: 'job-9', prompt: 'never started' }]);
    await new PromptStore(stack.redis, stack.source.config.queuePrefix).recordStartFailure(stuck.batchId, { reason: 'its job crashed 8 times', atMs: Date.now() });
    const page = await openPage(dashboard.browserUrl);
    await page.waitForSelector('#pages tbody tr');
    expect(await page.locator('#pages tbody tr').count()).toBe(10);
    // Default window: the newest, here the week; its busiest page comes first.
    expect(await page.locator('#pages tbody tr').first().locator('.path').innerText()).toBe(seed.week.top.path);

    // The 30 newest runs of every dataset; the visitors run that failed an hour ago among them.
    expect(await page.locator('#runs tbody tr').count()).toBe(30);
    expect(await page.locator('#runs .badge.failed').count()).toBeGreaterThanOrEqual(1);
    expect(await page.locator('#runs').innerText()).toMatch(/total invariant/);
    expect(await page.locator('#runs').innerText()).toMatch(/feedback · acme-docs[\s\S]*assistant · acme-docs|assistant · acme-docs[\s\S]*feedback · acme-docs/);

    expect(await page.locator('#batches .batch').count()).toBe(1);
    expect(await page.locator('#batches .problem').innerText()).toMatch(new RegExp(`Batch ${stuck.batchId} did not start \\(1 prompts[\\s\\S]*its job crashed 8 times[\\s\\S]*prompts recover ${stuck.batchId}`));
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
    const page = await openPage(emptyDashboard.browserUrl);
    expect(await page.locator('#chart .empty').innerText()).toMatch(/No exports in the warehouse yet[\s\S]*mintpipe export/);
    expect(await page.locator('#runs .empty').innerText()).toMatch(/No export runs yet/);
    expect(await page.locator('#batches .empty').innerText()).toMatch(/No prompt batches yet[\s\S]*prompts send/);
    expect(await page.locator('#pages .empty').innerText()).toMatch(/No windows/);
    expect(await page.locator('#assistant-chart .empty').innerText()).toMatch(/No assistant exports yet/);
    expect(await page.locator('#feedback-chart .empty').innerText()).toMatch(/No feedback exports yet/);
    // Nothing runs on its Redis prefix: it says so, and shows the settings it would use.
    expect(await page.locator('#installation .empty').innerText()).toMatch(/Nothing running/);
    expect(await page.locator('#installation dd[data-setting="Analytics budget"]').innerText()).toBe('100/1h');
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-empty.png'), fullPage: true });
    await page.close();
  });

  it('opens with ?token= once, then works from the cookie with the token gone from the address bar', async () => {
    // By the name localhost: a browser keeps cookies per host, not per port, and this dashboard's
    // cookie (of the user's token) must not replace the generated token's the other pages use.
    const url = tokenDashboard.url.replace('127.0.0.1', 'localhost');
    const page = await openPage(`${url}/?token=${TOKEN}#days=30`);
    expect(page.url()).not.toContain(TOKEN);
    await page.waitForSelector('#chart svg .bar-total');
    expect(await page.locator('#chart svg .bar-total').count()).toBe(seed.days.length);
    expect(await page.content()).not.toContain(TOKEN);
    await page.goto(`${url}/queues`);
    await expect.poll(() => page.locator('body').innerText(), { timeout: 20_000 }).toMatch(/export[\s\S]*prompts|prompts[\s\S]*export/);
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-queues.png') });
    await page.close();
  });

  it('ran without script errors or content security policy violations', () => {
    expect(pageErrors).toEqual([]);
  });
});
