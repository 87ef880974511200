// Starts the real `tengen serve` on a free port with a temporary data folder, and Debian's
// Chromium headless through playwright-core.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, existsSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SCREENSHOTS = join(ROOT, 'target', 'screenshots');

export function binary() {
  if (process.env.TENGEN_BIN) return process.env.TENGEN_BIN;
  for (const p of ['target/release/tengen', 'target/debug/tengen']) {
    const f = join(ROOT, p);
    if (existsSync(f)) return f;
  }
  throw new Error('no tengen binary: run cargo build -p tengen first (or set TENGEN_BIN)');
}

// Options (all optional): `dataDir` and `port` to start again where a stopped server was (stop
// it with `{ keepData: true }`), `args` for more command-line options.
export async function startServer({ dataDir = mkdtempSync(join(tmpdir(), 'tengen-e2e-data-')), port = 0, args = [] } = {}) {
  const child = spawn(binary(), ['serve', '--port', String(port), '--data-dir', dataDir, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((ok, fail) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`server did not start: ${out}`)), 30000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/listening on (http:\/\/\S+)/);
      if (m) { clearTimeout(timer); ok(m[1].replace(/\/$/, '')); }
    });
    child.on('exit', (code) => { clearTimeout(timer); fail(new Error(`server exited with ${code}: ${out}`)); });
  });
  return {
    url,
    dataDir,
    port: Number(new URL(url).port),
    // Kills the server with SIGKILL, as a crash would; its data stays for a restart.
    async kill() {
      child.kill('SIGKILL');
      await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.on('exit', r)));
    },
    async stop({ keepData = false } = {}) {
      child.kill('SIGINT');
      await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.on('exit', r)));
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function startBrowser() {
  const executablePath = process.env.CHROMIUM || execFileSync('which', ['chromium']).toString().trim();
  const profile = mkdtempSync(join(tmpdir(), 'tengen-e2e-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--disable-component-update'],
    viewport: { width: 1200, height: 900 },
    acceptDownloads: true,
  });
  return {
    context,
    async stop() { await context.close(); rmSync(profile, { recursive: true, force: true }); },
  };
}

// A test file's usual world: a fresh server, a fresh browser, and one watched page on the app
// that accepts the page's own confirmations. Stop it with `closeApp`.
export async function openApp() {
  const server = await startServer();
  const browser = await startBrowser();
  const page = watchPage(await browser.context.newPage());
  page.on('dialog', (d) => d.accept());
  await page.goto(server.url + '/');
  return { server, browser, page };
}

export async function closeApp({ server, browser } = {}) {
  if (browser) await browser.stop();
  if (server) await server.stop();
}

// One Chromium with separate contexts (each its own localStorage, like separate people).
export async function startBrowsers() {
  const executablePath = process.env.CHROMIUM || execFileSync('which', ['chromium']).toString().trim();
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--disable-component-update'],
  });
  return {
    browser,
    newContext: () => browser.newContext({ viewport: { width: 1200, height: 900 }, acceptDownloads: true }),
    async stop() { await browser.close(); },
  };
}

// ---- a page's problems ------------------------------------------------------------------------
// Every page the tests open is watched: a console error, an uncaught exception, a failed request
// or an answer of 400 and above fails the test that saw it (`assertNoProblems`, run after each
// test), unless that test said it expects it (`expectProblem`).
const watched = new Set();

export function watchPage(page) {
  const w = { problems: [], allowed: [] };
  watched.add(w);
  page.__problems = w;
  const note = (text) => { if (!w.allowed.some((re) => re.test(text))) w.problems.push(text); };
  page.on('console', (m) => { if (m.type() === 'error') note(`console error: ${m.text()} (${m.location().url || 'page'})`); });
  page.on('pageerror', (e) => note(`uncaught exception: ${e.message}`));
  page.on('requestfailed', (r) => note(`request failed: ${r.method()} ${r.url()}: ${(r.failure() || {}).errorText}`));
  page.on('response', (r) => { if (r.status() >= 400) note(`HTTP ${r.status()}: ${r.request().method()} ${r.url()}`); });
  page.on('close', () => { if (!w.problems.length) watched.delete(w); });
  return page;
}

// The current test expects problems matching `re` on `page` (a refused action, a reload that
// aborts a request, a server that is killed).
export function expectProblem(page, re) { page.__problems.allowed.push(re); }

// A refused request: its answer (status `code`) and the console error Chromium logs for it.
export function expectRefusal(page, code) {
  expectProblem(page, new RegExp(`^HTTP ${code}: |status of ${code}\\b`));
}

export function assertNoProblems() {
  const all = [];
  for (const w of watched) { all.push(...w.problems); w.problems = []; w.allowed = []; }
  if (all.length) throw new Error(`the page reported ${all.length} problem(s):\n${all.join('\n')}`);
}

export function screenshotPath(name) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return join(SCREENSHOTS, name);
}

// ---- page helpers ----------------------------------------------------------------------------
export const playedCount = (page) => page.evaluate(() => document.querySelectorAll('#moves li:not(.future)').length);

export async function waitPlayed(page, n, timeout = 30000) {
  await page.waitForFunction((k) => document.querySelectorAll('#moves li:not(.future)').length === k && !document.body.classList.contains('busy'), n, { timeout });
}

export async function waitIdle(page) {
  await page.waitForFunction(() => !document.body.classList.contains('busy'));
}

// Clicks each point in turn, waiting for every stone to be shown before the next.
export async function play(page, moves) {
  let n = await playedCount(page);
  for (const m of moves) {
    await clickPoint(page, m);
    n += 1;
    await waitPlayed(page, n);
  }
}

// The page's notice line, trimmed ('' when empty).
export const message = async (page) => ((await page.textContent('#message')) || '').trim();

export async function newGame(page, { opponent = 'friend', level = 'beginner', rule = 'freestyle', size = '15', custom = '', human = 'black', opening = 'free', clock = 'none', clockTime = '10' } = {}) {
  const dialog = page.locator('#new-game-dialog');
  if (!(await dialog.evaluate((d) => d.open))) await page.click('#new-game-button');
  await page.check(`input[name=opponent][value=${opponent}]`);
  if (opponent !== 'friend') await page.selectOption('select[name=level]', level);
  if (opponent === 'computer') await page.selectOption('select[name=human]', human);
  await page.selectOption('select[name=rule]', rule);
  await page.selectOption('select[name=opening]', opening);
  await page.selectOption('select[name=size]', size);
  if (size === 'custom') await page.fill('input[name=custom]', custom);
  await page.selectOption('select[name=clock]', clock);
  if (clock !== 'none') await page.fill('input[name=clock_time]', clockTime);
  await page.click('#start');
  await page.waitForFunction(() => !document.getElementById('new-game-dialog').open && document.querySelector('#board #hit'));
  await waitIdle(page);
}

// Where point `name` (h8, or x,y on the unbounded board) is on the screen.
export async function pointOnScreen(page, name) {
  return page.evaluate((n) => {
    const svg = document.getElementById('board');
    const h = Number(svg.dataset.height || 0), step = Number(svg.dataset.step);
    let x, y;
    const m = /^([a-z]+)(\d+)$/i.exec(n);
    if (h && m) {
      x = 0;
      for (const ch of m[1].toLowerCase()) x = x * 26 + (ch.charCodeAt(0) - 96);
      x -= 1; y = h - Number(m[2]);
    } else [x, y] = n.split(',').map(Number);
    const p = new DOMPoint(x * step, y * step).matrixTransform(svg.getScreenCTM());
    return { x: p.x, y: p.y, cell: step * svg.getScreenCTM().a };
  }, name);
}

// Clicks point `name`, or `off` of a cell away from it (the nearest point takes the click).
export async function clickPoint(page, name, off = { x: 0, y: 0 }) {
  const p = await pointOnScreen(page, name);
  await page.mouse.click(p.x + off.x * p.cell, p.y + off.y * p.cell);
}

export async function status(page) {
  return (await page.textContent('#status')).trim();
}
