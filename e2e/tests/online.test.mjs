// Online play between people: three separate browser contexts (their own localStorage, like
// three people): Alice creates a game, Bob joins through the invitation link, Carol watches.
import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, startBrowsers, clickPoint, screenshotPath, watchPage, assertNoProblems, expectRefusal, expectProblem } from './harness.mjs';

let server, browsers, alice, bob, carol;
let firstId = null;

const WAIT = { timeout: 15000 };

async function openPage() {
  const context = await browsers.newContext();
  const page = watchPage(await context.newPage());
  page.on('dialog', (d) => d.accept());
  return page;
}

before(async () => {
  server = await startServer();
  browsers = await startBrowsers();
  alice = await openPage();
  bob = await openPage();
  carol = await openPage();
});

afterEach(assertNoProblems);

after(async () => {
  if (browsers) await browsers.stop();
  if (server) await server.stop();
});

const text = async (page, id) => ((await page.textContent('#' + id)) || '').trim();
const stones = (page) => page.evaluate(() => document.querySelectorAll('#stones circle').length);
const hashId = (page) => (new URL(page.url()).hash.match(/^#online=(.+)$/) || [])[1];

async function waitText(page, id, re) {
  await page.waitForFunction(([i, src]) => new RegExp(src).test(document.getElementById(i).textContent), [id, re.source], WAIT)
    .catch(async (e) => { throw new Error(`#${id} never matched ${re}: it reads "${await text(page, id)}" (${e.message})`); });
}

async function waitStones(page, n) {
  await page.waitForFunction((k) => document.querySelectorAll('#stones circle').length === k, n, WAIT)
    .catch(async () => { throw new Error(`expected ${n} stones, the page shows ${await stones(page)}`); });
}

// Plays `at` on `page` and waits until all three pages show `n` stones.
async function play(page, at, n) {
  await clickPoint(page, at);
  for (const p of [alice, bob, carol]) await waitStones(p, n);
}

async function createOnline(page, { name, color = 'black', clock = 'none', rule = 'freestyle', opening = 'free', forbidden = 'refuse' }) {
  const dialog = page.locator('#new-game-dialog');
  if (!(await dialog.evaluate((d) => d.open))) await page.click('#new-game-button');
  await page.check('input[name=opponent][value=online]');
  assert.equal(await page.isVisible('select[name=color]'), true);
  assert.equal(await page.isVisible('input[name=listed]'), true);
  assert.equal(await page.isVisible('select[name=level]'), false);
  await page.selectOption('select[name=rule]', rule);
  if (rule === 'renju') await page.selectOption('select[name=forbidden]', forbidden);
  await page.selectOption('select[name=opening]', opening);
  await page.selectOption('select[name=size]', '15');
  await page.selectOption('select[name=clock]', clock);
  await page.selectOption('select[name=color]', color);
  await page.fill('input[name=player]', name);
  await page.check('input[name=listed]');
  // The link field still names the page's previous online game, if any: wait for a new one.
  const before = await page.inputValue('#invite-link');
  await page.click('#start');
  await page.waitForFunction((old) => {
    const link = document.getElementById('invite-link').value;
    return /#online=/.test(link) && link !== old;
  }, before, WAIT);
  return page.inputValue('#invite-link');
}

test('two people play online through the invitation link while a third watches', async () => {
  await alice.goto(server.url + '/');
  const invite = await createOnline(alice, { name: 'Alice', clock: 'total' });
  firstId = hashId(alice);
  assert.ok(firstId, `the page's address names the game: ${alice.url()}`);
  assert.equal(invite, `${server.url}/#online=${firstId}`);
  await waitText(alice, 'online-role', /^You are black$/);
  await waitText(alice, 'online-status', /^Waiting for an opponent to join$/);
  assert.equal(await alice.isVisible('#copy-invite'), true);
  assert.equal(await stones(alice), 0);

  // Bob played a local game before (so the page remembers his name), then follows the link.
  await bob.goto(server.url + '/');
  await bob.check('input[name=opponent][value=friend]');
  await bob.fill('input[name=player]', 'Bob');
  await bob.click('#start');
  await bob.waitForFunction(() => document.getElementById('status').textContent === 'Black to move');
  await bob.goto(invite);
  // He is asked before taking the seat, his name offered.
  await bob.waitForSelector('#join-dialog[open]');
  assert.equal(await bob.inputValue('#join-name'), 'Bob');
  await bob.click('#join-play');
  await waitText(bob, 'online-role', /^You are white$/);
  await waitText(bob, 'online-status', /^Black to move \(Alice\)$/);
  await waitText(alice, 'online-status', /^Your move \(black\)$/);
  // "Send the invitation link" is done with: Alice reads who came, Bob that he is in.
  await waitText(alice, 'online-message', /^Bob joined the game\.$/);
  await waitText(bob, 'online-message', /^You joined the game\.$/);
  await waitText(alice, 'seat-second', /Bob/);
  await waitText(bob, 'seat-first', /Alice/);

  // Carol opens the same link: both seats are taken (her join is refused), so she watches.
  expectRefusal(carol, 409);
  await carol.goto(invite);
  await waitText(carol, 'online-role', /^Watching$/);
  await waitText(carol, 'online-status', /^Black to move \(Alice\)$/);
  assert.equal(await carol.isVisible('#online-takeback'), false);
  await waitText(alice, 'spectators', /^1 watching$/);

  // Black's clock runs from the moment both seats are taken (a player who sits still loses on
  // time instead of holding the game).
  await alice.waitForSelector('#seat-first .seat-clock.running', WAIT);
  const before = await alice.evaluate(async (id) => (await (await fetch(`/api/online/${id}`)).json()).running, firstId);
  assert.equal(before, 'first');

  await play(alice, 'h8', 1);
  // Then the clock of the player to move counts down between frames.
  await alice.waitForSelector('#seat-second .seat-clock.running', WAIT);
  const t1 = await alice.textContent('#seat-second .seat-clock');
  assert.match(t1, /^(9|10):\d\d$/);
  await alice.waitForFunction((t) => document.querySelector('#seat-second .seat-clock').textContent !== t, t1, WAIT);
  // Black's time, less what the first stone took, plus the 5 s increment.
  assert.match(await alice.textContent('#seat-first .seat-clock'), /^(9:[0-5]\d|10:0[0-5])$/);
  await play(bob, 'h9', 2);
  // Not his turn: Bob's click is refused on the page and nothing is played.
  await clickPoint(bob, 'a1');
  await waitText(bob, 'online-message', /Not your turn/);
  assert.equal(await stones(bob), 2);
  await play(alice, 'i8', 3);
  // Alice moved: it is Bob's turn now, and the page no longer says otherwise.
  assert.equal(await text(bob, 'online-message'), '');
  await play(bob, 'i9', 4);

  // A draw offer declined: the offer shows on both sides, then a notice says what happened.
  await alice.click('#online-draw');
  await waitText(bob, 'request-text', /Alice asks for a draw/);
  await bob.click('#request-decline');
  await waitText(alice, 'online-message', /Bob declined the draw/);
  await alice.waitForSelector('#online-request', { state: 'hidden' });
  // A takeback asked and withdrawn.
  await bob.click('#online-takeback');
  await waitText(alice, 'request-text', /Bob asks for a takeback/);
  await bob.click('#request-cancel');
  await waitText(alice, 'online-message', /Bob withdrew the takeback/);
  await alice.waitForSelector('#online-request', { state: 'hidden' });
  assert.equal(await stones(carol), 4);

  // A takeback asked by Alice and accepted by Bob: her move and his reply go, on every page.
  await alice.click('#online-takeback');
  await waitText(bob, 'request-text', /Alice asks for a takeback/);
  assert.equal(await bob.isVisible('#request-accept'), true);
  assert.equal(await bob.isVisible('#request-decline'), true);
  await waitText(alice, 'request-text', /waiting/);
  assert.equal(await alice.isVisible('#request-cancel'), true);
  assert.equal(await alice.isVisible('#request-accept'), false);
  await waitText(carol, 'request-text', /Alice asks for a takeback/);
  assert.equal(await carol.isVisible('#request-accept'), false);
  await bob.click('#request-accept');
  for (const p of [alice, bob, carol]) await waitStones(p, 2);
  // The notices about the game before it ("Bob withdrew the takeback request") went with it.
  for (const p of [alice, bob, carol]) assert.equal(await text(p, 'online-message'), '');
  await waitText(alice, 'online-status', /^Your move \(black\)$/);
  await waitText(carol, 'online-status', /^Black to move \(Alice\)$/);
  assert.equal(await alice.isVisible('#online-request'), false);

  // Chat: the other player and the spectator read it, with the writer's name and role.
  await bob.fill('#chat-input', 'good luck!');
  await bob.click('#chat-send');
  for (const p of [alice, carol]) await waitText(p, 'chat-log', /Bob \(white\): good luck!/);
  await carol.fill('#chat-input', 'what a start');
  await carol.press('#chat-input', 'Enter');
  for (const p of [alice, bob]) await waitText(p, 'chat-log', /\(watching\): what a start/);

  // Alice reloads: the page seats her again from localStorage, and the chat history comes back.
  await alice.reload();
  await waitText(alice, 'online-role', /^You are black$/);
  await waitText(alice, 'online-status', /^Your move \(black\)$/);
  await waitText(alice, 'chat-log', /good luck!/);
  await waitStones(alice, 2);

  for (const [page, at, n] of [[alice, 'i8', 3], [bob, 'i9', 4], [alice, 'j8', 5], [bob, 'j9', 6], [alice, 'k8', 7], [bob, 'k9', 8], [alice, 'l8', 9]]) {
    await play(page, at, n);
  }
  for (const p of [alice, bob, carol]) await waitText(p, 'online-status', /^Black wins: five in a row$/);
  assert.equal(await carol.locator('#win-line').count(), 1);
  assert.equal(await carol.locator('#board .winstone').count(), 5);
  assert.deepEqual(await carol.$$eval('#online-moves li', (l) => l.map((e) => e.textContent)), ['h8', 'h9', 'i8', 'i9', 'j8', 'j9', 'k8', 'k9', 'l8']);
  // After the game: a rematch may be asked; the game's buttons are off.
  assert.equal(await alice.isVisible('#online-rematch'), true);
  assert.equal(await alice.isDisabled('#online-resign'), true);
  await alice.screenshot({ path: screenshotPath('online-game.png') });
});

test('a rematch moves both players and the spectator to a new game with the colours swapped', async () => {
  assert.ok(firstId, 'the first test made a game');
  await alice.click('#online-rematch');
  await waitText(bob, 'request-text', /Alice asks for a rematch/);
  await bob.click('#request-accept');
  for (const p of [alice, bob, carol]) {
    await p.waitForFunction((old) => /^#online=/.test(location.hash) && location.hash !== '#online=' + old, firstId, WAIT);
  }
  const second = hashId(alice);
  assert.notEqual(second, firstId);
  assert.equal(hashId(bob), second);
  assert.equal(hashId(carol), second);
  await waitText(alice, 'online-role', /^You are white$/);
  await waitText(bob, 'online-role', /^You are black$/);
  await waitText(carol, 'online-role', /^Watching$/);
  for (const p of [alice, bob, carol]) await waitStones(p, 0);
  await waitText(bob, 'online-status', /^Your move \(black\)$/);
  await play(bob, 'h8', 1);
  // Bob reloads: his token was copied to the new game, so he is seated again.
  await bob.reload();
  await waitText(bob, 'online-role', /^You are black$/);
  await waitStones(bob, 1);
  await play(alice, 'g7', 2);
  // Bob resigns (after confirming).
  await bob.click('#online-resign');
  for (const p of [alice, bob, carol]) await waitText(p, 'online-status', /White wins/);
});

test('the lobby lists open and live games; joining from it seats the player', async () => {
  const dave = await openPage();
  await dave.goto(server.url + '/');
  await createOnline(dave, { name: 'Dave', color: 'white', rule: 'renju' });
  const daveId = hashId(dave);
  await waitText(dave, 'online-role', /^You are white$/);
  await carol.click('#lobby-button');
  await carol.waitForSelector(`#lobby-open tr[data-id="${daveId}"]`, WAIT);
  const row = carol.locator(`#lobby-open tr[data-id="${daveId}"]`);
  assert.match(await row.textContent(), /Dave/);
  assert.match(await row.textContent(), /renju/);
  await row.getByRole('button', { name: /^Join Dave/ }).click();
  await waitText(carol, 'online-role', /^You are black$/);
  await waitText(dave, 'seat-first', /Anonymous|Carol/);
  await waitText(carol, 'online-status', /^Your move \(black\)$/);
  // Renju: black's forbidden points are marked on every page.
  const moves = [[carol, 'h8'], [dave, 'a1'], [carol, 'i8'], [dave, 'a15'], [carol, 'j7'], [dave, 'o1'], [carol, 'j6'], [dave, 'o15']];
  for (const [i, [page, at]] of moves.entries()) await play2(page, page === carol ? dave : carol, at, i + 1);
  for (const p of [carol, dave]) await p.waitForSelector('#board [data-forbidden="j8"]', WAIT);
  // The game refuses forbidden moves (the dialog's friendly default): Carol clicks j8 and is
  // told so, as in a game in one browser; nobody asks her whether to play it and lose.
  let asked = '';
  carol.removeAllListeners('dialog');
  carol.on('dialog', (d) => { asked = d.message(); d.dismiss(); });
  await clickPoint(carol, 'j8');
  await waitText(carol, 'online-message', /j8 is forbidden to black/i);
  assert.equal(asked, '');
  assert.equal(await stones(carol), 8);
  assert.equal(await stones(dave), 8);
  await waitText(carol, 'online-status', /^Your move \(black\)$/);
  carol.removeAllListeners('dialog');
  carol.on('dialog', (d) => d.accept());
  // Dave leaves: his seat shows how long he has been gone.
  await dave.context().close();
  await waitText(carol, 'seat-second', /gone for \d+ s/);
});

async function play2(page, other, at, n) {
  await clickPoint(page, at);
  for (const p of [page, other]) await waitStones(p, n);
}

test('a swap2 opening online: the first player places three stones, the second takes a colour', async () => {
  const invite = await createOnline(alice, { name: 'Alice', opening: 'swap2' });
  await bob.goto(invite);
  await bob.click('#join-play');
  await waitText(bob, 'online-role', /^You are the second player \(colours not settled yet\)$/);
  await waitText(alice, 'online-role', /^You are the first player \(colours not settled yet\)$/);
  await waitText(alice, 'online-status', /^Place opening stone 1 \(black\)$/);
  await waitText(bob, 'online-status', /^Alice places opening stone 1 \(black\)$/);
  await play2(alice, bob, 'h8', 1);
  await waitText(alice, 'online-status', /^Place opening stone 2 \(white\)$/);
  await play2(alice, bob, 'h9', 2);
  await play2(alice, bob, 'j10', 3);
  await waitText(bob, 'online-status', /^Choose your colour, or place two more stones$/);
  await waitText(alice, 'online-status', /^Bob is choosing a colour$/);
  assert.equal(await alice.isVisible('#online-choice'), false);
  for (const id of ['#online-choose-black', '#online-choose-white', '#online-choose-place-two']) assert.equal(await bob.isVisible(id), true, id);
  await bob.click('#online-choose-black');
  await waitText(bob, 'online-role', /^You are black$/);
  await waitText(alice, 'online-role', /^You are white$/);
  await waitText(alice, 'online-status', /^Your move \(white\)$/);
  assert.equal(await bob.isVisible('#online-choice'), false);
  await play2(alice, bob, 'g7', 4);
  await waitText(bob, 'online-status', /^Your move \(black\)$/);
});

test('after the server restarts, the pages reconnect and the game goes on where it was', async () => {
  // The swap2 game above: four stones, black (Bob) to move.
  await waitStones(alice, 4);
  const { dataDir, port } = server;
  // While the server is down, the pages' reconnections fail.
  for (const p of [alice, bob]) expectProblem(p, /WebSocket|ERR_CONNECTION_REFUSED|ERR_CONNECTION_RESET|ERR_EMPTY_RESPONSE/);
  await server.stop({ keepData: true });
  server = null;
  await waitText(alice, 'online-conn', /^Disconnected: reconnecting in \d+ s$/);
  await waitText(bob, 'online-conn', /^Disconnected|^Connecting/);
  server = await startServer({ dataDir, port });
  for (const p of [alice, bob]) {
    await waitText(p, 'online-conn', /^Connected$/);
    await waitStones(p, 4);
  }
  await waitText(bob, 'online-status', /^Your move \(black\)$/);
  await play2(bob, alice, 'k11', 5);
  await waitText(alice, 'online-status', /^Your move \(white\)$/);
});


test('a player gone past the grace period loses to a claim', async () => {
  const short = await startServer({ args: ['--grace-secs', '1'] });
  try {
    const one = await openPage(), two = await openPage();
    await one.goto(short.url + '/');
    const invite = await createOnline(one, { name: 'Una' });
    await two.goto(invite);
    await two.click('#join-play');
    await waitText(one, 'online-status', /^Your move \(black\)$/);
    assert.equal(await one.isDisabled('#online-claim'), true);
    await play2(one, two, 'h8', 1);
    await two.context().close();
    await waitText(one, 'seat-second', /gone for \d+ s/);
    await one.waitForFunction(() => !document.getElementById('online-claim').disabled, null, WAIT);
    await one.click('#online-claim');
    await waitText(one, 'online-status', /^Black wins/);
    await one.context().close();
  } finally {
    await short.stop();
  }
});

test('under the tournament rule a forbidden move online is played only once confirmed', async () => {
  const one = await openPage(), two = await openPage();
  await one.goto(server.url + '/');
  const invite = await createOnline(one, { name: 'Una', rule: 'renju', forbidden: 'lose' });
  await two.goto(invite);
  await two.click('#join-play');
  await waitText(one, 'online-status', /^Your move \(black\)$/);
  const moves = ['h8', 'a1', 'i8', 'a15', 'j7', 'o1', 'j6', 'o15'];
  for (const [i, at] of moves.entries()) await play2(i % 2 ? two : one, i % 2 ? one : two, at, i + 1);
  await one.waitForSelector('#board [data-forbidden="j8"]', WAIT);
  // Asked, she declines: nothing is played.
  let asked = '';
  one.removeAllListeners('dialog');
  one.on('dialog', (d) => { asked = d.message(); d.dismiss(); });
  await clickPoint(one, 'j8');
  for (let i = 0; i < 50 && !asked; i++) await new Promise((r) => setTimeout(r, 100));
  assert.match(asked, /^J8 is forbidden to black \(double-three\): playing it loses the game/);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(await stones(one), 8);
  // Asked again, she plays it, and loses.
  one.removeAllListeners('dialog');
  one.on('dialog', (d) => d.accept());
  await clickPoint(one, 'j8');
  await waitText(one, 'online-status', /^White wins/);
  await one.context().close();
  await two.context().close();
});

test('a player with no move of their own cannot ask for a takeback', async () => {
  const one = await openPage(), two = await openPage();
  await one.goto(server.url + '/');
  const invite = await createOnline(one, { name: 'Una' });
  await two.goto(invite);
  await two.click('#join-play');
  await waitText(one, 'online-status', /^Your move \(black\)$/);
  for (const p of [one, two]) assert.equal(await p.isDisabled('#online-takeback'), true);
  await play2(one, two, 'h8', 1);
  // Black has a stone to take back; white, who has not played, has nothing.
  await one.waitForFunction(() => !document.getElementById('online-takeback').disabled, null, WAIT);
  await waitText(two, 'online-status', /^Your move \(white\)$/);
  assert.equal(await two.isDisabled('#online-takeback'), true);
  await play2(two, one, 'h9', 2);
  await two.waitForFunction(() => !document.getElementById('online-takeback').disabled, null, WAIT);
  await one.context().close();
  await two.context().close();
});

test('a frame too large for the server is refused in words, and the page does not reconnect by itself', async () => {
  const context = await browsers.newContext();
  // The page's WebSockets, to send on one as a broken or hostile page might.
  await context.addInitScript(() => {
    const Native = window.WebSocket;
    window.__sockets = [];
    window.WebSocket = class extends Native {
      constructor(...args) { super(...args); window.__sockets.push(this); }
    };
  });
  const page = watchPage(await context.newPage());
  page.on('dialog', (d) => d.accept());
  await page.goto(server.url + '/');
  const invite = await createOnline(page, { name: 'Una' });
  await waitText(page, 'online-conn', /^Connected$/);
  const opened = await page.evaluate(() => window.__sockets.length);
  await page.evaluate(() => window.__sockets[window.__sockets.length - 1].send(JSON.stringify({ type: 'chat', text: 'y'.repeat(5000) })));
  await waitText(page, 'online-message', /at most 4096 bytes/);
  await waitText(page, 'online-conn', /^Disconnected by the server$/);
  assert.equal(await page.isVisible('#online-reconnect'), true);
  // No reconnection by itself (the last one was refused: another would only meet the same end).
  await new Promise((r) => setTimeout(r, 2500));
  assert.equal(await page.evaluate(() => window.__sockets.length), opened);
  await waitText(page, 'online-conn', /^Disconnected by the server$/);
  // The player reconnects, and plays on.
  await page.click('#online-reconnect');
  await waitText(page, 'online-conn', /^Connected$/);
  assert.equal(await page.isVisible('#online-reconnect'), false);
  assert.ok(invite);
  await context.close();
});
