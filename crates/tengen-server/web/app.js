// Tengen's page: talks to the JSON API (docs/api.md) and draws the board as SVG. Online games
// between people are in online.js; they reuse the board drawn here.
import { createOnline, onlineHashId } from './online.js';

const $ = (id) => document.getElementById(id);
const SVGNS = 'http://www.w3.org/2000/svg';
const C = 40; // one grid step in SVG units
const store = {
  get(k, d) { try { const v = localStorage.getItem('tengen.' + k); return v === null ? d : JSON.parse(v); } catch { return d; } },
  set(k, v) { try { localStorage.setItem('tengen.' + k, JSON.stringify(v)); } catch { /* private mode */ } },
};

let state = null;      // the game as the server sent it
let busy = false;      // a request that changes the game is under way
let pending = null;    // [x, y] waiting for the confirming tap
let hintAt = null;     // [x, y] of the last hint
let pvLine = null;     // analysis best line shown on the board
let view = null;       // the SVG viewBox {x, y, w, h}
let geometry = '';     // what the intersections layer was drawn for
let clockTimer = null;
let online = null;     // the online module (online.js); `state.online` while it shows a game
let viewPly = null;    // replay: the number of moves shown, or null for the game as it stands
let humanChose = false; // the human's own swap decision is under way (not the computer's)

// ---- API -------------------------------------------------------------------------------
async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) { opts.headers['content-type'] = 'application/json'; opts.body = JSON.stringify(body); }
  const res = await fetch(path, opts);
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = text; }
  if (!res.ok) throw new Error((data && data.error) || `${res.status} ${res.statusText}`);
  return data;
}

function say(text, error = false) {
  if (state && state.online) { online.say(text, error); return; }
  const m = $('message');
  m.textContent = text || '';
  m.classList.toggle('error', !!error);
}

async function act(fn) {
  if (busy) return;
  busy = true; document.body.classList.add('busy'); $('board').classList.add('busy');
  updateButtons();
  try { await fn(); } catch (e) { say(e.message, true); sound('error'); }
  finally { busy = false; document.body.classList.remove('busy'); $('board').classList.remove('busy'); updateButtons(); }
}

// ---- notation --------------------------------------------------------------------------
function columnLetters(x) { let n = x + 1, s = ''; while (n > 0) { n--; s = String.fromCharCode(97 + (n % 26)) + s; n = Math.floor(n / 26); } return s; }
function pointName(x, y) { return state && state.height ? columnLetters(x) + (state.height - y) : `${x},${y}`; }

// ---- board geometry --------------------------------------------------------------------
function bounds() {
  if (state.width) return { x0: 0, y0: 0, x1: state.width - 1, y1: state.height - 1 };
  // Unbounded: the stones' extent plus a margin, at least 15x15 around the origin.
  let x0 = -7, y0 = -7, x1 = 7, y1 = 7;
  for (const [x, y] of state.points.concat(state.redo_points)) {
    if (x - 5 < x0) x0 = x - 5; if (y - 5 < y0) y0 = y - 5; if (x + 5 > x1) x1 = x + 5; if (y + 5 > y1) y1 = y + 5;
  }
  return { x0, y0, x1, y1 };
}
const bigBoard = () => !!state && (!state.width || state.width > 19 || state.height > 19);

// Coordinates are labelled every `step` lines, at a size that stays legible on big boards.
function labelStep(b) { return Math.max(1, Math.ceil((b.x1 - b.x0 + 1) / 30)); }
function labelScale(b) { return Math.max(1, labelStep(b) * 0.6); }
function fullView(b) {
  const m = C * 1.1 * labelScale(b);
  return { x: b.x0 * C - m, y: b.y0 * C - m, w: (b.x1 - b.x0) * C + 2 * m, h: (b.y1 - b.y0) * C + 2 * m };
}

let userView = false;  // the player zoomed or panned: the view stays where they put it
function setView(v, byUser = false) {
  view = v;
  if (byUser) userView = true;
  $('board').setAttribute('viewBox', `${v.x} ${v.y} ${v.w} ${v.h}`);
  // Stones are drawn only where they can be seen: a new view may show others.
  if (!stonesQueued) { stonesQueued = true; requestAnimationFrame(() => { stonesQueued = false; if (state) drawStones(); }); }
}
let stonesQueued = false;

function el(name, attrs, parent, text) {
  const e = document.createElementNS(SVGNS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

// The board's layers, made once per game: the lines and labels, marks, stones (kept from render
// to render, changed one stone at a time), what is drawn over them, the one hit layer that takes
// every click or tap, and the keyboard's cursor.
function makeLayers() {
  const svg = $('board');
  svg.replaceChildren();
  const defs = el('defs', {}, svg);
  const gb = el('radialGradient', { id: 'g-black', cx: '35%', cy: '35%', r: '65%' }, defs);
  el('stop', { offset: '0%', 'stop-color': '#666' }, gb); el('stop', { offset: '100%', 'stop-color': '#000' }, gb);
  const gw = el('radialGradient', { id: 'g-white', cx: '35%', cy: '35%', r: '70%' }, defs);
  el('stop', { offset: '0%', 'stop-color': '#fff' }, gw); el('stop', { offset: '100%', 'stop-color': '#cfcfcf' }, gw);
  for (const id of ['static', 'marks', 'stones', 'overlay']) el('g', { id }, svg);
  el('circle', { id: 'ghost', r: C * 0.44, visibility: 'hidden' }, svg);
  el('rect', { id: 'hit' }, svg);
  el('circle', { id: 'cursor', r: C * 0.47, tabindex: '0', role: 'button' }, svg);
  stoneEls = new Map(); stonesNumbers = null;
}

function drawStatic(b) {
  const g = $('static');
  g.replaceChildren();
  let d = '';
  for (let x = b.x0; x <= b.x1; x++) d += `M${x * C} ${b.y0 * C}V${b.y1 * C}`;
  for (let y = b.y0; y <= b.y1; y++) d += `M${b.x0 * C} ${y * C}H${b.x1 * C}`;
  el('path', { d, class: 'grid' }, g);
  const stars = el('g', {}, g);
  if (state.width) {
    const w = state.width, h = state.height;
    const sx = w >= 13 ? 3 : 2, sy = h >= 13 ? 3 : 2;
    const pts = [[sx, sy], [w - 1 - sx, sy], [sx, h - 1 - sy], [w - 1 - sx, h - 1 - sy], [(w - 1) >> 1, (h - 1) >> 1]];
    for (const [x, y] of pts) el('circle', { cx: x * C, cy: y * C, r: 4, class: 'star' }, stars);
  } else {
    el('circle', { cx: 0, cy: 0, r: 4, class: 'star' }, stars);
  }
  const coords = el('g', { id: 'coords' }, g);
  const step = labelStep(b), k = 0.75 * labelScale(b), fs = 13 * labelScale(b);
  for (let x = b.x0; x <= b.x1; x += step) {
    const label = state.width ? columnLetters(x).toUpperCase() : String(x);
    el('text', { x: x * C, y: (b.y1 + k) * C, class: 'coord', 'font-size': fs }, coords, label);
    el('text', { x: x * C, y: (b.y0 - k) * C, class: 'coord', 'font-size': fs }, coords, label);
  }
  for (let y = b.y0; y <= b.y1; y += step) {
    const label = state.height ? String(state.height - y) : String(y);
    el('text', { x: (b.x0 - k) * C, y: y * C, class: 'coord', 'font-size': fs }, coords, label);
    el('text', { x: (b.x1 + k) * C, y: y * C, class: 'coord', 'font-size': fs }, coords, label);
  }
  const hit = $('hit');
  for (const [k2, v] of Object.entries({ x: (b.x0 - 0.5) * C, y: (b.y0 - 0.5) * C, width: (b.x1 - b.x0 + 1) * C, height: (b.y1 - b.y0 + 1) * C })) hit.setAttribute(k2, v);
}

// The part of the board on screen, in points, one point of margin around it.
function visibleRange() {
  const r = $('board').getBoundingClientRect();
  let { x, y, w, h } = view;
  if (r.width > 0 && r.height > 0) {
    // The viewBox is fitted inside the element: the longer side shows more than it asks.
    const s = Math.max(w / r.width, h / r.height);
    x -= (r.width * s - w) / 2; y -= (r.height * s - h) / 2; w = r.width * s; h = r.height * s;
  }
  return { x0: Math.floor(x / C) - 1, y0: Math.floor(y / C) - 1, x1: Math.ceil((x + w) / C) + 1, y1: Math.ceil((y + h) / C) + 1 };
}
const inRange = (r, x, y) => x >= r.x0 && x <= r.x1 && y >= r.y0 && y <= r.y1;

// Stones in view, each kept from one render to the next: a move adds one element, a view
// change adds and removes only those entering and leaving it.
let stoneEls = new Map();  // "x,y" -> { i (its move number - 1), e }
let stonesNumbers = null;
function drawStones() {
  const layer = $('stones');
  if (!layer || !view) return;
  const numbers = $('opt-numbers').checked;
  if (numbers !== stonesNumbers) { layer.replaceChildren(); stoneEls.clear(); stonesNumbers = numbers; }
  const pts = shownPoints(), r = visibleRange(), want = new Set();
  for (let i = 0; i < pts.length; i++) {
    const [x, y] = pts[i];
    if (!inRange(r, x, y)) continue;
    const k = x + ',' + y;
    want.add(k);
    const have = stoneEls.get(k);
    if (have && have.i === i) continue;
    if (have) have.e.remove();
    const black = i % 2 === 0;
    const c = el('circle', { cx: x * C, cy: y * C, r: C * 0.46, class: black ? 'stone-black' : 'stone-white' });
    let e = c;
    if (numbers) { e = el('g', {}); e.appendChild(c); el('text', { x: x * C, y: y * C, class: 'num ' + (black ? 'on-black' : 'on-white') }, e, String(i + 1)); }
    layer.appendChild(e);
    stoneEls.set(k, { i, e });
  }
  for (const [k, v] of stoneEls) if (!want.has(k)) { v.e.remove(); stoneEls.delete(k); }
}

// What a point holds, for its label: "H8, black, move 1", "H8, empty".
function pointLabel(x, y) {
  const name = pointName(x, y).toUpperCase();
  const pts = shownPoints();
  for (let i = pts.length - 1; i >= 0; i--) {
    if (pts[i][0] === x && pts[i][1] === y) return `${name}, ${i % 2 === 0 ? 'black' : 'white'}, move ${i + 1}`;
  }
  const live = viewPly === null;
  const f = live && state.forbidden.find((q) => q.x === x && q.y === y);
  if (f) return `${name}, empty, forbidden to black`;
  const t = live && (state.threats || []).find((q) => q.x === x && q.y === y);
  if (t) return `${name}, empty, ${t.kind === 'five' ? 'the opponent makes five here' : 'the opponent makes an open four here'}`;
  return `${name}, empty`;
}

let focusPoint = null;  // the keyboard cursor's point
function placeCursor(x, y) {
  focusPoint = [x, y];
  const c = $('cursor');
  if (!c) return;
  c.setAttribute('cx', x * C); c.setAttribute('cy', y * C);
  c.setAttribute('aria-label', pointLabel(x, y));
}
function inBounds(x, y) { const b = bounds(); return x >= b.x0 && x <= b.x1 && y >= b.y0 && y <= b.y1; }
function centreOn(x, y) { setView({ ...view, x: x * C - view.w / 2, y: y * C - view.h / 2 }, true); }
function inView([x, y]) {
  const r = visibleRange();
  return x > r.x0 && x < r.x1 && y > r.y0 && y < r.y1;
}

let followed = '';   // the last move the view was brought to
function render() {
  if (!state) return;
  const t0 = performance.now();
  let fresh = false;  // the whole board drawn anew (another game, or the first render)
  if (!$('stones')) { makeLayers(); geometry = ''; fresh = true; }
  const b = bounds();
  const key = `${state.id}:${b.x0},${b.y0},${b.x1},${b.y1}`;
  if (key !== geometry) {
    const sameGame = geometry.startsWith(state.id + ':');
    if (!sameGame) { makeLayers(); userView = false; focusPoint = null; followed = ''; fresh = true; }
    geometry = key;
    drawStatic(b);
    // Until the player zooms or pans, the whole board is in view, and it follows the
    // unbounded board as it grows.
    if (!sameGame || !view || !userView) setView(fullView(b));
  }
  const svg = $('board');
  svg.dataset.height = state.height || '';
  svg.dataset.step = C;
  svg.classList.toggle('turn-black', state.to_move === 'black');
  svg.classList.toggle('turn-white', state.to_move === 'white');
  svg.classList.toggle('playable', !state.over && !state.readonly && viewPly === null);
  $('coords').style.display = $('opt-coords').checked ? '' : 'none';
  const live = viewPly === null;
  const last = live ? state.last_move : shownPoints()[viewPly - 1];
  // A move outside a zoomed-in view brings the view to it.
  if (last && live && userView && followed !== `${state.id}:${last}` && !inView(last)) centreOn(last[0], last[1]);
  if (last) followed = `${state.id}:${last}`;
  drawStones();
  // The hover shadow belongs to the position before: hidden until the pointer moves again.
  $('ghost').setAttribute('visibility', 'hidden');
  const marks = $('marks'), overlay = $('overlay');
  marks.replaceChildren(); overlay.replaceChildren();
  const numbers = $('opt-numbers').checked;
  for (const f of live ? state.forbidden : []) {
    const s = C * 0.22, x = f.x * C, y = f.y * C;
    const g = el('g', { class: 'forbidden', 'data-forbidden': f.name }, marks);
    el('title', {}, g, `${f.name.toUpperCase()}: forbidden to black (${f.kind.replace('_', '-')})`);
    el('path', { d: `M${x - s} ${y - s}L${x + s} ${y + s}M${x + s} ${y - s}L${x - s} ${y + s}` }, g);
  }
  // The opponent's threats, as the server's engine sees them: a four's five point, an open
  // three's straight-four points.
  for (const t of live && !state.over ? state.threats || [] : []) {
    const name = t.name || pointName(t.x, t.y);
    const g = el('g', { class: 'threat ' + t.kind, 'data-threat': name }, marks);
    el('title', {}, g, `${name.toUpperCase()}: ${t.kind === 'five' ? 'the opponent makes five here' : 'the opponent makes an open four here'}`);
    el('circle', { cx: t.x * C, cy: t.y * C, r: C * 0.3 }, g);
  }
  if (last) {
    const [x, y] = last;
    // With move numbers on, a ring around the stone, so its number stays legible.
    el('circle', numbers ? { cx: x * C, cy: y * C, r: C * 0.5, class: 'last ring', id: 'last-move' } : { cx: x * C, cy: y * C, r: C * 0.12, class: 'last', id: 'last-move' }, overlay);
  }
  const winning = !live ? [] : state.winning_lines || (state.winning_line.length ? [state.winning_line] : []);
  winning.forEach((w, i) => {
    if (!w.length) return;
    const line = el('line', { x1: w[0][0] * C, y1: w[0][1] * C, x2: w[w.length - 1][0] * C, y2: w[w.length - 1][1] * C, class: 'winline' }, overlay);
    if (i === 0) line.id = 'win-line';
    for (const [x, y] of w) el('circle', { cx: x * C, cy: y * C, r: C * 0.46, class: 'winstone' }, overlay);
  });
  if (hintAt && live) el('circle', { cx: hintAt[0] * C, cy: hintAt[1] * C, r: C * 0.4, class: 'hint', id: 'hint-mark' }, overlay);
  if (pending) el('circle', { cx: pending[0] * C, cy: pending[1] * C, r: C * 0.47, class: 'pending', id: 'pending-mark' }, overlay);
  if (pvLine && live && pvLine.ply === state.points.length) {
    pvLine.points.forEach(([x, y], i) => {
      const black = (state.points.length + i) % 2 === 0;
      el('circle', { cx: x * C, cy: y * C, r: C * 0.4, class: 'pv ' + (black ? 'stone-black' : 'stone-white') }, overlay);
      el('text', { x: x * C, y: y * C, class: 'num ' + (black ? 'on-black' : 'on-white') }, overlay, String(i + 1));
    });
  }
  if (!focusPoint || !inBounds(...focusPoint)) {
    const c = state.last_move || (state.width ? [(state.width - 1) >> 1, (state.height - 1) >> 1] : [0, 0]);
    placeCursor(c[0], c[1]);
  } else placeCursor(...focusPoint);
  $('zoom-last').hidden = !bigBoard();
  if (!state.online) renderPanel();
  // Only the latest render's time is kept, for the e2e suite's benchmark.
  for (const name of fresh ? ['tengen:render', 'tengen:first-render'] : ['tengen:render']) {
    performance.clearMeasures(name);
    performance.measure(name, { start: t0 });
  }
}

// The moves on the board: the game's, or while replaying the first `viewPly` of its moves and
// of those taken back.
function allPoints() { return state.points.concat(state.redo_points); }
function shownPoints() { return viewPly === null ? state.points : allPoints().slice(0, viewPly); }

function renderPanel() {
  let status = state.status;
  const p = state.pending;
  const opening = p && (p.kind === 'choice' || p.opening_stone);
  if (state.opponent === 'computer' && !state.over && !opening && p && p.human) status = `Your move (${state.human_color || state.human}) — ${state.status}`;
  if (viewPly !== null) status = `Replay: move ${viewPly} of ${allPoints().length}. The game is unchanged: >| returns to it, or continue from here in a new game.`;
  $('status').textContent = status;
  $('continue').hidden = viewPly === null;
  const sum = state.summary;
  $('summary').hidden = !sum || viewPly !== null;
  if (sum) {
    $('summary').textContent = `${sum.moves} ${sum.moves === 1 ? 'move' : 'moves'} in ${ms(sum.duration_ms)}; ${sum.undos ? `${sum.undos} ${sum.undos === 1 ? 'undo' : 'undos'} used` : 'no undo used'}.`;
  }
  $('autoplay').hidden = state.opponent !== 'computers' || state.over;
  $('pause').textContent = autoPaused ? 'Resume' : 'Pause';
  $('pause').setAttribute('aria-pressed', String(autoPaused));
  if (autoPaused && state.opponent === 'computers' && !state.over && viewPly === null) $('status').textContent = `Paused — ${state.status}`;
  const choosing = !!(p && p.kind === 'choice' && p.human && !state.over && viewPly === null);
  $('choice').hidden = !choosing;
  $('choose-place-two').hidden = !(choosing && p.options.includes('place_two'));
  const ol = $('moves');
  const all = state.moves.concat(state.redo);
  const at = viewPly === null ? state.moves.length : viewPly;
  // The list is extended, not rebuilt, when moves are added (thousands on a big board).
  const items = ol.children;
  let keep = Math.min(items.length, all.length);
  if (ol.dataset.game !== state.id) keep = 0;
  for (let i = 0; i < keep; i++) if (items[i].textContent !== all[i]) { keep = i; break; }
  while (items.length > keep) ol.lastChild.remove();
  const frag = document.createDocumentFragment();
  for (let i = keep; i < all.length; i++) {
    const li = document.createElement('li');
    li.textContent = all[i];
    li.dataset.ply = i + 1;
    frag.appendChild(li);
  }
  ol.appendChild(frag);
  ol.dataset.game = state.id;
  for (let i = 0; i < items.length; i++) {
    const cls = i === at - 1 ? 'current' : i >= at ? 'future' : '';
    if (items[i].className !== cls) items[i].className = cls;
  }
  const cur = items[at - 1]; if (cur) cur.scrollIntoView({ block: 'nearest' });
  const slider = $('slider');
  slider.max = all.length; slider.value = at;
  updateButtons();
  renderClock();
  location.hash = shareHash();
}

function updateButtons() {
  if (state && state.online) return;
  const s = state, none = !s;
  // While replaying, only what leaves the game as it is: the replay itself, and continuing
  // in a new game.
  const viewing = viewPly !== null;
  const human = s && !s.over && !s.computer_to_move && !(s.pending && s.pending.kind === 'choice');
  for (const id of ['choose-black', 'choose-white', 'choose-place-two']) $(id).disabled = none || busy;
  $('undo').disabled = none || busy || viewing || !s.can_undo;
  $('redo').disabled = none || busy || viewing || !s.redo.length;
  $('hint').disabled = none || busy || viewing || !human;
  $('resign').disabled = none || busy || s.over || s.opponent === 'computers';
  $('draw').disabled = none || busy || s.over || s.opponent === 'computers';
  // The computer plays its turn on the server by itself; an imported or continued position
  // waits for this button.
  $('step').hidden = none || !s.computer_waits || s.opponent === 'computers';
  $('step').disabled = busy || viewing;
  $('analyse').disabled = none || busy || s.over || viewing;
  for (const id of ['first', 'back', 'forward', 'last', 'slider', 'continue', 'share', 'download']) $(id).disabled = none || busy;
}

// ---- clock -----------------------------------------------------------------------------
let clockBase = null;
function renderClock() {
  const c = state.clock;
  $('clock').hidden = !c;
  if (!c) return;
  clockBase = { at: performance.now(), black: c.black_ms, white: c.white_ms, running: c.running };
  tickClock();
  if (!clockTimer) clockTimer = setInterval(tickClock, 200);
}
function fmt(ms) { const s = Math.ceil(ms / 1000); return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`; }
function tickClock() {
  if (!clockBase || !state || !state.clock) return;
  const el2 = performance.now() - clockBase.at;
  for (const c of ['black', 'white']) {
    const left = Math.max(0, clockBase[c] - (clockBase.running === c ? el2 : 0));
    const e = $('clock-' + c);
    e.textContent = `${c === 'black' ? 'Black' : 'White'} ${fmt(left)}`;
    e.classList.toggle('running', clockBase.running === c && !state.over);
    e.classList.toggle('low', left < 10000);
    if (left === 0 && clockBase.running === c && !state.over && !busy) { clockBase.running = null; refresh(); }
  }
}
async function refresh() { if (state) act(async () => setState(await api('GET', `/api/games/${state.id}`))); }

// ---- sound -----------------------------------------------------------------------------
let audio = null;
function sound(kind) {
  if (store.get('muted', false)) return;
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    const t = audio.currentTime;
    const tone = (freq, start, dur, type = 'sine', vol = 0.2) => {
      const o = audio.createOscillator(), g = audio.createGain();
      o.type = type; o.frequency.value = freq;
      g.gain.setValueAtTime(vol, t + start); g.gain.exponentialRampToValueAtTime(0.001, t + start + dur);
      o.connect(g).connect(audio.destination); o.start(t + start); o.stop(t + start + dur + 0.02);
    };
    if (kind === 'stone') tone(900, 0, 0.06, 'triangle', 0.3);
    else if (kind === 'win') [523, 659, 784, 1047].forEach((f, i) => tone(f, i * 0.12, 0.25));
    else if (kind === 'loss') [392, 330, 262].forEach((f, i) => tone(f, i * 0.18, 0.3));
    else if (kind === 'threat') { tone(660, 0, 0.1, 'square', 0.08); tone(660, 0.15, 0.1, 'square', 0.08); }
    else if (kind === 'error') tone(200, 0, 0.12, 'sawtooth', 0.08);
  } catch { /* no audio */ }
}
function renderMute() {
  const m = store.get('muted', false);
  $('mute').textContent = m ? 'Sound off' : 'Sound on';
  $('mute').setAttribute('aria-pressed', String(m));
}

// ---- state changes -----------------------------------------------------------------------
function setState(s, { quiet = false } = {}) {
  const before = state;
  // An answer or a push older than what the page shows already changes nothing.
  if (before && !before.online && before.id === s.id && s.seq < before.seq) return;
  state = s;
  pending = null;
  if (!before || before.id !== s.id) viewPly = null;
  if (viewPly !== null && viewPly >= allPoints().length) viewPly = null;
  if (!before || before.id !== s.id || before.points.length !== s.points.length) {
    hintAt = null;
    // A notice about the position before (a hint, "Move taken back.") is stale once it
    // changes; the action that changed it says what it has to afterwards.
    if (before && !before.online) say('');
  }
  store.set('game', s.id);
  remember(s.id);
  watch(s.id);
  render();
  syncLive();
  const chose = humanChose;
  humanChose = false;
  if (quiet || !before || before.id !== s.id) return;
  computerNews(before, s, chose);
  if (s.points.length > before.points.length) sound('stone');
  if (s.over && !before.over) {
    const humanWon = s.opponent === 'computer' ? s.winner === (s.human_color || s.human) : !!s.winner;
    sound(humanWon ? 'win' : (s.winner ? 'loss' : 'win'));
  } else if (!s.over && s.points.length > before.points.length && (s.threats || []).length) {
    // The threats drawn on the board, heard too.
    setTimeout(() => sound('threat'), 120);
  }
}

// The computer's stones, for the message line: "Computer played H8.", or in a swap opening
// "Computer placed H8, H9 and J10.".
function computerPlayed(moves) {
  const names = moves.map((m) => m.toUpperCase());
  if (names.length <= 1) return names.length ? `Computer played ${names[0]}.` : '';
  return `Computer placed ${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}.`;
}

// What the computer did since the human last acted: its decision in a swap opening, its
// stones. Its turn may reach the page in several states (a swap opening's stones one by one),
// so the message is made from the whole turn, not from the last state alone.
let computerTurn = null;  // { id, from: the stones when its turn began, choice: its decision }
function humanActed() { computerTurn = null; }
function computerNews(before, s, chose) {
  if (s.opponent !== 'computer') return;
  if (chose || !computerTurn || computerTurn.id !== s.id || s.points.length < computerTurn.from) {
    computerTurn = { id: s.id, from: before.points.length, choice: null };
  }
  const turn = computerTurn;
  // Only news is told: a state that changes nothing of the computer's turn (a hint noted)
  // leaves the message line to whatever said something since.
  let news = s.points.length > before.points.length;
  if (!chose && before.human_color === null && s.human_color !== null) {
    turn.choice = `Computer chose ${s.human_color === 'black' ? 'white' : 'black'}.`;
    news = true;
  } else if (s.opening === 'swap2' && s.human_seat === 'first' && s.human_color === null && s.points.length > 3 && before.points.length <= 3) {
    // The computer, second, took neither colour: it places stones four and five.
    turn.choice = 'Computer chose to place two more stones.';
    news = true;
  }
  if (!news) return;
  // Its stones: those since its turn began; once the colours are settled, only after the
  // human's last stone and of its own colour (another tab may have played the human's).
  let from = turn.from;
  if (s.human_color !== null) {
    const human = s.human_color === 'black' ? 0 : 1;
    for (let i = s.points.length - 1; i >= from; i--) if (i % 2 === human) { from = i + 1; break; }
  }
  const parts = [];
  if (turn.choice) parts.push(turn.choice);
  const stones = computerPlayed(s.moves.slice(from));
  if (stones) parts.push(stones);
  if (parts.length) say(parts.join(' '));
}

// ---- the game's WebSocket: every stored change of the game shown, from this tab or any other,
// and the computer's moves, which the server plays whether or not a page waits ----------------
let sock = null;
function watch(id) {
  if (sock && sock.id === id) return;
  unwatch();
  const me = { id, ws: null, retry: 0, timer: null };
  sock = me;
  const open = () => {
    if (sock !== me) return;
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    let ws;
    try { ws = new WebSocket(`${proto}//${location.host}/api/games/${id}/ws`); } catch { retry(); return; }
    me.ws = ws;
    ws.onmessage = (e) => {
      if (sock !== me) return;
      let msg;
      try { msg = JSON.parse(e.data); } catch { return; }
      me.retry = 0;
      if (msg.type === 'state' && state && !state.online && state.id === msg.id) setState(msg);
    };
    ws.onclose = () => { if (sock === me) { me.ws = null; retry(); } };
  };
  const retry = () => {
    clearTimeout(me.timer);
    me.timer = setTimeout(open, Math.min(10000, 500 * 2 ** me.retry++));
  };
  me.reopen = () => { if (!me.ws) { me.retry = 0; clearTimeout(me.timer); open(); } };
  open();
}
function unwatch() {
  if (!sock) return;
  const old = sock;
  sock = null;
  clearTimeout(old.timer);
  if (old.ws) { try { old.ws.close(1000); } catch { /* closed */ } }
}

async function playAt(x, y) {
  if (!state || state.over || busy || state.computer_to_move) return;
  if (viewPly !== null) { say('This is a replay of an earlier move: >| returns to the game, or continue from here in a new game.'); return; }
  if (state.online && !online.canPlay()) return;
  if (state.pending && state.pending.kind === 'choice') { say('Choose first: use the buttons above.'); return; }
  if (state.points.some(([a, b]) => a === x && b === y)) return;
  if ($('opt-confirm').checked && !(pending && pending[0] === x && pending[1] === y)) {
    pending = [x, y]; render(); say(`Tap ${pointName(x, y).toUpperCase()} again to play there.`); return;
  }
  pending = null;
  if (state.online) { render(); online.move(x, y); return; }
  humanActed();
  const prior = state;
  await act(async () => {
    const name = pointName(x, y);
    // Show the stone at once; the server's answer replaces the board.
    const optimistic = { ...state, points: state.points.concat([[x, y]]), moves: state.moves.concat([name]), last_move: [x, y], forbidden: [], threats: [], computer_to_move: state.opponent === 'computer' };
    if (state.opponent === 'computer') { optimistic.status = 'Computer thinking…'; state = optimistic; render(); }
    say('');
    // The answer does not wait for the computer: its move arrives over the game's WebSocket.
    let r;
    try { r = await api('POST', `/api/games/${optimistic.id}/moves`, { move: name, wait: false }); } catch (e) {
      // Refused: the board goes back to what it was (unless the game's socket told us more).
      if (state === optimistic) { state = prior; render(); }
      throw e;
    }
    setState(r);
  }).catch(() => {});
  autoplay();
}

let autoplaying = false;
let autoStop = false;
let autoPaused = false;  // computer against computer, paused by the player
// The pause is kept with the page's settings, for the game paused: a reload finds it paused.
function setPaused(paused) {
  autoPaused = paused;
  store.set('paused', paused && state ? state.id : null);
}
async function autoplay() {
  if (autoplaying) return;
  autoplaying = true;
  try {
    while (state && state.opponent === 'computers' && !state.over && !busy && !autoStop && !autoPaused) {
      const id = state.id;
      await act(async () => { const r = await api('POST', `/api/games/${id}/step`); if (state && state.id === id) setState(r); });
      // The pause between moves, so the game can be followed.
      await new Promise((r) => setTimeout(r, Number($('speed').value) || 300));
    }
  } finally { autoplaying = false; }
}

// ---- new game ----------------------------------------------------------------------------
function formSettings() {
  const f = $('new-game-form');
  const data = Object.fromEntries(new FormData(f).entries());
  return data;
}
function loadForm() {
  formError('');
  const saved = store.get('settings', null);
  const f = $('new-game-form');
  if (saved) {
    for (const [k, v] of Object.entries(saved)) {
      const e = f.elements[k];
      if (!e) continue;
      if (e instanceof RadioNodeList) { for (const r of e) r.checked = r.value === v; } else if (e.type === 'checkbox') e.checked = v === 'on'; else e.value = v;
    }
  }
  formVisibility();
}
// The new-game dialog's error line ('' clears it).
function formError(text) {
  const e = $('new-game-error');
  e.textContent = text || '';
  e.hidden = !text;
}
function formVisibility() {
  const d = formSettings();
  for (const e of document.querySelectorAll('.custom-size')) e.hidden = d.size !== 'custom';
  for (const e of document.querySelectorAll('.clock-opt')) e.hidden = d.clock === 'none';
  for (const e of document.querySelectorAll('.renju-opt')) e.hidden = d.rule !== 'renju';
  $('new-game-form').elements.level.disabled = d.opponent === 'friend' || d.opponent === 'online';
  $('new-game-form').elements.human.disabled = d.opponent !== 'computer';
  for (const e of document.querySelectorAll('.online-opt')) e.hidden = d.opponent !== 'online';
  for (const e of document.querySelectorAll('.offline-opt')) e.hidden = d.opponent === 'online';
  $('start').textContent = d.opponent === 'online' ? 'Create and invite' : 'Start';
}
function clockRequest(d) {
  const t = Number(d.clock_time) || 10, inc = Number(d.clock_inc) || 0;
  if (d.clock === 'per_move') return { kind: 'per_move', ms: Math.round(t * 1000) };
  if (d.clock === 'total') return { kind: 'total', ms: Math.round(t * 60000), increment_ms: Math.round(inc * 1000) };
  return { kind: 'none' };
}
function onlineRequest(d) {
  const size = d.size === 'custom' ? (d.custom || '15').trim() : d.size;
  const req = { rule: d.rule, size, opening: d.opening, clock: clockRequest(d), color: d.color || 'black', listed: d.listed === 'on' };
  if (d.rule === 'renju') req.forbidden = d.forbidden || 'refuse';
  const name = (d.player || '').trim();
  if (name) req.name = name.slice(0, 40);
  return req;
}
function gameRequest(d) {
  const size = d.size === 'custom' ? (d.custom || '15').trim() : d.size;
  const clock = clockRequest(d);
  return { opponent: d.opponent, level: d.level || 'beginner', human: d.human || 'black', rule: d.rule, opening: d.opening, size, clock, player: d.player || '', forbidden: d.forbidden || 'refuse' };
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// Waits for the request under way (the computer's move) to finish, stopping autoplay.
async function settle() {
  autoStop = true;
  while (busy) await sleep(30);
  autoStop = false;
}
// A new game replaces the one shown only once the server has made it: a refused one (a size
// the rules do not allow, a record that cannot be read) leaves the game shown as it was. The
// game left stays stored (and the computer, if it was thinking, plays its move there).
function switchTo(r) {
  geometry = ''; pvLine = null; clearAnalysis();
  // A game paused before (opened again from My games) stays paused; a new one is not.
  autoPaused = store.get('paused', null) === r.id;
  setState(r);
}
// `refused(error)`, if given, hears a game the server would not make.
async function startGame(req, refused) {
  await settle();
  await act(async () => {
    let r;
    try { r = await api('POST', '/api/games', req); } catch (e) {
      if (!refused) throw e;
      refused(e);
      return;
    }
    switchTo(r);
    say(computerPlayed(r.computer_moves || (r.computer_move ? [r.computer_move] : [])) || 'New game.');
  });
  autoplay();
}

// ---- records -----------------------------------------------------------------------------
async function importRecord(text, extra = {}) {
  const d = store.get('settings', null) || formSettings();
  const base = gameRequest(d);
  delete base.size; delete base.rule;
  await settle();
  await act(async () => {
    const r = await api('POST', '/api/games/import', { ...base, ...extra, text });
    switchTo(r);
    say(`Record loaded: ${r.moves.length} ${r.moves.length === 1 ? 'move' : 'moves'}.`);
  });
}
function shareHash(s = state) {
  if (!s) return '';
  // Points on the unbounded board are written x,y, so moves are separated by ';' there.
  return `#size=${s.size}&rule=${s.rule}&moves=${s.moves.join(s.width ? ',' : ';')}`;
}
async function fromHash() {
  const h = new URLSearchParams(location.hash.slice(1));
  if (!h.has('moves')) return false;
  const size = h.get('size') || '15';
  const raw = h.get('moves') || '';
  const moves = raw ? raw.split(size === 'unbounded' ? ';' : ',') : [];
  await importRecord(moves.join('\n'), { size, rule: h.get('rule') || 'freestyle', format: 'txt', opponent: 'friend' });
  return true;
}

// ---- analysis ----------------------------------------------------------------------------
// A line's worth, always from black's side: "+120 for black", "White wins in 5".
function forBlack(l) {
  if (l.forced_winner) return `${l.forced_winner === 'black' ? 'Black' : 'White'} wins in ${l.forced_win_in}`;
  return `${l.black_value > 0 ? '+' : ''}${l.black_value} for black`;
}
function clearAnalysis() { $('eval-text').textContent = ''; $('pv-list').replaceChildren(); $('evalbar-black').style.width = '50%'; }
async function analyse() {
  await act(async () => {
    showAnalysis(await api('POST', `/api/games/${state.id}/analysis`, { multipv: Number($('multipv').value), time_ms: Number($('analysis-time').value) }));
  });
}
function showAnalysis(a, live = false) {
  const best = a.lines[0];
  if (!best) return;
  let share;
  if (best.forced_winner) share = best.forced_winner === 'black' ? 100 : 0;
  else share = 50 + 50 * Math.tanh(best.black_value / 800);
  $('evalbar-black').style.width = `${share}%`;
  $('eval-text').textContent = `${forBlack(best)} · depth ${a.depth}${live ? ' · live' : ''}`;
  // Every figure is black's, as in the headline; the lines best first for the side to move.
  const lines = a.lines.slice().sort((p, q) => q.value - p.value);
  const ol = $('pv-list'); ol.replaceChildren();
  for (const l of lines) { const li = document.createElement('li'); li.textContent = `${(l.moves[0] || '').toUpperCase()} ${forBlack(l)}: ${l.moves.join(' ')}`; ol.appendChild(li); }
  pvLine = { ply: a.ply, points: best.points.slice(0, 8) };
  render();
}
// Live analysis: while "Live" is ticked and the panel open, the server searches the position
// shown, deeper and deeper, and streams each depth; a move (or undo, or another game) starts
// it again on the new position. The server stops a search whose stream is closed.
let liveStream = null;
let liveFor = null; // the game, position and width the stream (or the finished one) is for
function syncLive() {
  const s = state;
  const want = $('analysis-live').checked && $('analysis-panel').open && s && !s.online && !s.over && viewPly === null;
  const key = want ? `${s.id}:${s.points.length}:${s.seq}:${$('multipv').value}` : null;
  if (key === liveFor) return;
  if (liveStream) liveStream.close();
  liveStream = null;
  liveFor = key;
  if (!key) return;
  // The figures shown belong to another position now.
  clearAnalysis();
  pvLine = null;
  const es = new EventSource(`/api/games/${s.id}/analysis/live?multipv=${Number($('multipv').value)}`);
  liveStream = es;
  const end = () => { es.close(); if (liveStream === es) liveStream = null; };
  es.addEventListener('info', (e) => { if (liveStream === es) showAnalysis(JSON.parse(e.data), true); });
  es.addEventListener('done', end);
  es.addEventListener('limit', (e) => {
    end();
    if (liveFor === key) say(JSON.parse(e.data).error, true);
  });
  // A refused stream (the engine time used up, the game over) or a dropped one: no retry
  // until the position changes.
  es.onerror = end;
}

// ---- my games ------------------------------------------------------------------------------
// The games of this browser, newest first: the server keeps every one.
function remember(id) {
  const ids = store.get('games', []);
  if (ids[0] === id) return;
  store.set('games', [id, ...ids.filter((g) => g !== id)].slice(0, 30));
}
async function showGames() {
  const tb = $('games').tBodies[0];
  tb.replaceChildren();
  const ids = store.get('games', []);
  const found = await Promise.all(ids.map((id) => api('GET', `/api/games/${id}`).catch(() => null)));
  for (const g of found) {
    if (!g) continue;
    const tr = tb.insertRow();
    tr.dataset.id = g.id;
    const who = g.opponent === 'computer' ? `against the ${g.level}` : g.opponent === 'friend' ? 'between friends' : 'computer against computer';
    tr.insertCell().textContent = `${g.rule}, ${g.size}, ${who}`;
    tr.insertCell().textContent = g.moves.length;
    tr.insertCell().textContent = g.over ? g.status : 'under way';
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = state && state.id === g.id ? 'Shown' : 'Open';
    b.disabled = !!(state && state.id === g.id);
    b.setAttribute('aria-label', `Open ${tr.cells[0].textContent}`);
    b.onclick = () => { $('games-dialog').close(); online.leave(); openGame(g); };
    tr.insertCell().appendChild(b);
  }
  if (!tb.rows.length) tb.insertRow().insertCell().textContent = 'No games yet.';
  $('games-dialog').showModal();
}
async function openGame(g) {
  await settle();
  switchTo(g);
  say(g.over ? 'A finished game: step through it with the replay buttons below the moves.' : '');
  autoplay();
}

// ---- results -----------------------------------------------------------------------------
function ms(t) { const s = Math.round(t / 1000); return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`; }
async function showResults() {
  const player = (store.get('settings', {}) || {}).player || 'Anonymous';
  $('results-player').textContent = `(${player})`;
  try {
    const [r, h] = await Promise.all([api('GET', `/api/results?player=${encodeURIComponent(player)}`), api('GET', '/api/heroes')]);
    const tb = $('tally').tBodies[0]; tb.replaceChildren();
    for (const l of r.levels) { const tr = tb.insertRow(); for (const v of [l.level, l.wins, l.losses, l.draws]) tr.insertCell().textContent = v; }
    const hb = $('heroes').tBodies[0]; hb.replaceChildren();
    for (const l of h.levels) {
      const tr = hb.insertRow();
      tr.insertCell().textContent = l.level;
      tr.insertCell().textContent = l.fewest_moves ? `${l.fewest_moves.player}: ${l.fewest_moves.moves} moves` : '—';
      tr.insertCell().textContent = l.shortest_time ? `${l.shortest_time.player}: ${ms(l.shortest_time.duration_ms)}` : '—';
    }
  } catch (e) { say(e.message, true); }
  $('results-dialog').showModal();
}

// ---- pan and zoom ------------------------------------------------------------------------
// A screen position in board units (the SVG's user space).
function svgPoint(cx, cy) {
  const svg = $('board');
  const m = svg.getScreenCTM();
  if (!m) return { x: 0, y: 0 };
  const p = new DOMPoint(cx, cy).matrixTransform(m.inverse());
  return { x: p.x, y: p.y };
}
// The intersection nearest a screen position, if it is on the board.
function snap(cx, cy) {
  const p = svgPoint(cx, cy);
  const x = Math.round(p.x / C), y = Math.round(p.y / C);
  return state && inBounds(x, y) ? [x, y] : null;
}
function clampWidth(w) {
  const full = fullView(bounds());
  return Math.min(full.w * 1.2, Math.max(C * 6, w));
}
function zoomView(v, factor, cx, cy) {
  const w = clampWidth(v.w * factor);
  const f = w / v.w;
  cx = cx ?? v.x + v.w / 2; cy = cy ?? v.y + v.h / 2;
  return { x: cx - (cx - v.x) * f, y: cy - (cy - v.y) * f, w, h: v.h * f };
}
function zoom(factor, cx, cy) { if (view) setView(zoomView(view, factor, cx, cy), true); }

function wire() {
  const svg = $('board');
  // One pointer: a tap plays the nearest intersection, a drag pans. Two: pinch zoom.
  const pointers = new Map();
  let gesture = null;
  const scale = (v) => { const r = svg.getBoundingClientRect(); return Math.max(v.w / r.width, v.h / r.height); };
  const mid = () => { const [a, b] = [...pointers.values()]; return { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2, d: Math.hypot(a.x - b.x, a.y - b.y) || 1 }; };
  svg.addEventListener('pointerdown', (e) => {
    if (!view || e.button > 0) return;
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    try { svg.setPointerCapture(e.pointerId); } catch { /* gone */ }
    if (pointers.size === 1) gesture = { kind: 'tap', x: e.clientX, y: e.clientY, v: { ...view } };
    else if (pointers.size === 2) { const m = mid(); gesture = { kind: 'pinch', m, at: svgPoint(m.x, m.y), v: { ...view } }; }
  });
  svg.addEventListener('pointermove', (e) => {
    if (!pointers.has(e.pointerId)) {
      // Hovering: a shadow stone shows where a click would play.
      const g = $('ghost');
      const at = e.pointerType === 'mouse' && state && !busy ? snap(e.clientX, e.clientY) : null;
      const free = at && svg.classList.contains('playable') && !state.points.some(([x, y]) => x === at[0] && y === at[1]);
      if (g) {
        g.setAttribute('visibility', free ? 'visible' : 'hidden');
        if (free) { g.setAttribute('cx', at[0] * C); g.setAttribute('cy', at[1] * C); }
      }
      return;
    }
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (!gesture) return;
    if (gesture.kind === 'pinch' && pointers.size === 2) {
      const m = mid();
      const v = zoomView(gesture.v, gesture.m.d / m.d, gesture.at.x, gesture.at.y);
      const s = scale(v);
      setView({ ...v, x: v.x - (m.x - gesture.m.x) * s, y: v.y - (m.y - gesture.m.y) * s }, true);
      return;
    }
    const dx = e.clientX - gesture.x, dy = e.clientY - gesture.y;
    if (gesture.kind === 'tap' && Math.hypot(dx, dy) < 8) return;
    gesture.kind = 'pan';
    const s = scale(gesture.v);
    setView({ ...gesture.v, x: gesture.v.x - dx * s, y: gesture.v.y - dy * s }, true);
  });
  const release = (e, play) => {
    if (!pointers.delete(e.pointerId)) return;
    const g = gesture;
    if (pointers.size === 0) gesture = null;
    else if (g && g.kind === 'pinch') gesture = null;  // the other finger lifts without playing
    if (play && g && g.kind === 'tap' && pointers.size === 0) {
      const at = snap(e.clientX, e.clientY);
      if (at) playAt(at[0], at[1]);
    }
  };
  svg.addEventListener('pointerup', (e) => release(e, true));
  svg.addEventListener('pointercancel', (e) => release(e, false));
  svg.addEventListener('pointerleave', () => { const g = $('ghost'); if (g) g.setAttribute('visibility', 'hidden'); });
  svg.addEventListener('wheel', (e) => { e.preventDefault(); const p = svgPoint(e.clientX, e.clientY); zoom(e.deltaY > 0 ? 1.15 : 1 / 1.15, p.x, p.y); }, { passive: false });
  // The keyboard moves one cursor over the points; Enter or Space plays there.
  svg.addEventListener('keydown', (e) => {
    if (e.target.id !== 'cursor' || !state || !focusPoint) return;
    const [x, y] = focusPoint;
    const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (moves[e.key]) {
      e.preventDefault();
      const nx = x + moves[e.key][0], ny = y + moves[e.key][1];
      if (!inBounds(nx, ny)) return;
      placeCursor(nx, ny);
      if (!inView([nx, ny])) centreOn(nx, ny);
    } else if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); playAt(x, y); }
  });
  $('zoom-in').onclick = () => zoom(1 / 1.4);
  $('zoom-out').onclick = () => zoom(1.4);
  $('zoom-fit').onclick = () => { if (state) { userView = false; setView(fullView(bounds())); } };
  $('zoom-last').onclick = () => {
    if (!state || !view) return;
    const last = viewPly === null ? state.last_move : shownPoints()[viewPly - 1];
    const [x, y] = last || focusPoint || [0, 0];
    // Close enough to tell the stones apart, then centred on the move.
    if (view.w > C * 24) setView(zoomView(view, (C * 20) / view.w), true);
    centreOn(x, y);
  };

  $('new-game-button').onclick = () => { loadForm(); $('new-game-dialog').showModal(); };
  $('cancel-new').onclick = () => $('new-game-dialog').close();
  $('new-game-form').addEventListener('change', () => { formError(''); formVisibility(); });
  $('new-game-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const d = formSettings();
    d.listed = $('new-game-form').elements.listed.checked ? 'on' : 'off';
    formError('');
    store.set('settings', d);
    $('new-game-dialog').close();
    // A game the server refuses to make (a custom size it does not allow, ...): the dialog
    // comes back as it was, saying why, to be corrected.
    const refused = (err) => { formError(err.message); sound('error'); $('new-game-dialog').showModal(); };
    if (d.opponent === 'online') {
      online.create(onlineRequest(d)).catch(refused);
      return;
    }
    online.leave();
    startGame(gameRequest(d), refused);
  });
  $('lobby-button').onclick = () => online.showLobby();
  $('lobby-new').onclick = () => {
    $('lobby-dialog').close();
    loadForm();
    $('new-game-form').elements.opponent.value = 'online';
    formVisibility();
    $('new-game-dialog').showModal();
  };
  window.addEventListener('hashchange', () => {
    const id = onlineHashId();
    if (id && id !== online.id) online.open(id);
    // Back from an online game to a local one's address.
    if (!id && online.active && new URLSearchParams(location.hash.slice(1)).has('moves')) { online.leave(); startLocal(); }
  });
  const choose = (choice) => act(async () => {
    if (!state) return;
    say('');
    humanChose = true;
    // The computer's reply, if any, arrives over the game's WebSocket.
    setState(await api('POST', `/api/games/${state.id}/choose`, { choice, wait: false }));
  });
  $('choose-black').onclick = () => choose('black');
  $('choose-white').onclick = () => choose('white');
  $('choose-place-two').onclick = () => choose('place_two');
  // With no game (the new-game dialog closed), these buttons are disabled; a stray event does
  // nothing.
  const onGame = (fn) => () => { if (state && !state.online) return act(fn); return undefined; };
  $('undo').onclick = onGame(async () => { setState(await api('POST', `/api/games/${state.id}/undo`), { quiet: true }); say('Move taken back.'); });
  $('redo').onclick = onGame(async () => { setState(await api('POST', `/api/games/${state.id}/redo`), { quiet: true }); say(''); });
  $('step').onclick = onGame(async () => { const r = await api('POST', `/api/games/${state.id}/step`); setState(r, { quiet: true }); sound('stone'); say(computerPlayed(r.computer_moves || (r.computer_move ? [r.computer_move] : []))); });
  $('hint').onclick = onGame(async () => {
    const h = await api('POST', `/api/games/${state.id}/hint`);
    hintAt = h.point; render();
    say(`Hint: ${h.move.toUpperCase()} (${h.score}).`);
  });
  $('resign').onclick = () => {
    if (!state || !confirm('Resign this game?')) return;
    act(async () => setState(await api('POST', `/api/games/${state.id}/resign`)));
  };
  $('draw').onclick = () => {
    if (!state) return;
    if (state.opponent === 'friend') {
      if (!confirm('Does the other player accept a draw?')) return;
      act(async () => { const r = await api('POST', `/api/games/${state.id}/draw`, { agreed: true }); setState(r.state); say(r.message); });
    } else {
      act(async () => { const r = await api('POST', `/api/games/${state.id}/draw`); setState(r.state); say(r.message); });
    }
  };
  // Replay is read-only: it shows an earlier position and never changes the game; "Continue
  // from here" starts a new game from the position shown.
  const at = () => (viewPly === null ? state.moves.length : viewPly);
  const go = (ply) => {
    if (!state || state.online) return;
    ply = Math.max(0, Math.min(allPoints().length, ply));
    viewPly = ply === state.moves.length ? null : ply;
    pending = null;
    render();
    syncLive();
  };
  $('first').onclick = () => go(0);
  $('back').onclick = () => state && go(at() - 1);
  $('forward').onclick = () => state && go(at() + 1);
  $('last').onclick = () => state && go(state.moves.length);
  $('slider').oninput = () => go(Number($('slider').value));
  $('moves').onclick = (e) => { const li = e.target.closest('li'); if (li) go(Number(li.dataset.ply)); };
  $('continue').onclick = onGame(async () => {
    const r = await api('POST', `/api/games/${state.id}/continue`, { ply: at() });
    switchTo(r);
    say(`A new game from move ${r.moves.length}; the game before is kept as it was.`);
  });
  for (const id of ['opt-numbers', 'opt-coords', 'opt-confirm']) {
    $(id).checked = store.get(id, $(id).checked);
    $(id).onchange = () => { store.set(id, $(id).checked); pending = null; render(); };
  }
  $('mute').onclick = () => { store.set('muted', !store.get('muted', false)); renderMute(); };
  renderMute();
  $('analyse').onclick = () => { if (state) analyse(); };
  for (const id of ['analysis-live', 'multipv']) $(id).addEventListener('change', syncLive);
  $('analysis-panel').addEventListener('toggle', syncLive);
  $('download').onclick = () => {
    if (!state) return;
    const a = document.createElement('a');
    a.href = `/api/games/${state.id}/record?format=${$('format').value}`;
    a.download = `tengen-${state.id}.${$('format').value}`;
    document.body.appendChild(a); a.click(); a.remove();
  };
  // Nothing to read is not an empty game: the game shown stays as it is.
  $('open-file').onchange = async () => {
    const f = $('open-file').files[0]; if (!f) return;
    const text = await f.text();
    const ext = f.name.split('.').pop().toLowerCase();
    if (!text.trim()) say(`${f.name} is empty: there is no record to load.`, true);
    else await importRecord(text, ['psq', 'sgf', 'txt'].includes(ext) ? { format: ext } : {});
    $('open-file').value = '';
  };
  $('paste-load').onclick = () => {
    const text = $('paste-text').value;
    if (!text.trim()) { say('Paste a record first (a move list, psq or SGF) in the box above.', true); return; }
    importRecord(text);
  };
  $('share').onclick = async () => {
    if (!state || state.online) { $('share-link').hidden = true; say('There is no game to share yet.', true); return; }
    const link = location.origin + '/' + shareHash();
    $('share-link').hidden = false; $('share-link').value = link; $('share-link').select();
    try { await navigator.clipboard.writeText(link); say('Share link copied.'); } catch { say('Copy the link below.'); }
  };
  $('results-button').onclick = showResults;
  $('games-button').onclick = showGames;
  $('pause').onclick = () => { setPaused(!autoPaused); if (state) render(); if (!autoPaused) autoplay(); };
  // The speed is one of the page's settings, kept like the others.
  $('speed').value = String(store.get('speed', $('speed').value));
  if (!$('speed').value) $('speed').selectedIndex = 0;
  $('speed').onchange = () => store.set('speed', $('speed').value);
  $('theme').onclick = () => { store.set('theme', darkNow() ? 'light' : 'dark'); applyTheme(); };
  applyTheme();
}

// Dark or light: the system's choice until the player picks one with the toggle.
const darkQuery = window.matchMedia('(prefers-color-scheme: dark)');
function darkNow() { const t = store.get('theme', null); return t ? t === 'dark' : darkQuery.matches; }
function applyTheme() {
  const t = store.get('theme', null);
  if (t) document.documentElement.dataset.theme = t; else delete document.documentElement.dataset.theme;
  $('theme').setAttribute('aria-pressed', String(darkNow()));
  $('theme').textContent = darkNow() ? 'Light' : 'Dark';
}
darkQuery.addEventListener('change', applyTheme);

// What online.js needs of the page: the board, the panels and the sounds.
let optionsHome = null;
const onlineHost = {
  store,
  sound,
  // Asks whoever opened an invitation whether to play, and their name: `{ play, name }`.
  askJoin(name) {
    const d = $('join-dialog');
    $('join-name').value = name || '';
    return new Promise((resolve) => {
      d.addEventListener('close', () => {
        const n = $('join-name').value.trim().slice(0, 40);
        if (d.returnValue === 'play' && n) store.set('settings', { ...(store.get('settings', null) || formSettings()), player: n });
        resolve({ play: d.returnValue === 'play', name: n });
      }, { once: true });
      d.returnValue = '';
      d.showModal();
    });
  },
  showBoard(b) {
    const before = state;
    if (!before || before.id !== b.id || before.points.length !== b.points.length) pending = null;
    state = b;
    hintAt = null; pvLine = null;
    render();
  },
  async enter() {
    if (!document.body.classList.contains('online')) {
      // A computer's search under way is stopped first (that game is left); an idle local game
      // stays on the server, so the local page finds it again afterwards.
      await settle();
    }
    unwatch();
    state = null; pending = null; geometry = ''; viewPly = null;
    syncLive();
    document.body.classList.add('online');
    $('panel').hidden = true;
    $('online-panel').hidden = false;
    const opts = document.querySelector('.options');
    if (!optionsHome) optionsHome = opts.nextElementSibling;
    $('online-options').appendChild(opts);
    $('board').replaceChildren();
  },
  exit() {
    document.body.classList.remove('online');
    $('online-panel').hidden = true;
    $('panel').hidden = false;
    if (optionsHome) $('panel').insertBefore(document.querySelector('.options'), optionsHome);
    state = null; pending = null; geometry = '';
    $('board').replaceChildren();
  },
};
async function init() {
  online = createOnline(onlineHost);
  wire();
  updateButtons();
  loadForm();
  const onlineId = onlineHashId();
  if (onlineId) { await online.open(onlineId); return; }
  await startLocal();
}
// The page without an online game: the last local game, if the server still has it; a link to
// another position opens that instead.
async function startLocal() {
  let resumed = null;
  const id = store.get('game', null);
  if (id) { try { resumed = await api('GET', `/api/games/${id}`); } catch { /* gone */ } }
  // A hand-typed or damaged address (`#%`) is not a share link; it must not stop the page.
  let hash = location.hash;
  try { hash = decodeURIComponent(hash); } catch { /* kept as it is */ }
  const linked = new URLSearchParams(location.hash.slice(1)).has('moves');
  // The address this page wrote for the game may be a move behind it (the computer replied
  // meanwhile, or another tab played): that is still this game, not a position to copy.
  const earlier = (r) => {
    const mine = shareHash({ ...r, moves: [] });
    if (!hash.startsWith(mine)) return false;
    const listed = hash.slice(mine.length);
    return !listed || (r.moves.join(r.width ? ',' : ';') + (r.width ? ',' : ';')).startsWith(listed + (r.width ? ',' : ';'));
  };
  if (resumed && (!linked || shareHash(resumed) === hash || earlier(resumed))) {
    autoPaused = store.get('paused', null) === resumed.id;
    setState(resumed, { quiet: true });
    autoplay();
    return;
  }
  if (linked && await fromHash().then(() => !!state, () => false)) return;
  $('new-game-dialog').showModal();
}
init();
