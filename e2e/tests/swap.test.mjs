import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { newGame, clickPoint, waitPlayed, waitIdle, status, playedCount, screenshotPath } from './harness.mjs';
import { openApp, closeApp, assertNoProblems, expectRefusal } from './harness.mjs';

let server, browser, page;

before(async () => ({ server, browser, page } = await openApp()));
afterEach(assertNoProblems);
after(() => closeApp({ server, browser }));

test('a swap2 opening against the computer is played through the buttons', async () => {
  // The human is the second player: the computer places three stones and the human decides.
  await newGame(page, { opponent: 'computer', level: 'beginner', human: 'white', opening: 'swap2' });
  await waitPlayed(page, 3);
  assert.equal(await status(page), 'Swap2: choose your colour, or place two more stones');
  // The message names the three stones the computer placed, not only its last.
  const [a, b, c] = (await page.$$eval('#moves li', (li) => li.map((l) => l.textContent.toUpperCase())));
  assert.equal(await page.textContent('#message'), `Computer placed ${a}, ${b} and ${c}.`);
  assert.equal(await page.isVisible('#choose-black'), true);
  assert.equal(await page.isVisible('#choose-white'), true);
  assert.equal(await page.isVisible('#choose-place-two'), true);
  // Place two more stones: the status names the colour of each.
  await page.click('#choose-place-two');
  await waitIdle(page);
  assert.equal(await status(page), 'Swap2: place opening stone 4 of 5 (white)');
  assert.equal(await page.isVisible('#choice'), false);
  const taken = new Set(await page.$$eval('#moves li', (li) => li.map((l) => l.textContent)));
  const free = ['a1', 'o1', 'a15', 'o15', 'b2', 'n14'].filter((m) => !taken.has(m));
  await clickPoint(page, free[0]);
  await waitPlayed(page, 4);
  assert.equal(await status(page), 'Swap2: place opening stone 5 of 5 (black)');
  await clickPoint(page, free[1]);
  // The computer chooses a colour (and moves if it took the side to move); then it is our turn.
  await page.waitForFunction(() => /^Your move/.test(document.getElementById('status').textContent) && !document.body.classList.contains('busy'), null, { timeout: 30000 });
  assert.match(await page.textContent('#message'), /Computer chose (black|white)/);
  assert.equal(await page.isVisible('#choice'), false);
  const n = await playedCount(page);
  assert.ok(n === 5 || n === 6, `moves: ${n}`);
  await page.screenshot({ path: screenshotPath('swap2.png') });
});

test('as the first player against the computer, the human takes black after a swap2 place-two', async () => {
  await newGame(page, { opponent: 'computer', level: 'beginner', human: 'black', opening: 'swap2' });
  assert.equal(await status(page), 'Swap2: place opening stone 1 of 3 (black)');
  await clickPoint(page, 'h8');
  await waitPlayed(page, 1);
  assert.equal(await status(page), 'Swap2: place opening stone 2 of 3 (white)');
  await clickPoint(page, 'h9');
  await waitPlayed(page, 2);
  await clickPoint(page, 'j10');
  // The computer chooses: a colour (and perhaps a move), or two more stones and our choice.
  await page.waitForFunction(() => !document.body.classList.contains('busy') && document.querySelectorAll('#moves li:not(.future)').length >= 3 && /Your move|choose your colour/.test(document.getElementById('status').textContent), null, { timeout: 30000 });
  if (await page.isVisible('#choice')) {
    assert.equal(await status(page), 'Swap2: choose your colour');
    assert.equal(await page.isVisible('#choose-place-two'), false);
    await page.click('#choose-black');
    await page.waitForFunction(() => /^Your move \(black\)/.test(document.getElementById('status').textContent) && !document.body.classList.contains('busy'), null, { timeout: 30000 });
  }
  assert.match(await status(page), /^Your move/);
});
