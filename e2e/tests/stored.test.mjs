// Issue 15: no game ever stuck, reopened or lost. Games against the computer and between friends
// are stored on the server and pushed to the page; replay never changes a game; a failed action
// changes nothing; clocks start with the first stone; a page with no game stays whole.
import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, startBrowser, newGame, clickPoint, waitPlayed, waitIdle, status, playedCount } from './harness.mjs';
import { openApp, closeApp, watchPage, message as messageOf, assertNoProblems, expectRefusal, expectProblem } from './harness.mjs';

let server, browser, page;
// A generous guard against a hang, never a measure of speed: the master may think for seconds
// on a busy machine.
const LONG = { timeout: 180000 };

before(async () => ({ server, browser, page } = await openApp()));
afterEach(assertNoProblems);
after(() => closeApp({ server, browser }));

const message = (p = page) => messageOf(p);
const gameId = () => page.evaluate(() => localStorage.getItem('tengen.game')).then((v) => JSON.parse(v));
const serverState = (id) => page.evaluate(async (g) => (await fetch(`/api/games/${g}`)).json(), id);

test('defect 1: a reload while the master thinks gets its move without any click', async () => {
  await newGame(page, { opponent: 'computer', level: 'master' });
  await clickPoint(page, 'h8');
  // The move is stored and the master thinks: reload now, and again on a second tab.
  // Once the server has answered (its own status, not the page's guess), or the reply is in.
  await page.waitForFunction(() => !document.body.classList.contains('busy')
    && (/to move \(computer thinking\)/.test(document.getElementById('status').textContent) || document.querySelectorAll('#moves li').length === 2));
  const id = await gameId();
  await page.reload();
  const other = watchPage(await browser.context.newPage());
  await other.goto(server.url + '/');
  for (const p of [page, other]) {
    await p.waitForFunction(() => document.querySelectorAll('#moves li').length === 2 && /^Your move/.test(document.getElementById('status').textContent), null, LONG);
    assert.equal(await p.isVisible('#step'), false, 'no button was needed');
  }
  assert.equal(await gameId(), id);
  // The address a page wrote while the computer thought is a move behind the game: a reload
  // from it still finds the game, not a copy of the position for two players.
  await page.evaluate(() => history.replaceState(null, '', location.hash.replace(/,[^,]*$/, '')));
  assert.match(page.url(), /moves=h8$/);
  await page.reload();
  await page.waitForFunction(() => document.querySelectorAll('#moves li').length === 2 && /^Your move/.test(document.getElementById('status').textContent), null, LONG);
  assert.equal(await gameId(), id);
  // A move on one tab reaches the other one over the game's WebSocket, with the reply.
  await clickPoint(other, 'a1');
  await page.waitForFunction(() => document.querySelectorAll('#moves li').length === 4, null, LONG);
  assert.equal((await page.textContent('#moves li:nth-child(3)')).trim(), 'a1');
  await other.close();
});

test('defect 2: replay never changes a resigned game; undo does not reopen it; continue starts a new game', async () => {
  await newGame(page, { opponent: 'computer', level: 'beginner' });
  await clickPoint(page, 'h8');
  await page.waitForFunction(() => document.querySelectorAll('#moves li').length === 2 && /^Your move/.test(document.getElementById('status').textContent), null, LONG);
  await page.click('#resign');
  await page.waitForFunction(() => document.getElementById('status').textContent === 'White wins: black resigned');
  const id = await gameId();
  assert.equal(await page.isDisabled('#undo'), true);
  await page.click('#back');
  await waitPlayed(page, 1);
  assert.match(await status(page), /^Replay: move 1 of 2/);
  assert.equal(await page.locator('#stones circle').count(), 1);
  await page.click('#last');
  await waitPlayed(page, 2);
  assert.equal(await status(page), 'White wins: black resigned');
  // The server's game is as it was, after a reload too.
  const s = await serverState(id);
  assert.equal(s.status, 'White wins: black resigned');
  assert.equal(s.can_undo, false);
  await page.reload();
  await page.waitForFunction(() => document.getElementById('status').textContent === 'White wins: black resigned');
  // Undo, asked of the server directly, is refused and changes nothing.
  expectRefusal(page, 409);
  const undo = await page.evaluate(async (g) => (await fetch(`/api/games/${g}/undo`, { method: 'POST' })).status, id);
  assert.equal(undo, 409);
  assert.equal((await serverState(id)).status, 'White wins: black resigned');
  // Continue from the first move: a new game; the resigned one stays as it was.
  await page.click('#first');
  await page.click('#forward');
  await waitPlayed(page, 1);
  await page.click('#continue');
  await page.waitForFunction((old) => JSON.parse(localStorage.getItem('tengen.game')) !== old && document.querySelectorAll('#moves li').length === 1, id);
  assert.notEqual(await gameId(), id);
  assert.equal((await serverState(id)).status, 'White wins: black resigned');
  // The computer is to move there, and waits for its button (a position is looked at first).
  await page.click('#step');
  await waitPlayed(page, 2);
  assert.match(await status(page), /^Your move/);
});

test('defect 2: a draw by agreement stays drawn through replay and undo', async () => {
  await newGame(page, { opponent: 'friend' });
  for (const [i, m] of ['h8', 'h9', 'i8'].entries()) { await clickPoint(page, m); await waitPlayed(page, i + 1); }
  await page.click('#draw');
  await page.waitForFunction(() => document.getElementById('status').textContent === 'Draw by agreement');
  assert.equal(await page.isDisabled('#undo'), true);
  for (const b of ['#first', '#forward', '#last']) await page.click(b);
  await waitPlayed(page, 3);
  assert.equal(await status(page), 'Draw by agreement');
  assert.equal((await serverState(await gameId())).status, 'Draw by agreement');
});

test('defect 3: a failed new game or record load leaves the game as it was', async () => {
  await newGame(page, { opponent: 'computer', level: 'beginner' });
  await clickPoint(page, 'h8');
  await page.waitForFunction(() => document.querySelectorAll('#moves li').length === 2 && /^Your move/.test(document.getElementById('status').textContent), null, LONG);
  const id = await gameId();
  const moves = await page.$$eval('#moves li', (l) => l.map((e) => e.textContent));
  // A 4x4 board is refused by the server.
  expectRefusal(page, 400);
  await page.click('#new-game-button');
  await page.check('input[name=opponent][value=friend]');
  await page.selectOption('select[name=size]', 'custom');
  await page.fill('input[name=custom]', '4x4');
  await page.click('#start');
  // The refusal is said in the dialog, which stays open to correct the size.
  await page.waitForFunction(() => document.getElementById('new-game-dialog').open
    && /5 to 100|size|board/i.test(document.getElementById('new-game-error').textContent));
  await waitIdle(page);
  assert.equal(await page.isVisible('#new-game-error'), true);
  assert.equal(await page.inputValue('input[name=custom]'), '4x4');
  // Corrected, the error goes; cancelled, the game shown stays.
  await page.fill('input[name=custom]', '30x30');
  await page.dispatchEvent('input[name=custom]', 'change');
  assert.equal(await page.isVisible('#new-game-error'), false);
  await page.click('#cancel-new');
  assert.equal(await gameId(), id);
  assert.deepEqual(await page.$$eval('#moves li', (l) => l.map((e) => e.textContent)), moves);
  assert.match(await status(page), /^Your move \(black\)/);
  // A record with an illegal move is refused too.
  await page.evaluate(() => { document.getElementById('records-panel').open = true; });
  await page.fill('#paste-text', 'h8 h8');
  await page.click('#paste-load');
  await page.waitForFunction(() => /illegal move/.test(document.getElementById('message').textContent));
  await waitIdle(page);
  assert.equal(await gameId(), id);
  assert.equal(await page.locator('#stones circle').count(), 2);
  // After a reload the same game is there: against the computer, not a two-player copy.
  await page.reload();
  await page.waitForFunction(() => document.querySelectorAll('#moves li').length === 2);
  assert.equal(await gameId(), id);
  assert.match(await status(page), /^Your move \(black\)/);
  const s = await serverState(id);
  assert.equal(s.opponent, 'computer');
});

test('defect 7: a per-move clock waits for the first stone, and a flag shows two readings', async () => {
  await newGame(page, { opponent: 'friend', clock: 'per_move', clockTime: '1' });
  const id = await gameId();
  assert.equal(await page.locator('#clock .clock.running').count(), 0);
  assert.equal((await serverState(id)).clock.running, null);
  assert.equal(await page.textContent('#clock-black'), 'Black 0:01');
  await clickPoint(page, 'h8');
  await waitPlayed(page, 1);
  // White does not move: the flag falls (the page asks the server when the clock reads 0).
  await page.waitForFunction(() => document.getElementById('status').textContent === 'Black wins: white ran out of time', null, LONG);
  assert.equal(await page.textContent('#clock-black'), 'Black 0:01');
  assert.equal(await page.textContent('#clock-white'), 'White 0:00');
  assert.equal(await page.isDisabled('#undo'), true);
});

test('defect 8: with no game, undo and share do nothing wrong, and a broken address does not break the page', async () => {
  const fresh = watchPage(await browser.context.newPage());
  fresh.on('dialog', (d) => d.accept());
  // A damaged address: the page still starts (here with the game it remembers).
  await fresh.goto(server.url + '/#%');
  await fresh.waitForFunction(() => document.getElementById('new-game-dialog').open || document.querySelector('#board #hit'));
  await waitIdle(fresh);
  // No game at all: the page starts with the new-game dialog; cancelled, it shows no game.
  await fresh.evaluate(() => localStorage.removeItem('tengen.game'));
  await fresh.goto(server.url + '/');
  await fresh.waitForFunction(() => document.getElementById('new-game-dialog').open);
  await fresh.click('#cancel-new');
  assert.equal(await fresh.isDisabled('#undo'), true);
  await fresh.evaluate(() => document.getElementById('undo').click());
  assert.doesNotMatch(await message(fresh), /Cannot read/);
  // Nothing to share: the button is off, and a stray click offers no (empty) link.
  assert.equal(await fresh.isDisabled('#share'), true);
  await fresh.evaluate(() => { document.getElementById('records-panel').open = true; document.getElementById('share').click(); });
  await waitIdle(fresh);
  assert.doesNotMatch(await message(fresh), /copied|Copy the link/);
  assert.equal(await fresh.isVisible('#share-link'), false);
  await fresh.close();
});

test('kill -9 during a game against the computer and a friends\' game: after a restart both come back whole', async () => {
  let own = await startServer();
  const tab = watchPage(await browser.context.newPage());
  tab.on('dialog', (d) => d.accept());
  try {
    await tab.goto(own.url + '/');
    // Between friends: three moves.
    await newGame(tab, { opponent: 'friend' });
    for (const [i, m] of ['h8', 'i9', 'j10'].entries()) { await clickPoint(tab, m); await waitPlayed(tab, i + 1); }
    const friends = JSON.parse(await tab.evaluate(() => localStorage.getItem('tengen.game')));
    // Against the master: a move it is thinking about when the server dies.
    await newGame(tab, { opponent: 'computer', level: 'master' });
    await clickPoint(tab, 'h8');
    await tab.waitForFunction(() => !document.body.classList.contains('busy')
      && (/to move \(computer thinking\)/.test(document.getElementById('status').textContent) || document.querySelectorAll('#moves li').length === 2));
    const { dataDir, port } = own;
    // While the server is down, the page's socket fails to reconnect.
    expectProblem(tab, /WebSocket|ERR_CONNECTION_REFUSED|ERR_CONNECTION_RESET|ERR_EMPTY_RESPONSE/);
    await own.kill();
    own = await startServer({ dataDir, port });
    // The page reconnects by itself and hears the master's move; a reload shows the same.
    await tab.waitForFunction(() => document.querySelectorAll('#moves li').length === 2 && /^Your move/.test(document.getElementById('status').textContent), null, LONG);
    await tab.reload();
    await tab.waitForFunction(() => document.querySelectorAll('#moves li').length === 2 && /^Your move \(black\)/.test(document.getElementById('status').textContent), null, LONG);
    // The friends' game is whole too.
    await tab.evaluate((id) => localStorage.setItem('tengen.game', JSON.stringify(id)), friends);
    await tab.goto(own.url + '/');
    await tab.waitForFunction(() => document.querySelectorAll('#moves li').length === 3);
    assert.deepEqual(await tab.$$eval('#moves li', (l) => l.map((e) => e.textContent)), ['h8', 'i9', 'j10']);
    assert.equal(await status(tab), 'White to move');
    await clickPoint(tab, 'a1');
    await waitPlayed(tab, 4);
  } finally {
    await tab.close();
    await own.stop();
  }
});
