// Online play on two nodes of one site (one PostgreSQL database and one Redis bus, which
// scripts/test starts): Alice makes a game in her browser on node A, Bob joins it through node
// B, Carol watches on node B, and the game is played to its end in the real page.
import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { startServer, startBrowsers, clickPoint, watchPage, assertNoProblems } from './harness.mjs';

const admin = process.env.TENGEN_TEST_POSTGRES;
const bus = process.env.TENGEN_TEST_REDIS;
const skip = admin && bus ? false : 'no PostgreSQL and Redis to run on (scripts/test starts both)';

let nodeA, nodeB, browsers;
const WAIT = { timeout: 20000 };

before(async () => {
  if (skip) return;
  const name = `tengen_e2e_${randomBytes(6).toString('hex')}`;
  execFileSync('psql', [admin, '-qc', `CREATE DATABASE ${name}`]);
  const database = admin.replace(/\/[^/]*$/, `/${name}`);
  const node = (id) => startServer({ args: ['--database', database, '--bus', bus, '--node', id, '--engine-threads', '1'] });
  nodeA = await node('a');
  nodeB = await node('b');
  browsers = await startBrowsers();
});

afterEach(assertNoProblems);

after(async () => {
  if (browsers) await browsers.stop();
  if (nodeA) await nodeA.stop();
  if (nodeB) await nodeB.stop();
});

async function openPage() {
  const page = watchPage(await (await browsers.newContext()).newPage());
  page.on('dialog', (d) => d.accept());
  return page;
}

async function waitText(page, id, re) {
  await page.waitForFunction(([i, src]) => new RegExp(src).test(document.getElementById(i).textContent), [id, re.source], WAIT)
    .catch(async (e) => { throw new Error(`#${id} never matched ${re}: it reads "${await page.textContent('#' + id)}" (${e.message})`); });
}

async function waitStones(page, n) {
  await page.waitForFunction((k) => document.querySelectorAll('#stones circle').length === k, n, WAIT);
}

test('players and a spectator on two nodes play one game to its end', { skip }, async () => {
  const [alice, bob, carol] = [await openPage(), await openPage(), await openPage()];
  await alice.goto(nodeA.url + '/');
  // The new-game dialog greets a first visit.
  if (!(await alice.locator('#new-game-dialog').evaluate((d) => d.open))) await alice.click('#new-game-button');
  await alice.check('input[name=opponent][value=online]');
  await alice.selectOption('select[name=rule]', 'freestyle');
  await alice.selectOption('select[name=color]', 'black');
  await alice.fill('input[name=player]', 'Alice');
  await alice.click('#start');
  await alice.waitForFunction(() => /#online=/.test(document.getElementById('invite-link').value), null, WAIT);
  const invite = await alice.inputValue('#invite-link');
  assert.ok(invite.startsWith(nodeA.url), invite);
  // Bob and Carol follow the same link on the other node.
  const onB = invite.replace(nodeA.url, nodeB.url);
  await bob.goto(onB);
  await bob.waitForSelector('#join-dialog[open]', WAIT);
  await bob.fill('#join-name', 'Bob');
  await bob.click('#join-play');
  await waitText(bob, 'online-role', /^You are white$/);
  await waitText(alice, 'seat-second', /Bob/);
  // Both seats are taken: she watches.
  await carol.goto(onB);
  await waitText(carol, 'online-role', /^Watching$/);
  await waitText(alice, 'spectators', /^1 watching$/);

  const moves = ['h8', 'h9', 'i8', 'i9', 'j8', 'j9', 'k8', 'k9', 'l8'];
  for (const [i, at] of moves.entries()) {
    await waitText(i % 2 ? bob : alice, 'online-status', /^Your move/);
    await clickPoint(i % 2 ? bob : alice, at);
    for (const p of [alice, bob, carol]) await waitStones(p, i + 1);
  }
  for (const p of [alice, bob, carol]) await waitText(p, 'online-status', /^Black wins: five in a row$/);
  // Node B's statistics see the game node A runs, its nine moves and its three connections.
  // Nodes report to each other every second, so B's figures may lag A's for a moment: the
  // test waits for them, as a reader of the page would.
  let stats;
  for (const deadline = Date.now() + 15000; ;) {
    stats = await (await fetch(nodeB.url + '/api/online/stats')).json();
    if ((stats.connections >= 3 && stats.moves >= moves.length) || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.ok(stats.connections >= 3 && stats.moves >= moves.length, JSON.stringify(stats));
});
