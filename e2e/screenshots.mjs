// The README's screenshots (docs/screenshots/), taken from the real server in Chromium with the
// e2e suite's harness: `scripts/screenshots` runs it.
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { ROOT, startServer, startBrowser, newGame, clickPoint, waitPlayed } from './tests/harness.mjs';

const OUT = join(ROOT, 'docs', 'screenshots');
mkdirSync(OUT, { recursive: true });
const server = await startServer();
const browser = await startBrowser();
try {
  const page = await browser.context.newPage();
  page.on('dialog', (d) => d.accept());
  const shot = (name) => page.screenshot({ path: join(OUT, name) });
  const play = async (moves) => {
    let n = await page.evaluate(() => document.querySelectorAll('#moves li:not(.future)').length);
    for (const m of moves) { await clickPoint(page, m); await waitPlayed(page, ++n); }
  };
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto(server.url + '/');
  // A renju game between friends: white's split three is marked for black, at its gap.
  await newGame(page, { opponent: 'friend', rule: 'renju' });
  await play(['h8', 'g7', 'i9', 'h7', 'j10', 'j7']);
  await page.mouse.move(0, 0);
  await page.evaluate(() => { document.getElementById('moves-panel').open = true; });
  await shot('desktop.png');
  await page.setViewportSize({ width: 390, height: 844 });
  await shot('phone.png');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot('phone-dark.png');
  await page.setViewportSize({ width: 1280, height: 800 });
  await shot('dark.png');
  await page.emulateMedia({ colorScheme: 'light' });
  // 100x100, zoomed in on the stones with the wheel.
  await newGame(page, { opponent: 'friend', size: 'custom', custom: '100x100' });
  await play(['ax50', 'ay51', 'aw49', 'av48', 'ay49', 'ax49', 'aw50', 'az51']);
  await page.click('#zoom-last');
  await page.mouse.move(0, 0);
  await page.waitForTimeout(200);
  await shot('100x100-zoomed.png');
  console.log(`screenshots written to ${OUT}`);
} finally {
  await browser.stop();
  await server.stop();
}
