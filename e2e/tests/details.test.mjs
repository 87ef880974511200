// Issue 15, point 10: the tournament forbidden-move option, an invitation that asks first,
// analysis in one sign convention, the last-move mark with numbers, the end-of-game summary,
// computer-vs-computer paused and slowed, notices that do not go stale, and "My games".
import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { newGame, clickPoint, waitPlayed, waitIdle, status, playedCount } from './harness.mjs';
import { openApp, closeApp, watchPage, play as playMoves, message as messageOf, assertNoProblems } from './harness.mjs';

let server, browser, page;

before(async () => ({ server, browser, page } = await openApp()));
afterEach(assertNoProblems);
after(() => closeApp({ server, browser }));

const play = (moves, p = page) => playMoves(p, moves);
const message = () => messageOf(page);

test('the new-game dialog offers the tournament rule: a forbidden move loses', async () => {
  // A fresh page with no game opens the dialog by itself.
  if (!(await page.locator('#new-game-dialog').evaluate((d) => d.open))) await page.click('#new-game-button');
  await page.check('input[name=opponent][value=friend]');
  await page.selectOption('select[name=rule]', 'freestyle');
  assert.equal(await page.isVisible('select[name=forbidden]'), false, 'only under renju');
  await page.selectOption('select[name=rule]', 'renju');
  await page.selectOption('select[name=size]', '15');
  await page.selectOption('select[name=opening]', 'free');
  await page.selectOption('select[name=clock]', 'none');
  await page.selectOption('select[name=forbidden]', 'lose');
  await page.click('#start');
  await page.waitForFunction(() => !document.getElementById('new-game-dialog').open);
  await waitIdle(page);
  await play(['h8', 'a1', 'i8', 'a15', 'j7', 'o1', 'j6', 'o15']);
  await page.waitForSelector('#board [data-forbidden="j8"]');
  // Played, it stands and loses.
  await play(['j8']);
  assert.equal(await status(page), 'White wins: black played a forbidden double-three');
  // The choice is kept for the next game, and friendly play is one choice away.
  await page.click('#new-game-button');
  assert.equal(await page.inputValue('select[name=forbidden]'), 'lose');
  await page.selectOption('select[name=forbidden]', 'refuse');
  await page.selectOption('select[name=rule]', 'freestyle');
  await page.click('#start');
  await page.waitForFunction(() => !document.getElementById('new-game-dialog').open);
  await waitIdle(page);
});

test('whoever opens an invitation is asked before being seated, and gives a name', async () => {
  const game = await page.evaluate(async () => (await fetch('/api/online', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Host', listed: false }) })).json());
  const guest = watchPage(await browser.context.newPage());
  await guest.goto(`${server.url}/#online=${game.id}`);
  await guest.waitForSelector('#join-dialog[open]');
  // Watching takes no seat.
  await guest.click('#join-watch');
  await guest.waitForFunction(() => document.getElementById('online-role').textContent === 'Watching');
  let s = await guest.evaluate(async (id) => (await fetch(`/api/online/${id}`)).json(), game.id);
  assert.equal(s.seats[1].taken, false);
  // Back through the link: asked again; this time a player, named.
  await guest.reload();
  await guest.waitForSelector('#join-dialog[open]');
  await guest.fill('#join-name', 'Zoe');
  await guest.click('#join-play');
  await guest.waitForFunction(() => document.getElementById('online-role').textContent === 'You are white');
  s = await guest.evaluate(async (id) => (await fetch(`/api/online/${id}`)).json(), game.id);
  assert.equal(s.seats[1].name, 'Zoe');
  await guest.close();
});

test('analysis: the headline and every line give black\'s figure, lines best first', async () => {
  await page.goto(server.url + '/');
  await newGame(page, { opponent: 'friend' });
  // White to move, black stands better: the side to move's scores would be negative.
  await play(['h8', 'a1', 'i8', 'a15', 'j9']);
  await page.evaluate(() => { document.getElementById('analysis-panel').open = true; });
  await page.selectOption('#multipv', '3');
  await page.click('#analyse');
  await page.waitForFunction(() => document.querySelectorAll('#pv-list li').length >= 2);
  await waitIdle(page);
  const head = await page.textContent('#eval-text');
  const lines = await page.$$eval('#pv-list li', (l) => l.map((e) => e.textContent));
  const figure = (t) => {
    const m = /(?:([+-]?\d+) for black|(Black|White) wins in (\d+))/.exec(t);
    assert.ok(m, `no figure for black in "${t}"`);
    return m[1] !== undefined ? Number(m[1]) : (m[2] === 'Black' ? 1e6 - Number(m[3]) : -1e6 + Number(m[3]));
  };
  assert.equal(figure(lines[0]), figure(head), `${head} / ${lines[0]}`);
  // White to move: white's best first, so black's figure does not fall... it rises.
  const values = lines.map(figure);
  for (let i = 1; i < values.length; i++) assert.ok(values[i] >= values[i - 1], values.join(' '));
});

test('the last-move mark stays with move numbers on', async () => {
  await newGame(page, { opponent: 'friend' });
  await play(['h8']);
  await page.check('#opt-numbers');
  assert.equal(await page.locator('#last-move').count(), 1);
  await play(['h9']);
  assert.equal(await page.getAttribute('#last-move', 'cy'), String(6 * 40));
  await page.uncheck('#opt-numbers');
  assert.equal(await page.locator('#last-move').count(), 1);
});

test('a finished game is summed up: moves, time, undos used', async () => {
  await newGame(page, { opponent: 'friend' });
  await play(['h8', 'h9', 'a1']);
  await page.click('#undo');
  await waitPlayed(page, 2);
  assert.equal(await page.isVisible('#summary'), false);
  await play(['i8', 'i9', 'j8', 'j9', 'k8', 'k9', 'l8']);
  assert.equal(await status(page), 'Black wins: five in a row');
  assert.match(await page.textContent('#summary'), /^9 moves in \d+ (s|min \d+ s); 1 undo used\.$/);
});

test('computer against computer can be paused, slowed and resumed', async () => {
  await newGame(page, { opponent: 'computers', level: 'beginner' });
  await page.waitForFunction(() => document.querySelectorAll('#moves li').length >= 2, null, { timeout: 60000 });
  assert.equal(await page.isVisible('#pause'), true);
  await page.click('#pause');
  await waitIdle(page);
  await page.waitForFunction(() => /^Paused/.test(document.getElementById('status').textContent));
  const n = await playedCount(page);
  // Nothing is played while paused (however long one waits; a second is enough to see).
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(await playedCount(page), n);
  await page.selectOption('#speed', '1500');
  // A reload keeps the pause and the speed, as it keeps the page's other settings.
  await page.reload();
  await page.waitForFunction((k) => document.querySelectorAll('#moves li').length === k, n);
  await page.waitForFunction(() => /^Paused/.test(document.getElementById('status').textContent));
  assert.equal(await page.textContent('#pause'), 'Resume');
  assert.equal(await page.inputValue('#speed'), '1500');
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(await playedCount(page), n);
  await page.click('#pause');
  await page.waitForFunction((k) => document.querySelectorAll('#moves li').length > k, n, { timeout: 60000 });
  await newGame(page, { opponent: 'friend' });
});

test('a notice about an earlier position does not stay once it changes', async () => {
  await newGame(page, { opponent: 'friend' });
  await play(['h8', 'h9']);
  await page.click('#undo');
  await waitPlayed(page, 1);
  assert.equal(await message(), 'Move taken back.');
  // Another tab plays: the notice is stale.
  const other = watchPage(await browser.context.newPage());
  await other.goto(server.url + '/');
  await other.waitForFunction(() => document.querySelectorAll('#moves li:not(.future)').length === 1);
  await play(['g9'], other);
  await waitPlayed(page, 2);
  assert.equal(await message(), '');
  await other.close();
});

test('My games lists finished games, which open for replay and stay as they were', async () => {
  await newGame(page, { opponent: 'friend' });
  await play(['h8', 'h9', 'i8', 'i9', 'j8', 'j9', 'k8', 'k9', 'l8']);
  const won = await page.evaluate(() => JSON.parse(localStorage.getItem('tengen.game')));
  await newGame(page, { opponent: 'friend' });
  await page.click('#games-button');
  await page.waitForSelector(`#games tr[data-id="${won}"]`);
  const row = page.locator(`#games tr[data-id="${won}"]`);
  assert.match(await row.textContent(), /Black wins: five in a row/);
  await row.locator('button').click();
  await page.waitForFunction(() => document.getElementById('status').textContent === 'Black wins: five in a row');
  assert.equal(await playedCount(page), 9);
  await page.click('#first');
  await waitPlayed(page, 0);
  assert.match(await status(page), /^Replay: move 0 of 9/);
  await page.click('#last');
  await waitPlayed(page, 9);
  assert.equal(await status(page), 'Black wins: five in a row');
});
