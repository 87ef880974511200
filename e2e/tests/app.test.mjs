import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { newGame, clickPoint, waitPlayed, waitIdle, status, playedCount, screenshotPath } from './harness.mjs';
import { openApp, closeApp, play as playMoves, assertNoProblems, expectRefusal, expectProblem } from './harness.mjs';

let server, browser, page;

before(async () => ({ server, browser, page } = await openApp()));
afterEach(assertNoProblems);
after(() => closeApp({ server, browser }));

const play = (moves) => playMoves(page, moves);

test('a hot-seat game is won with a five', async () => {
  await newGame(page, { opponent: 'friend' });
  assert.equal(await status(page), 'Black to move');
  await play(['h8', 'h9', 'i8', 'i9', 'j8', 'j9', 'k8', 'k9', 'l8']);
  assert.equal(await status(page), 'Black wins: five in a row');
  assert.equal(await page.locator('#win-line').count(), 1);
  assert.equal(await page.locator('#board .winstone').count(), 5);
});

test('a game against the beginner is played to its end', async () => {
  await newGame(page, { opponent: 'computer', level: 'beginner' });
  await clickPoint(page, 'h8');
  await waitPlayed(page, 2);
  // Follow the engine's hints until the game ends (or give up and resign: still an end).
  for (let i = 0; i < 60 && !(await page.evaluate(() => /wins|Draw/.test(document.getElementById('status').textContent))); i++) {
    const n = await playedCount(page);
    await page.click('#hint');
    await page.waitForFunction(() => /^Hint: /.test(document.getElementById('message').textContent));
    await waitIdle(page);
    const hint = (await page.textContent('#message')).match(/^Hint: (\S+)/)[1].replace(/\.$/, '');
    await clickPoint(page, hint);
    await page.waitForFunction((k) => document.querySelectorAll('#moves li:not(.future)').length > k && !document.body.classList.contains('busy'), n, { timeout: 30000 });
  }
  let s = await status(page);
  if (!/wins|Draw/.test(s)) { await page.click('#resign'); await waitIdle(page); s = await status(page); }
  assert.match(s, /Black wins|White wins|Draw/);
  console.log(`# beginner game: ${s} after ${await playedCount(page)} moves`);
  // The result is stored: the results page counts it for the beginner level.
  await page.click('#results-button');
  await page.waitForFunction(() => document.querySelectorAll('#tally tbody tr').length === 4);
  const row = await page.$$eval('#tally tbody tr', (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)).find((c) => c[0] === 'beginner'));
  assert.equal(Number(row[1]) + Number(row[2]) + Number(row[3]), 1, row.join(' '));
  assert.equal(await page.locator('#heroes tbody tr').count(), 4);
  await page.click('#close-results');
});

test('undo and redo against the computer', async () => {
  await newGame(page, { opponent: 'computer', level: 'beginner' });
  await clickPoint(page, 'h8');
  await waitPlayed(page, 2);
  // A corner point: the computer's first reply (near h8, chosen with some chance) cannot be there.
  await clickPoint(page, 'b2');
  await waitPlayed(page, 4);
  await page.click('#undo');
  await waitPlayed(page, 2);
  assert.equal(await page.locator('#moves li.future').count(), 2);
  await page.click('#redo');
  await waitPlayed(page, 4);
  assert.equal(await page.locator('#moves li.future').count(), 0);
  assert.match(await status(page), /Your move \(black\)/);
});

test('a hint marks a point without playing it', async () => {
  await newGame(page, { opponent: 'friend' });
  await play(['h8', 'h9', 'i8', 'i9', 'j8', 'j9']);
  await page.click('#hint');
  await page.waitForSelector('#hint-mark');
  await waitIdle(page);
  const msg = await page.textContent('#message');
  // Black has an open three: the best move makes four (g8 or k8).
  assert.match(msg, /^Hint: (G8|K8)\b/);
  assert.equal(await playedCount(page), 6);
});

test('a record is downloaded and loaded back', async () => {
  await newGame(page, { opponent: 'friend' });
  await play(['h8', 'i9', 'j10', 'g7', 'h10']);
  await page.evaluate(() => { document.getElementById('records-panel').open = true; });
  await page.selectOption('#format', 'psq');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  const file = join(tmpdir(), `tengen-e2e-${Date.now()}.psq`);
  await download.saveAs(file);
  await newGame(page, { opponent: 'friend' });
  assert.equal(await playedCount(page), 0);
  await page.setInputFiles('#open-file', file);
  await waitPlayed(page, 5);
  const moves = await page.$$eval('#moves li', (l) => l.map((e) => e.textContent));
  assert.deepEqual(moves, ['h8', 'i9', 'j10', 'g7', 'h10']);
  // Replay: back to the start and forward again.
  await page.click('#first');
  await waitPlayed(page, 0);
  await page.click('#forward');
  await waitPlayed(page, 1);
  await page.click('#last');
  await waitPlayed(page, 5);
  // A pasted plain list loads too.
  await page.fill('#paste-text', 'h8 h9 i8');
  await page.click('#paste-load');
  await waitPlayed(page, 3);
  // Nothing pasted, an empty file or a record that cannot be read: the game stays as it was,
  // and the message says why (an empty box used to load an empty game in its place).
  const shown = async () => [await page.$$eval('#moves li', (l) => l.map((e) => e.textContent).join(' ')), await status(page)];
  const game = await shown();
  const id = await page.evaluate(() => localStorage.getItem('tengen.game'));
  await page.fill('#paste-text', '  \n ');
  await page.click('#paste-load');
  await page.waitForFunction(() => /^Paste a record first/.test(document.getElementById('message').textContent));
  writeFileSync(file, '');
  await page.setInputFiles('#open-file', file);
  await page.waitForFunction(() => /is empty: there is no record to load/.test(document.getElementById('message').textContent));
  expectRefusal(page, 400);
  await page.fill('#paste-text', 'h8 h8');
  await page.click('#paste-load');
  await page.waitForFunction(() => /move 2 \(h8\): h8 is already occupied/.test(document.getElementById('message').textContent));
  await waitIdle(page);
  assert.deepEqual(await shown(), game);
  assert.equal(await page.evaluate(() => localStorage.getItem('tengen.game')), id);
  assert.equal(await page.locator('#message.error').count(), 1);
});

test('renju marks black\'s forbidden points', async () => {
  await newGame(page, { opponent: 'friend', rule: 'renju' });
  await play(['h8', 'a1', 'i8', 'a15', 'j7', 'o1', 'j6', 'o15']);
  await page.waitForSelector('#board [data-forbidden="j8"]');
  assert.ok(await page.locator('#board .forbidden').count() >= 1);
  // Clicking it is refused with a message, and nothing is played.
  expectRefusal(page, 422);
  await clickPoint(page, 'j8');
  await page.waitForFunction(() => /forbidden/.test(document.getElementById('message').textContent));
  assert.equal(await playedCount(page), 8);
});

test('screenshots of a 15x15 game and a 100x100 game', async () => {
  await newGame(page, { opponent: 'friend', rule: 'renju' });
  await play(['h8', 'i9', 'i8', 'g8', 'j7', 'j9', 'k9', 'h9', 'g9']);
  await page.screenshot({ path: screenshotPath('board-15x15.png') });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: screenshotPath('board-15x15-phone.png') });
  await page.setViewportSize({ width: 1200, height: 900 });
  await newGame(page, { opponent: 'friend', size: 'custom', custom: '100x100' });
  await play(['ax50', 'ay51', 'aw49']);
  await page.screenshot({ path: screenshotPath('board-100x100.png') });
  // Zoomed in on the stones.
  for (let i = 0; i < 6; i++) await page.click('#zoom-in');
  await page.screenshot({ path: screenshotPath('board-100x100-zoomed.png') });
  // The unbounded board grows around the stones; points there are named x,y.
  await newGame(page, { opponent: 'friend', size: 'unbounded' });
  await play(['0,0', '1,1', '-1,0', '-3,-7']);
  // The board reaches five points past the stones: -3,-12 can be played.
  await play(['-3,-12']);
  await page.screenshot({ path: screenshotPath('board-unbounded.png') });
});

test('the keyboard plays and a share link restores the position', async () => {
  await newGame(page, { opponent: 'friend' });
  // The cursor starts at the centre; it names the point and what is on it.
  await page.focus('#cursor');
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'H8, empty');
  await page.keyboard.press('Enter');
  await waitPlayed(page, 1);
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'H8, black, move 1');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'I8, empty');
  await page.keyboard.press('Enter');
  await waitPlayed(page, 2);
  // With confirmation on, the first tap only marks the point.
  await page.check('#opt-confirm');
  await clickPoint(page, 'j8');
  await page.waitForFunction(() => /again/.test(document.getElementById('message').textContent));
  assert.equal(await playedCount(page), 2);
  await clickPoint(page, 'j8');
  await waitPlayed(page, 3);
  await page.uncheck('#opt-confirm');
  await page.click('#undo');
  await waitPlayed(page, 2);
  const url = page.url();
  assert.match(url, /#size=15x15&rule=freestyle&moves=h8,i8$/);
  const other = await browser.context.newPage();
  await other.goto(url);
  await other.waitForFunction(() => document.querySelectorAll('#moves li:not(.future)').length === 2);
  assert.equal((await other.textContent('#status')).trim(), 'Black to move');
  await other.close();
  // Reloading resumes the same game rather than copying it.
  const before = new URL(page.url()).hash;
  await page.reload();
  await page.waitForFunction(() => document.querySelectorAll('#moves li:not(.future)').length === 2);
  assert.equal(new URL(page.url()).hash, before);
});

test('analysis shows the evaluation and the best lines', async () => {
  await newGame(page, { opponent: 'friend' });
  await play(['h8', 'h9', 'i8', 'i9', 'j8', 'j9']);
  await page.evaluate(() => { document.getElementById('analysis-panel').open = true; });
  await page.selectOption('#multipv', '3');
  await page.click('#analyse');
  await page.waitForFunction(() => document.getElementById('eval-text').textContent.length > 0);
  await waitIdle(page);
  const text = await page.textContent('#eval-text');
  assert.match(text, /^(Black wins in \d+|\+\d+ for black) · depth \d+$/);
  assert.ok(await page.locator('#pv-list li').count() >= 1);
  const share = await page.evaluate(() => parseFloat(document.getElementById('evalbar-black').style.width));
  assert.ok(share > 50, `black's share of the bar: ${share}`);
});

test('live analysis deepens while the player thinks and follows each move', async () => {
  await newGame(page, { opponent: 'friend' });
  await play(['h8', 'h9', 'i8', 'i9']);
  await page.evaluate(() => { document.getElementById('analysis-panel').open = true; });
  // The page closes a live stream whenever the position changes: Chromium logs those as
  // aborted requests.
  expectProblem(page, /analysis\/live\?multipv=\d+: net::ERR_ABORTED$/);
  await page.check('#analysis-live');
  const depth = () => page.evaluate(() => {
    const m = document.getElementById('eval-text').textContent.match(/depth (\d+) · live$/);
    return m ? Number(m[1]) : 0;
  });
  await page.waitForFunction(() => / · live$/.test(document.getElementById('eval-text').textContent), null, { timeout: 30000 });
  const first = await depth();
  // Nothing asked again: the same search reports a deeper look by itself.
  await page.waitForFunction((d) => {
    const m = document.getElementById('eval-text').textContent.match(/depth (\d+) · live$/);
    return m && Number(m[1]) > d;
  }, first, { timeout: 30000 });
  // A move: the figures of the old position go, and the analysis starts again on the new one.
  await play(['j8']);
  await page.waitForFunction(() => / · live$/.test(document.getElementById('eval-text').textContent), null, { timeout: 30000 });
  const firsts = await page.$$eval('#pv-list li', (lis) => lis.map((li) => li.textContent.split(' ')[0]));
  assert.ok(firsts.length >= 1);
  for (const m of firsts) assert.ok(!['H8', 'H9', 'I8', 'I9', 'J8'].includes(m), `a line starts on a stone: ${firsts}`);
  // Unticked: the stream is closed and the page stays as it was.
  await page.uncheck('#analysis-live');
  await play(['k8']);
  assert.equal(await playedCount(page), 6);
});

test('the computer plays itself, and a new game stops it', async () => {
  await newGame(page, { opponent: 'computers', level: 'beginner' });
  await page.waitForFunction(() => document.querySelectorAll('#moves li').length >= 4, null, { timeout: 30000 });
  await newGame(page, { opponent: 'friend' });
  await waitIdle(page);
  assert.equal(await playedCount(page), 0);
  assert.equal(await status(page), 'Black to move');
});
