// Online play between people (docs/api.md, "Online play"): create, join or watch a game over HTTP,
// then one WebSocket per page carries the moves, requests and chat. The board itself is drawn by
// app.js; this module turns each `state` frame into the board it draws and fills the online panel.
const $ = (id) => document.getElementById(id);

const RETRY_MS = [500, 1000, 2000, 4000, 8000, 15000];
const CHAT_MAX = 300;
const CHAT_KEEP = 200;

export function onlineHashId(hash = location.hash) {
  const m = /^#online=([A-Za-z0-9_-]+)/.exec(hash);
  return m ? m[1] : null;
}

// host: { store, showBoard(board), enter(), exit(), sound(kind) } from app.js.
export function createOnline(host) {
  const { store } = host;
  let cur = null;      // the online game shown: see open()
  let ticker = null;

  const tokenKey = (id) => 'online.token.' + id;
  const myName = () => String(((store.get('settings', {}) || {}).player) || '').trim().slice(0, 40);
  const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : '');
  const seatIdx = (role) => (role === 'second' ? 1 : 0);
  const isPlayer = () => !!cur && (cur.role === 'first' || cur.role === 'second');

  // ---- HTTP ------------------------------------------------------------------------------
  async function http(method, path, body) {
    const opts = { method, headers: {} };
    if (body !== undefined) { opts.headers['content-type'] = 'application/json'; opts.body = JSON.stringify(body); }
    const res = await fetch(path, opts);
    const text = await res.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch { data = text; }
    return { status: res.status, ok: res.ok, data, error: (data && data.error) || `${res.status} ${res.statusText}` };
  }

  function say(text, error = false) {
    const m = $('online-message');
    m.textContent = text || '';
    m.classList.toggle('error', !!error);
  }

  function inviteLink(id) { return `${location.origin}/#online=${id}`; }

  // ---- creating, opening and leaving ---------------------------------------------------------
  async function create(req) {
    const r = await http('POST', '/api/online', req);
    if (!r.ok) throw new Error(r.error);
    store.set(tokenKey(r.data.id), r.data.token);
    history.replaceState(null, '', '#online=' + r.data.id);
    await open(r.data.id);
    say('Game created: send the invitation link to your friend.');
  }

  // Shows game `id`: as its player when this browser holds a seat's token, else by joining its
  // free seat, else (both seats taken, or `watch`) as a spectator.
  async function open(id, { watch = false, join = false } = {}) {
    if (cur && cur.id === id) return;
    stop();
    await host.enter();
    cur = { id, token: null, role: null, ws: null, welcomed: false, state: null, at: 0, closing: false,
      retry: 0, retryTimer: null, retryAt: 0, moveSent: 0, followed: false, chatCount: 0, fatal: false,
      refused: null };
    const me = cur;
    $('invite-link').value = inviteLink(id);
    $('chat-log').replaceChildren();
    say('');
    renderPanel();
    if (!ticker) ticker = setInterval(tick, 250);
    const g = await http('GET', `/api/online/${id}`).catch((e) => ({ ok: false, status: 0, error: e.message }));
    if (cur !== me) return;
    if (g.status === 404) { me.fatal = true; say('There is no such online game (the link may be wrong, or the game is gone).', true); renderPanel(); return; }
    if (g.ok && g.data) { me.state = g.data; me.at = performance.now(); showState(null); }
    let token = store.get(tokenKey(id), null);
    // Whoever follows an invitation is asked before taking a seat, and may give a name; with
    // both seats taken there is nothing to ask: they watch.
    const free = !(g.ok && g.data && g.data.seats) || g.data.seats.some((st) => !st.taken);
    let name = myName();
    if (!token && !watch && free && !join) {
      const answer = await host.askJoin(name);
      if (cur !== me) return;
      if (!answer.play) watch = true; else name = answer.name;
      if (watch) say('You are watching.');
    } else if (!token && !watch && !free) {
      watch = true;
      say('Both seats are taken: you are watching.');
    }
    if (!token && !watch) {
      const r = await http('POST', `/api/online/${id}/join`, name ? { name } : {}).catch((e) => ({ ok: false, status: 0, error: e.message }));
      if (cur !== me) return;
      if (r.ok && r.data && r.data.token) {
        token = r.data.token;
        store.set(tokenKey(id), token);
        say('You joined the game.');
      } else if (r.status === 409) {
        say('Both seats are taken: you are watching.');
      } else if (r.status === 404) {
        me.fatal = true; say('There is no such online game.', true); renderPanel(); return;
      } else {
        say(`Could not join (${r.error}): watching.`, true);
      }
    }
    me.token = token;
    connect();
  }

  // Stops showing the online game (closes its connection).
  function stop() {
    if (!cur) return;
    const c = cur;
    cur = null;
    c.closing = true;
    clearTimeout(c.retryTimer);
    if (c.ws) { try { c.ws.close(1000); } catch { /* closed */ } }
    document.title = 'Tengen — Gomoku and Renju';
  }

  function leave() {
    const was = !!cur;
    stop();
    if (ticker) { clearInterval(ticker); ticker = null; }
    if (was) host.exit();
  }

  // ---- the WebSocket ---------------------------------------------------------------------------
  function connect() {
    const me = cur;
    if (!me || me.closing) return;
    clearTimeout(me.retryTimer);
    me.retryTimer = null;
    me.refused = null;
    me.welcomed = false;
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    let ws;
    try { ws = new WebSocket(`${proto}//${location.host}/api/online/${me.id}/ws`); } catch { scheduleRetry(me); return; }
    me.ws = ws;
    renderConn();
    ws.onopen = () => {
      const name = myName();
      const hello = me.token ? { type: 'hello', token: me.token } : { type: 'hello', ...(name ? { name } : {}) };
      ws.send(JSON.stringify(hello));
      renderConn();
    };
    ws.onmessage = (e) => {
      if (cur !== me || me.ws !== ws) return;
      let msg;
      try { msg = JSON.parse(e.data); } catch { return; }
      onFrame(me, msg);
    };
    ws.onclose = (e) => {
      if (me.ws !== ws) return;
      me.ws = null;
      me.moveSent = 0;
      if (cur !== me || me.closing) return;
      // The seat's token was just refused (see onFrame): connect again at once, to watch.
      if (me.watchNext) {
        me.watchNext = false;
        me.retry = 0;
        connect();
        return;
      }
      // The server closed the connection on purpose and said why (a frame too large, 1009; a
      // rule broken, 1008): connecting again at once would only meet the same end, so the page
      // says why and leaves reconnecting to the player.
      if (e.code === 1008 || e.code === 1009) {
        me.refused = e.reason || 'the server closed the connection';
        say(`Disconnected by the server (${me.refused}): use Reconnect now to connect again.`, true);
        renderPanel();
        return;
      }
      scheduleRetry(me);
      renderPanel();
    };
  }

  function scheduleRetry(me) {
    const delay = RETRY_MS[Math.min(me.retry, RETRY_MS.length - 1)];
    me.retry += 1;
    me.retryAt = performance.now() + delay;
    clearTimeout(me.retryTimer);
    me.retryTimer = setTimeout(() => { if (cur === me) connect(); }, delay);
    renderConn();
  }

  function reconnectNow() {
    if (!cur || cur.fatal || (cur.ws && cur.ws.readyState <= 1)) return;
    cur.retry = 0;
    connect();
  }

  function send(msg) {
    if (!cur || !cur.ws || cur.ws.readyState !== 1 || !cur.welcomed) { say('Not connected: wait a moment.', true); return false; }
    cur.ws.send(JSON.stringify(msg));
    return true;
  }

  function onFrame(me, msg) {
    switch (msg.type) {
      case 'welcome':
        me.welcomed = true;
        me.role = msg.role;
        me.retry = 0;
        $('chat-log').replaceChildren();   // the history follows
        me.chatCount = 0;
        renderPanel();
        break;
      case 'state': {
        const before = me.state;
        me.state = msg;
        me.at = performance.now();
        me.moveSent = 0;
        showState(before);
        break;
      }
      case 'chat': addChat(msg); break;
      case 'notice': say(msg.text); break;
      case 'error':
        me.moveSent = 0;
        if (!me.welcomed && me.token) {
          // The seat's token was refused: watch instead (the token stays stored).
          me.token = null;
          me.watchNext = true;
          say(`Your seat was refused (${msg.message}): watching.`, true);
        } else {
          say(msg.message, true);
          host.sound('error');
        }
        break;
      default: break;
    }
  }

  // ---- state -------------------------------------------------------------------------------------
  function pointName(s, x, y) {
    if (!s.height) return `${x},${y}`;
    let n = x + 1, col = '';
    while (n > 0) { n--; col = String.fromCharCode(97 + (n % 26)) + col; n = Math.floor(n / 26); }
    return col + (s.height - y);
  }

  function myTurn(s = cur && cur.state) {
    return !!(s && isPlayer() && !s.outcome && s.pending && s.pending.seat === cur.role);
  }

  function showState(before) {
    const s = cur.state;
    if (!s) return;
    const canMove = myTurn(s) && s.pending.kind === 'move';
    const over = !!s.outcome || s.pending.kind === 'over';
    host.showBoard({
      online: true,
      id: 'online:' + s.id,
      size: s.size,
      width: s.width,
      height: s.height,
      points: s.points,
      redo_points: [],
      moves: s.moves,
      to_move: canMove ? s.pending.color : null,
      readonly: !canMove,
      over,
      last_move: s.points.length ? s.points[s.points.length - 1] : null,
      winning_line: [],
      winning_lines: s.outcome ? s.outcome.lines || [] : [],
      forbidden: (s.forbidden || []).map((f) => ({ ...f, name: pointName(s, f.x, f.y) })),
      threats: (s.threats || []).map((t) => ({ ...t, name: pointName(s, t.x, t.y) })),
    });
    renderPanel();
    if (before && before.id === s.id) {
      // A notice is about the game as it was ("Not your turn.", "Bob withdrew the takeback
      // request"): once the game moves on it is stale, and the line says what changed, if
      // anything (a notice about the change itself comes after this state).
      const joined = [0, 1].find((i) => !before.seats[i].taken && s.seats[i].taken);
      const req = (r) => (r ? `${r.kind}:${r.by}` : '');
      const moved = s.moves.length !== before.moves.length || s.moves[s.moves.length - 1] !== before.moves[before.moves.length - 1];
      if (joined !== undefined) {
        say(cur.role === (joined === 0 ? 'first' : 'second') ? 'You joined the game.' : `${s.seats[joined].name || 'Anonymous'} joined the game.`);
      } else if (moved || req(s.request) !== req(before.request) || (s.outcome && !before.outcome)) say('');
      if (s.points.length > before.points.length) host.sound('stone');
      if (s.outcome && !before.outcome) {
        const won = isPlayer() && s.outcome.winner_seat === cur.role;
        const lost = isPlayer() && s.outcome.winner_seat && s.outcome.winner_seat !== cur.role;
        host.sound(lost ? 'loss' : 'win');
        if (won) say('You won!');
      }
    }
    // A rematch was agreed: the same token seats this player in the new game.
    if (s.rematch && s.rematch !== s.id && !cur.followed) {
      cur.followed = true;
      const wasPlayer = isPlayer() && cur.token;
      if (wasPlayer) store.set(tokenKey(s.rematch), cur.token);
      const next = s.rematch;
      setTimeout(() => {
        if (!cur || cur.id !== s.id) return;
        history.replaceState(null, '', '#online=' + next);
        open(next, { watch: !wasPlayer }).then(() => say('Rematch: a new game with the colours swapped.'));
      }, 300);
    }
  }

  // ---- the panel ---------------------------------------------------------------------------------
  function seatLabel(s, seat) {
    const st = s && s.seats[seatIdx(seat)];
    return (st && st.name) || (seat === 'first' ? 'the first player' : 'the second player');
  }

  function statusText(s) {
    if (!s) return cur && cur.fatal ? 'No game' : 'Connecting…';
    if (s.outcome) return s.outcome.text;
    const p = s.pending || {};
    const mine = myTurn(s);
    const who = p.seat ? seatLabel(s, p.seat) : '';
    if (p.kind === 'waiting') return 'Waiting for an opponent to join';
    if (p.kind === 'choice') {
      const two = (p.options || []).includes('place_two');
      if (mine) return two ? 'Choose your colour, or place two more stones' : 'Choose your colour';
      return `${who} is choosing a colour`;
    }
    if (p.kind === 'move') {
      const settled = s.seats[0].color || s.seats[1].color;
      if (!settled) {   // a swap opening's stones, before the colours are chosen
        const n = s.moves.length + 1;
        return mine ? `Place opening stone ${n} (${p.color})` : `${cap(who)} places opening stone ${n} (${p.color})`;
      }
      return mine ? `Your move (${p.color})` : `${cap(p.color)} to move (${who})`;
    }
    return 'Game over';
  }

  function roleText() {
    if (!cur) return '';
    if (cur.fatal) return '';
    if (!cur.role) return cur.token ? 'Connecting as a player…' : 'Connecting…';
    if (cur.role === 'spectator') return 'Watching';
    const s = cur.state;
    const color = s && s.seats[seatIdx(cur.role)].color;
    if (color) return `You are ${color}`;
    return `You are the ${cur.role} player (colours not settled yet)`;
  }

  function fmtClock(ms) {
    const t = Math.max(0, Math.ceil(ms / 1000));
    const h = Math.floor(t / 3600), m = Math.floor((t % 3600) / 60), sec = t % 60;
    return (h ? `${h}:${String(m).padStart(2, '0')}` : String(m)) + `:${String(sec).padStart(2, '0')}`;
  }

  function elapsed() { return cur && cur.state ? performance.now() - cur.at : 0; }

  function clockLeft(s, i) {
    const st = s.seats[i];
    if (st.clock_ms === null || st.clock_ms === undefined) return null;
    const run = s.running && seatIdx(s.running) === i && !s.outcome;
    return Math.max(0, st.clock_ms - (run ? elapsed() : 0));
  }

  function goneMs(s, i) {
    const st = s.seats[i];
    if (!st.taken || st.connected) return null;
    return (st.gone_ms || 0) + elapsed();
  }

  function renderSeats() {
    const s = cur && cur.state;
    for (const [i, seat] of [[0, 'first'], [1, 'second']]) {
      const li = $('seat-' + seat);
      const st = s && s.seats[i];
      const color = st && st.color;
      li.querySelector('.dot').className = 'dot ' + (color || 'unknown');
      let name = st && st.taken ? (st.name || 'Anonymous') : 'waiting for a player…';
      if (cur && cur.role === seat) name += ' (you)';
      li.querySelector('.seat-name').textContent = name;
      li.querySelector('.seat-color').textContent = color ? cap(color) : (seat === 'first' ? 'First' : 'Second');
      li.classList.toggle('to-move', !!(s && !s.outcome && s.pending && s.pending.seat === seat && s.pending.kind !== 'waiting'));
      li.classList.toggle('winner', !!(s && s.outcome && s.outcome.winner_seat === seat));
      renderSeatLive(i);
    }
  }

  // The parts of a seat that change between frames: its clock and how long its player has been gone.
  function renderSeatLive(i) {
    const seat = i === 0 ? 'first' : 'second';
    const li = $('seat-' + seat);
    const s = cur && cur.state;
    const st = s && s.seats[i];
    const conn = li.querySelector('.seat-conn');
    if (!st || !st.taken) conn.textContent = '';
    else if (st.connected) conn.textContent = 'online';
    else conn.textContent = `gone for ${Math.floor(goneMs(s, i) / 1000)} s`;
    conn.classList.toggle('gone', !!(st && st.taken && !st.connected));
    const clock = li.querySelector('.seat-clock');
    const left = s ? clockLeft(s, i) : null;
    clock.hidden = left === null;
    if (left !== null) {
      clock.textContent = fmtClock(left);
      const run = !!(s.running && seatIdx(s.running) === i && !s.outcome);
      clock.classList.toggle('running', run);
      clock.classList.toggle('low', left < 10000);
    }
  }

  function renderConn() {
    if (!cur) return;
    const e = $('online-conn');
    let text;
    if (cur.fatal) text = 'Not connected';
    else if (cur.ws && cur.ws.readyState === 1 && cur.welcomed) text = 'Connected';
    else if (cur.ws && cur.ws.readyState <= 1) text = 'Connecting…';
    else if (cur.retryTimer) text = `Disconnected: reconnecting in ${Math.max(1, Math.ceil((cur.retryAt - performance.now()) / 1000))} s`;
    else if (cur.refused) text = 'Disconnected by the server';
    else text = 'Not connected';
    e.textContent = text;
    e.classList.toggle('gone', text !== 'Connected');
    $('online-reconnect').hidden = !((cur.retryTimer || cur.refused) && !cur.fatal);
  }

  function claimable(s) {
    if (!isPlayer() || !s || s.outcome) return false;
    const oi = 1 - seatIdx(cur.role);
    const opp = s.seats[oi];
    if (!opp.taken) return false;
    if (opp.claimable) return true;
    const g = goneMs(s, oi);
    return g !== null && s.grace_secs > 0 && g > s.grace_secs * 1000 + 1000;
  }

  function renderButtons() {
    const s = cur && cur.state;
    const player = isPlayer();
    const live = !!(cur && cur.ws && cur.ws.readyState === 1 && cur.welcomed);
    $('online-actions').hidden = !player;
    const over = !s || !!s.outcome || s.pending.kind === 'over';
    const started = !!s && s.pending.kind !== 'waiting';
    const req = s && s.request;
    // A takeback takes back the asker's own last action: none yet, nothing to ask for (the
    // server counts each seat's stones and decisions; an older one did not, and the page
    // guessed from the moves).
    const myActions = player && s ? s.seats[seatIdx(cur.role)].actions : undefined;
    const ownActions = myActions === undefined || myActions === null ? !!(s && s.moves.length) : myActions > 0;
    $('online-takeback').disabled = !live || over || !started || !ownActions || !!req;
    $('online-draw').disabled = !live || over || !started || !!req;
    $('online-resign').disabled = !live || over || !started;
    $('online-rematch').hidden = !s || !over || !player;
    $('online-rematch').disabled = !live || !over || !!(s && s.rematch) || !!req;
    $('online-claim').disabled = !live || !claimable(s);
    // The swap decision.
    const choosing = !!(s && !s.outcome && s.pending.kind === 'choice' && myTurn(s));
    $('online-choice').hidden = !choosing;
    if (choosing) {
      $('online-choose-place-two').hidden = !s.pending.options.includes('place_two');
      $('online-choose-black').hidden = !s.pending.options.includes('black');
      $('online-choose-white').hidden = !s.pending.options.includes('white');
    }
    for (const id of ['online-choose-black', 'online-choose-white', 'online-choose-place-two']) $(id).disabled = !live;
    // The pending request.
    const box = $('online-request');
    box.hidden = !req;
    if (req) {
      const what = { takeback: 'a takeback', draw: 'a draw', rematch: 'a rematch' }[req.kind] || req.kind;
      const mine = player && req.by === cur.role;
      const theirs = player && !mine;
      if (mine) $('request-text').textContent = `You asked ${seatLabel(s, req.by === 'first' ? 'second' : 'first')} for ${what}: waiting…`;
      else $('request-text').textContent = `${cap(seatLabel(s, req.by))} asks for ${what}.`;
      $('request-accept').hidden = !theirs;
      $('request-decline').hidden = !theirs;
      $('request-cancel').hidden = !mine;
      for (const id of ['request-accept', 'request-decline', 'request-cancel']) $(id).disabled = !live;
    }
    $('chat-send').disabled = !live;
  }

  function renderMoves() {
    const s = cur && cur.state;
    const ol = $('online-moves');
    ol.replaceChildren();
    if (!s) return;
    for (const m of s.moves) { const li = document.createElement('li'); li.textContent = m; ol.appendChild(li); }
    ol.scrollTop = ol.scrollHeight;
  }

  function renderPanel() {
    if (!cur) return;
    const s = cur.state;
    $('online-role').textContent = roleText();
    $('online-status').textContent = statusText(s);
    const waiting = !!(s && s.pending.kind === 'waiting');
    $('invite-label').textContent = waiting && isPlayer() ? 'Invite a friend: send them this link' : 'Link to this game (to watch it)';
    $('online-invite').classList.toggle('waiting', waiting);
    $('spectators').textContent = s ? `${s.spectators} watching` : '';
    document.title = myTurn(s) ? '● Your turn — Tengen' : 'Tengen — online game';
    renderSeats();
    renderConn();
    renderButtons();
    renderMoves();
  }

  function tick() {
    if (!cur) return;
    const s = cur.state;
    if (s) { renderSeatLive(0); renderSeatLive(1); $('online-claim').disabled = !(cur.ws && cur.welcomed) || !claimable(s); }
    renderConn();
  }

  // ---- chat --------------------------------------------------------------------------------------
  function chatRole(role) {
    if (role === 'spectator') return 'watching';
    const s = cur && cur.state;
    const color = s && s.seats[seatIdx(role)].color;
    return color || (role === 'first' ? 'first player' : 'second player');
  }

  function addChat(c) {
    const log = $('chat-log');
    const li = document.createElement('li');
    li.className = 'chat-' + (c.role || 'spectator');
    const who = document.createElement('span');
    who.className = 'chat-who';
    who.textContent = `${c.name || 'Anonymous'} (${chatRole(c.role)})`;
    const text = document.createElement('span');
    text.className = 'chat-text';
    text.textContent = c.text;
    li.append(who, ': ', text);
    if (c.at_ms) li.title = new Date(c.at_ms).toLocaleTimeString();
    log.appendChild(li);
    while (log.children.length > CHAT_KEEP) log.firstChild.remove();
    log.scrollTop = log.scrollHeight;
  }

  // ---- actions ------------------------------------------------------------------------------------
  // Called by the board: whether a stone may be played now (and why not, when not).
  function canPlay() {
    const s = cur && cur.state;
    if (!s) return false;
    if (!isPlayer()) { say('You are watching this game.'); return false; }
    if (s.outcome) return false;
    if (s.pending.kind === 'waiting') { say('Wait for your opponent to join.'); return false; }
    if (!myTurn(s)) { say('Not your turn.'); return false; }
    if (s.pending.kind === 'choice') { say('Choose first: use the buttons in the panel.'); return false; }
    // One stone at a time: the next waits for the server's answer (or a few seconds without one).
    if (cur.moveSent && performance.now() - cur.moveSent < 3000) return false;
    return true;
  }

  function move(x, y) {
    const s = cur && cur.state;
    if (!s || !canPlay()) return;
    const f = (s.forbidden || []).find((p) => p.x === x && p.y === y);
    // Under the friendly policy the server refuses a forbidden move and says why, as in a
    // game in one browser; under the tournament one it stands and loses, so the page asks.
    if (f && s.pending.color === 'black' && s.forbidden_policy !== 'refuse'
      && !confirm(`${pointName(s, x, y).toUpperCase()} is forbidden to black (${String(f.kind).replace('_', '-')}): playing it loses the game. Play it anyway?`)) return;
    // The move names the position it was played on (its stones): one that crossed a change,
    // a takeback accepted meanwhile, is refused rather than played on a board never seen.
    if (send({ type: 'move', at: pointName(s, x, y), moves: s.moves.length })) { cur.moveSent = performance.now(); say(''); }
  }

  function wire() {
    $('copy-invite').onclick = async () => {
      const input = $('invite-link');
      input.select();
      try { await navigator.clipboard.writeText(input.value); say('Link copied.'); } catch {
        try { document.execCommand('copy'); say('Link copied.'); } catch { say('Copy the link above.'); }
      }
    };
    const request = (kind) => { if (send({ type: 'request', kind })) say(''); };
    $('online-takeback').onclick = () => request('takeback');
    $('online-draw').onclick = () => request('draw');
    $('online-rematch').onclick = () => request('rematch');
    $('online-resign').onclick = () => { if (confirm('Resign this game?')) send({ type: 'resign' }); };
    $('online-claim').onclick = () => send({ type: 'claim' });
    // The answer names the request the player was shown: if it changed meanwhile (withdrawn and
    // another asked), the server refuses the answer instead of applying it to the new request.
    const answer = (type) => {
      const req = cur && cur.state && cur.state.request;
      send(req ? { type, kind: req.kind } : { type });
    };
    $('request-accept').onclick = () => answer('accept');
    $('request-decline').onclick = () => answer('decline');
    $('request-cancel').onclick = () => send({ type: 'cancel' });
    // A decision, too, names the position the player chose on.
    const choose = (choice) => {
      const s = cur && cur.state;
      send(s ? { type: 'choose', choice, moves: s.moves.length } : { type: 'choose', choice });
    };
    $('online-choose-black').onclick = () => choose('black');
    $('online-choose-white').onclick = () => choose('white');
    $('online-choose-place-two').onclick = () => choose('place_two');
    $('online-reconnect').onclick = reconnectNow;
    $('chat-form').addEventListener('submit', (e) => {
      e.preventDefault();
      const input = $('chat-input');
      const text = input.value.trim();
      if (!text) return;
      if ([...text].length > CHAT_MAX) { say(`A chat line is at most ${CHAT_MAX} characters.`, true); return; }
      if (send({ type: 'chat', text })) input.value = '';
    });
    $('online-download').onclick = () => {
      if (!cur) return;
      const f = $('online-format').value;
      const a = document.createElement('a');
      a.href = `/api/online/${cur.id}/record?format=${f}`;
      a.download = `tengen-online-${cur.id}.${f}`;
      document.body.appendChild(a); a.click(); a.remove();
    };
    // Back online or back to the tab: connect again at once, unless the server closed the
    // connection on purpose (then the player reconnects).
    const resume = () => { if (cur && !cur.refused) reconnectNow(); };
    window.addEventListener('online', resume);
    document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'visible') resume(); });
    // The lobby.
    $('lobby-refresh').onclick = refreshLobby;
    $('lobby-close').onclick = () => $('lobby-dialog').close();
  }

  // ---- the lobby ---------------------------------------------------------------------------------
  function clockText(c) {
    if (!c || c.kind === 'none') return 'no clock';
    if (c.kind === 'per_move') return `${Math.round(c.ms / 1000)} s a move`;
    return `${Math.round(c.ms / 60000)} min + ${Math.round((c.increment_ms || 0) / 1000)} s`;
  }
  function gameText(g) { return `${g.rule}, ${g.size}, ${g.opening} opening, ${clockText(g.clock)}`; }

  async function showLobby() {
    if (!$('lobby-dialog').open) $('lobby-dialog').showModal();
    await refreshLobby();
  }

  async function refreshLobby() {
    const msg = $('lobby-message');
    msg.textContent = 'Loading…';
    const r = await http('GET', '/api/online/lobby').catch((e) => ({ ok: false, error: e.message }));
    if (!r.ok) { msg.textContent = `Could not load the lobby: ${r.error}`; return; }
    msg.textContent = `Updated ${new Date().toLocaleTimeString()}.`;
    const fill = (table, games, live) => {
      const tb = table.tBodies[0];
      tb.replaceChildren();
      if (!games.length) {
        const td = tb.insertRow().insertCell();
        td.colSpan = 5;
        td.textContent = live ? 'No games under way.' : 'No open games: create one with New online game.';
        return;
      }
      for (const g of games) {
        const tr = tb.insertRow();
        tr.dataset.id = g.id;
        const names = g.players.map((p) => p || '—');
        const players = live ? `${names[0]} vs ${names[1]}` : (g.players.find(Boolean) || 'Anonymous');
        tr.insertCell().textContent = players;
        tr.insertCell().textContent = gameText(g);
        tr.insertCell().textContent = live ? String(g.moves) : (g.free === 'first' ? 'first (black)' : 'second (white)');
        tr.insertCell().textContent = String(g.spectators);
        const b = document.createElement('button');
        b.type = 'button';
        b.textContent = live ? 'Watch' : 'Join';
        b.setAttribute('aria-label', `${live ? 'Watch' : 'Join'} ${players} (${gameText(g)})`);
        b.onclick = () => {
          $('lobby-dialog').close();
          history.replaceState(null, '', '#online=' + g.id);
          // Join is the player's own choice here: no need to ask again.
          open(g.id, live ? { watch: true } : { join: true });
        };
        tr.insertCell().appendChild(b);
      }
    };
    fill($('lobby-open'), r.data.open || [], false);
    fill($('lobby-live'), r.data.live || [], true);
  }

  wire();
  return {
    create, open, leave, showLobby, canPlay, move, say,
    get id() { return cur ? cur.id : null; },
    get active() { return !!cur; },
  };
}
