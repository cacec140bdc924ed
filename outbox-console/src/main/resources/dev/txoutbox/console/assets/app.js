// The txoutbox console's pages. Every value is put into the page as text (textContent, text nodes,
// setAttribute): nothing here parses HTML, so a payload, header or error shows as what it is.
'use strict';
(() => {
  const mount = document.body.dataset.mount || '';
  const main = document.getElementById('main');
  const top = document.getElementById('top');
  const SECRET = 'txoutbox-console-secret';
  const REFRESH_MS = 10000;
  let session = null;
  let refresh = null;

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? '' : String(v));
    }
    for (const c of children.flat(Infinity)) {
      if (c === null || c === undefined || c === false) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }

  // The page's content; absent parts (null, false) are left out.
  function show(...nodes) {
    main.replaceChildren(...nodes.flat(Infinity).filter((n) => n !== null && n !== undefined && n !== false));
  }

  // Where we are: /o/<outbox>/<page>[/<id>] below the mount point.
  function place() {
    const parts = location.pathname.slice(mount.length).split('/');
    if (parts[1] === 'fleet') return { fleet: true, outbox: '', page: '', id: '' };
    return { outbox: decodeURIComponent(parts[2] || ''), page: parts[3] || '', id: parts[4] || '' };
  }
  const pageUrl = (outbox, page, query) =>
    mount + '/o/' + encodeURIComponent(outbox) + '/' + page + (query ? '?' + query : '');

  async function api(path, options) {
    const response = await fetch(mount + '/api/' + path, Object.assign({ credentials: 'same-origin' }, options));
    let body = null;
    try { body = await response.json(); } catch (e) { body = { error: 'the console answered ' + response.status }; }
    if (!response.ok) {
      const error = new Error(body && body.error ? body.error : 'HTTP ' + response.status);
      error.status = response.status;
      error.body = body;
      throw error;
    }
    return body;
  }
  const outboxApi = (path) => 'o/' + encodeURIComponent(place().outbox) + '/' + path;

  function post(path, form) {
    const headers = { 'Content-Type': 'application/x-www-form-urlencoded' };
    headers[session.csrfHeader] = session.csrfToken;
    const secret = sessionStorage.getItem(SECRET);
    if (secret) headers.Authorization = 'Bearer ' + secret;
    return api(outboxApi(path), { method: 'POST', headers, body: new URLSearchParams(form).toString() });
  }

  const unlocked = () => session && !session.readOnly && !!sessionStorage.getItem(SECRET);
  const time = (t) => t ? t.replace('T', ' ').replace(/(\.\d+)?Z$/, ' UTC') : '—';
  const number = (n) => n === null || n === undefined ? '—' : Number(n).toLocaleString('en-US');
  function age(seconds) {
    if (seconds === null || seconds === undefined) return '—';
    let s = Math.round(seconds);
    if (s < 60) return s + 's';
    const d = Math.floor(s / 86400); s -= d * 86400;
    const h = Math.floor(s / 3600); s -= h * 3600;
    const m = Math.floor(s / 60); s -= m * 60;
    return [d ? d + 'd' : '', h ? h + 'h' : '', m ? m + 'm' : '', !d && s ? s + 's' : ''].filter(Boolean).join(' ');
  }
  function bytes(n) {
    if (n === null || n === undefined) return '—';
    const units = ['bytes', 'kB', 'MB', 'GB', 'TB'];
    let v = n, u = 0;
    while (v >= 1024 && u < units.length - 1) { v /= 1024; u++; }
    return (u ? v.toFixed(1) : v) + ' ' + units[u];
  }
  const badge = (state) => el('span', { class: 'badge ' + state }, state === 'dead' ? 'dead letter' : state);

  function header() {
    const here = place();
    const nav = el('nav', {},
      [['', 'Overview'], ['events', 'Events'], ['dead-letters', 'Dead letters'], ['relays', 'Relays']].map(([page, label]) =>
        el('a', { href: pageUrl(here.outbox || session.outboxes[0], page), class: !here.fleet && here.page === page ? 'current' : null }, label)),
      session.fleet ? el('a', { href: mount + '/fleet', id: 'fleet-link', class: here.fleet ? 'current' : null }, 'Fleet') : null);
    const select = el('select', { 'aria-label': 'Outbox', onchange: (e) => { location.href = pageUrl(e.target.value, here.page); } },
      session.outboxes.map((name) => el('option', { value: name, selected: name === here.outbox }, name)));
    let auth;
    if (session.readOnly) {
      auth = el('div', { class: 'auth', id: 'auth' }, 'Read-only: started without an admin credential');
    } else if (unlocked()) {
      auth = el('div', { class: 'auth', id: 'auth' }, 'Actions unlocked',
        el('button', { id: 'lock', onclick: () => { sessionStorage.removeItem(SECRET); render(); } }, 'Lock'));
    } else {
      const input = el('input', { type: 'password', id: 'secret', placeholder: 'admin credential', autocomplete: 'off' });
      auth = el('form', { class: 'auth', id: 'auth', onsubmit: (e) => {
        e.preventDefault();
        if (input.value.trim()) { sessionStorage.setItem(SECRET, input.value.trim()); render(); }
      } }, input, el('button', { type: 'submit', id: 'unlock' }, 'Unlock actions'));
    }
    top.replaceChildren(el('span', { class: 'brand' }, 'txoutbox console'), select, nav, auth);
  }

  function failure(error) {
    return el('div', { class: 'notice error', role: 'alert' }, error.message);
  }

  // A line chart of the last hour as inline SVG (no library): values over times, with its range.
  const SVG = 'http://www.w3.org/2000/svg';
  function svg(tag, attrs) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    return e;
  }
  function chart(id, label, times, values, format) {
    const w = 520, h = 120, pad = 4;
    const box = svg('svg', { viewBox: '0 0 ' + w + ' ' + h, class: 'chart', role: 'img', 'aria-label': label, id });
    box.append(svg('rect', { x: 0, y: 0, width: w, height: h, class: 'chart-bg' }));
    const max = Math.max(1e-9, ...values);
    const t0 = Date.now() - 3600 * 1000;
    const points = values.map((v, i) => {
      const x = pad + Math.max(0, Math.min(1, (times[i] - t0) / (3600 * 1000))) * (w - 2 * pad);
      const y = h - pad - (v / max) * (h - 2 * pad);
      return x.toFixed(1) + ',' + y.toFixed(1);
    });
    if (points.length) box.append(svg('polyline', { points: points.join(' '), class: 'chart-line' }));
    const last = values.length ? values[values.length - 1] : null;
    return el('div', { class: 'chart-card' },
      el('div', { class: 'label' }, label),
      el('div', { class: 'chart-value' }, last === null ? 'no sample yet' : format(last), el('span', { class: 'muted' }, values.length ? '  (peak ' + format(Math.max(...values)) + ')' : '')),
      box);
  }
  const rate = (v) => (v < 10 ? v.toFixed(2) : Math.round(v).toLocaleString('en-US')) + '/s';

  async function overview() {
    const o = await api(outboxApi('overview'));
    const c = await api(outboxApi('chart'));
    const card = (label, value, cls, href) => el('div', { class: 'card' },
      el(href ? 'a' : 'div', { href }, el('div', { class: 'label' }, label), el('div', { class: 'value ' + (cls || '') }, value)));
    const slot = o.slot;
    show(
      el('h1', {}, 'Overview'),
      el('div', { class: 'problems', id: 'problems' }, o.problems.map((p) => el('div', { class: 'problem ' + p.level }, p.text))),
      el('div', { class: 'cards' },
        card('Pending', number(o.pending), '', pageUrl(place().outbox, 'events', 'state=pending')),
        card('Due now', number(o.dueNow), '', pageUrl(place().outbox, 'events', 'state=due')),
        card('Delayed', number(o.delayed), '', pageUrl(place().outbox, 'events', 'state=delayed')),
        card('Dead letters', number(o.deadLetters), o.deadLetters > 0 ? 'bad' : '', pageUrl(place().outbox, 'dead-letters')),
        card('Oldest due event', age(o.oldestPendingAgeSeconds)),
        card('Published last minute', number(o.processedLastMinute)),
        card('Relays running', o.relaysRunning === null ? '—' : number(o.relaysRunning), o.relaysRunning === 0 ? 'bad' : '', pageUrl(place().outbox, 'relays'))),
      el('h2', {}, 'Last hour'),
      el('div', { class: 'charts' },
        chart('chart-published', 'Published per second', c.t, c.publishedPerSecond, rate),
        chart('chart-pending', 'Pending', c.t, c.pending, number)),
      el('p', { class: 'footnote' }, 'Sampled by this console every ' + c.intervalSeconds + ' s while it runs (' + c.t.length +
        ' samples, kept in memory): so the charts start when the console starts. Published per second is the last minute\'s published events / 60, and 0 when relays delete events as they publish them.'),
      el('h2', {}, 'WAL slot'),
      slot
        ? el('div', { class: 'cards' },
            card('Slot', slot.name), card('In use', slot.active ? 'yes' : 'no', slot.active ? '' : 'bad'),
            card('Lag', bytes(slot.lagBytes)), card('Lag in time', age(slot.lagSeconds)), card('WAL retained', bytes(slot.retainedBytes)))
        : el('p', { class: 'muted' }, 'No WAL slot: this outbox is published by polling relays.'),
      el('p', { class: 'footnote' }, 'Read at ' + new Date().toISOString().replace('T', ' ').slice(0, 19) +
        ' UTC; refreshed every ' + REFRESH_MS / 1000 + ' s. "Published last minute" is 0 when relays delete events as they publish them.'));
    refresh = setTimeout(render, REFRESH_MS);
  }

  function filterForm(query) {
    const field = (name, label, attrs) => el('label', {}, label,
      el('input', Object.assign({ name, value: query.get(name) || '' }, attrs || {})));
    const states = ['all', 'pending', 'due', 'delayed', 'dead', 'processed'];
    return el('form', { class: 'filter', method: 'get', action: pageUrl(place().outbox, 'events'), id: 'filter' },
      el('label', {}, 'State', el('select', { name: 'state' },
        states.map((s) => el('option', { value: s, selected: (query.get('state') || 'all') === s }, s === 'dead' ? 'dead letter' : s)))),
      field('eventType', 'Event type'), field('aggregateType', 'Aggregate type'), field('aggregateId', 'Aggregate id'),
      field('eventId', 'Event id'), field('error', 'Error contains'),
      field('from', 'Created from (UTC)', { type: 'datetime-local', step: 1 }),
      field('to', 'Created to (UTC)', { type: 'datetime-local', step: 1 }),
      el('div', { class: 'buttons' }, el('button', { class: 'primary', type: 'submit' }, 'Filter'),
        el('a', { href: pageUrl(place().outbox, 'events') }, 'Clear')));
  }

  async function events() {
    const query = new URLSearchParams(location.search);
    for (const [k, v] of [...query.entries()]) if (v === '' || (k === 'state' && v === 'all')) query.delete(k);
    show(el('h1', {}, 'Events'), filterForm(query));
    let page;
    try { page = await api(outboxApi('events') + (query.toString() ? '?' + query : '')); } catch (e) { main.append(failure(e)); return; }
    const rows = page.events.map((e) => el('tr', {},
      el('td', {}, el('a', { href: pageUrl(place().outbox, 'events/' + e.id), class: 'mono' }, e.id.slice(0, 8) + '…')),
      el('td', {}, badge(e.state)), el('td', {}, e.eventType), el('td', {}, e.aggregateType + ' / ' + e.aggregateId),
      el('td', { class: 'num' }, e.attempts), el('td', {}, time(e.createdAt)), el('td', { class: 'error' }, e.lastError || '')));
    main.append(page.events.length
      ? el('table', { id: 'events' }, el('thead', {}, el('tr', {}, ['Id', 'State', 'Event type', 'Aggregate', 'Attempts', 'Created', 'Last error'].map((h) => el('th', {}, h)))), el('tbody', {}, rows))
      : el('p', { class: 'muted', id: 'events' }, page.next ? 'No match among the next ' + number(page.searched) + ' events.' : 'No events match.'));
    const pager = el('div', { class: 'pager' });
    if (query.has('after')) {
      const first = new URLSearchParams(query); first.delete('after');
      pager.append(el('a', { href: pageUrl(place().outbox, 'events', first.toString()) }, '← Newest'));
    }
    if (page.next) {
      const next = new URLSearchParams(query); next.set('after', page.next);
      pager.append(el('a', { href: pageUrl(place().outbox, 'events', next.toString()), id: 'next' }, 'Older →'));
    }
    pager.append(el('span', { class: 'muted' }, 'Newest first. Each page searches at most ' + number(page.window) + ' events.'));
    main.append(pager);
  }

  function pretty(payload) {
    try { return JSON.stringify(JSON.parse(payload), null, 2); } catch (e) { return payload; }
  }

  async function detail() {
    const e = await api(outboxApi('events/' + encodeURIComponent(place().id)));
    const headers = Object.entries(e.headers);
    const held = e.heldBackBy;
    show(
      el('h1', {}, 'Event ', el('span', { class: 'mono' }, e.id), ' ', badge(e.state)),
      el('dl', { class: 'fields', id: 'fields' },
        [['Event type', e.eventType], ['Aggregate', e.aggregateType + ' / ' + e.aggregateId], ['Sequence', e.seq],
          ['Attempts', e.attempts], ['Created', time(e.createdAt)], ['Retry after', time(e.retryAfter)],
          ['Processed', time(e.processedAt)], ['Dead-lettered', time(e.deadLetteredAt)]]
          .map(([k, v]) => [el('dt', {}, k), el('dd', {}, v)])),
      held ? el('p', { class: 'notice error' }, 'Held back in ordered mode by an earlier event of this aggregate: ',
        el('a', { href: pageUrl(place().outbox, 'events/' + held.id) }, held.id), ' (' + (held.state === 'dead' ? 'a dead letter' : held.state) + ')') : null,
      e.state === 'dead' ? actionsFor({ id: e.id }, 'this event') : null,
      el('h2', {}, 'Last error'), e.lastError ? el('pre', { id: 'last-error' }, e.lastError) : el('p', { class: 'muted' }, 'None.'),
      el('h2', {}, 'Payload'), el('pre', { id: 'payload' }, e.payload === null ? '(the server could not send the payload)' : pretty(e.payload)),
      e.payloadTruncated ? el('p', { class: 'muted' }, 'Only the first 1,000,000 characters are shown.') : null,
      el('h2', {}, 'Headers'),
      e.rawHeaders !== null ? el('pre', {}, e.rawHeaders)
        : headers.length ? el('table', { id: 'headers' }, el('tbody', {}, headers.map(([k, v]) => el('tr', {}, el('td', { class: 'mono' }, k), el('td', { class: 'mono' }, v)))))
          : el('p', { class: 'muted' }, 'None.'));
  }

  // Requeue / purge buttons for a selection; each asks for the count first and names it.
  function actionsFor(selection, what) {
    const box = el('div', {});
    const ask = async (verb) => {
      box.querySelectorAll('.confirmation, .notice').forEach((n) => n.remove());
      let count;
      try { count = await api(outboxApi('dead-letters/count?' + new URLSearchParams(selection))); } catch (e) { box.append(failure(e)); return; }
      const word = count.count === 1 ? 'dead letter' : 'dead letters';
      const go = el('button', { class: verb === 'requeue' ? 'primary' : 'danger confirm', id: 'confirm' },
        (verb === 'requeue' ? 'Requeue ' : 'Purge ') + number(count.count) + ' ' + word);
      const panel = el('div', { class: 'confirmation ' + verb, id: 'confirmation' },
        el('span', {}, (verb === 'requeue' ? 'Requeue ' : 'Delete for good ') + number(count.count) + ' ' + word + ': ' + count.selection + '?'),
        go, el('button', { class: 'plain', onclick: () => panel.remove() }, 'Cancel'));
      go.addEventListener('click', async () => {
        go.disabled = true;
        try {
          let done = await post('dead-letters/' + verb, Object.assign({ expected: count.count }, selection));
          const past = verb === 'requeue' ? 'Requeued ' : 'Purged ';
          // A large action goes on in chunks: poll its progress until it ends.
          const progress = el('div', { class: 'notice', id: 'progress' });
          panel.replaceWith(progress);
          while (done.state === 'running') {
            progress.replaceChildren(past + number(done.count) + ' of ' + number(done.expected) + ' so far (' + done.chunks + ' chunks)…',
              el('progress', { max: Math.max(1, done.expected), value: done.count }));
            await new Promise((resolve) => setTimeout(resolve, 1000));
            done = await api(outboxApi('jobs/' + encodeURIComponent(done.job)));
          }
          progress.replaceWith(done.state === 'failed'
            ? el('div', { class: 'notice error', id: 'done' }, past + number(done.count) + ', then failed: ' + done.error)
            : el('div', { class: 'notice', id: 'done' }, past + number(done.count) + ' ' + (done.count === 1 ? 'dead letter.' : 'dead letters.')));
          setTimeout(render, 1500);
        } catch (e) { panel.replaceWith(failure(e)); }
      });
      box.append(panel);
    };
    const disabled = !unlocked();
    box.append(el('div', { class: 'actions' },
      el('button', { class: 'primary', disabled, title: disabled ? 'Unlock actions with the admin credential first' : null, onclick: () => ask('requeue'), 'data-action': 'requeue' }, 'Requeue ' + what),
      el('button', { class: 'danger', disabled, title: disabled ? 'Unlock actions with the admin credential first' : null, onclick: () => ask('purge'), 'data-action': 'purge' }, 'Purge ' + what)));
    return box;
  }

  async function deadLetters() {
    const d = await api(outboxApi('dead-letters'));
    const rows = d.groups.map((g) => el('tr', { 'data-group': g.key },
      el('td', {}, g.eventType), el('td', { class: 'num count' }, number(g.count)), el('td', {}, time(g.newest)),
      el('td', { class: 'error' }, g.fingerprint, el('details', {}, el('summary', { class: 'muted' }, 'example'), el('div', {}, g.sampleError))),
      el('td', {}, actionsFor({ group: g.key }, ''))));
    show(
      el('h1', {}, 'Dead letters: ', el('span', { id: 'total' }, number(d.total))),
      el('p', { class: 'muted' }, 'Events that failed for good, grouped by type and error (numbers, ids and quoted values in the error set aside). Requeued events are published by the relays at their next poll.'),
      d.total ? actionsFor({}, 'all') : null,
      d.groups.length
        ? el('table', { id: 'groups' }, el('thead', {}, el('tr', {}, ['Event type', 'Count', 'Newest', 'Error', 'Actions'].map((h) => el('th', {}, h)))), el('tbody', {}, rows))
        : el('p', { class: 'muted', id: 'groups' }, 'No dead letters.'),
      d.groupCount > d.groups.length ? el('p', { class: 'muted' }, 'Showing ' + d.groups.length + ' of ' + d.groupCount + ' groups.') : null);
  }

  async function relays() {
    const r = await api(outboxApi('relays'));
    const s = r.slot;
    show(
      el('h1', {}, 'Relays'),
      el('h2', {}, 'WAL slot'),
      s ? el('dl', { class: 'fields', id: 'slot' },
        [['Name', s.name], ['Type', s.type + (s.plugin ? ' (' + s.plugin + ')' : '')], ['In use', s.active ? 'yes, by server process ' + s.activePid : 'no'],
          ['WAL status', s.walStatus || '—'], ['Lag', bytes(s.lagBytes)],
          ['Lag in time', age(s.lagSeconds) + ' (from the ' + s.lagSecondsSource + ')'], ['WAL retained', bytes(s.retainedBytes)],
          ['Confirmed up to', s.confirmedFlushLsn || '—'], ['Restart at', s.restartLsn || '—']]
          .map(([k, v]) => [el('dt', {}, k), el('dd', {}, v)]))
        : el('p', { class: 'muted', id: 'slot' }, 'No replication slot named ' + r.slotName + ': no WAL relay reads this outbox (polling relays keep no slot).'),
      el('h2', {}, 'Relays (', el('span', { id: 'running' }, number(r.running)), ' running)'),
      relayTable(r));
  }

  function relayTable(r) {
    if (r.heartbeatTableMissing) {
      return el('p', { class: 'notice error', id: 'heartbeats' }, 'No heartbeat table ' + r.heartbeatTable +
        ': migrate the outbox schema to version 3 (txoutbox migrate, or OutboxSchema.migrate) to see which relays run.');
    }
    if (!r.relays.length) {
      return el('p', { class: 'muted', id: 'heartbeats' }, 'No relay has written a heartbeat to ' + r.heartbeatTable +
        ' in the last week. Relays of versions before heartbeats do not show here.');
    }
    const ago = (s) => s === null || s === undefined ? 'never' : age(s) + ' ago';
    const rows = r.relays.map((x) => el('tr', { 'data-relay': x.name },
      el('td', {}, x.name), el('td', {}, x.kind), el('td', {}, el('span', { class: 'badge relay-' + x.state }, x.state)),
      el('td', { class: 'mono' }, x.host + ' / ' + x.pid), el('td', {}, time(x.startedAt)),
      el('td', { class: 'num beat' }, ago(x.lastBeatAgeSeconds)), el('td', { class: 'num cycle' }, ago(x.lastCycleAgeSeconds)),
      el('td', {}, el('details', {}, el('summary', { class: 'muted' }, 'settings'), el('div', { class: 'mono' }, x.settings)))));
    return el('div', {},
      el('table', { id: 'heartbeats' }, el('thead', {}, el('tr', {}, ['Relay', 'Kind', 'State', 'Host / pid', 'Started', 'Last beat', 'Last cycle', 'Settings'].map((h) => el('th', {}, h)))), el('tbody', {}, rows)),
      el('p', { class: 'footnote' }, 'Each relay writes its row every few seconds. Stale: no beat for ' + r.staleAfterBeats +
        ' of its intervals (it stopped without closing, or cannot reach the database). Stopped: it closed. Rows not seen for 7 days are deleted by the relays.'));
  }

  // The relay fleet: its nodes, and which node serves which outbox of its registry.
  async function fleet() {
    const f = await api('fleet');
    const ago = (s) => s === null || s === undefined ? '—' : age(s) + ' ago';
    const nodes = f.nodes.map((n) => el('tr', { 'data-node': n.nodeId },
      el('td', { class: 'mono' }, n.nodeId), el('td', {}, el('span', { class: 'badge fleet-' + (n.alive ? 'alive' : 'gone') }, n.alive ? 'alive' : 'gone')),
      el('td', { class: 'num held' }, number(n.outboxes)), el('td', {}, time(n.startedAt)),
      el('td', { class: 'num beat' }, ago(n.heartbeatAgeSeconds)), el('td', {}, time(n.expiresAt))));
    const outboxes = f.outboxes.map((o) => el('tr', { 'data-outbox': o.name },
      el('td', {}, o.name), el('td', {}, el('span', { class: 'badge fleet-' + o.state }, o.state)),
      el('td', { class: 'mono owner' }, o.owner || (o.lastOwner ? 'none (last: ' + o.lastOwner + ')' : 'none')),
      el('td', { class: 'num term' }, number(o.term)), el('td', { class: 'num renewal' }, ago(o.lastRenewalAgeSeconds)),
      el('td', { class: 'num' }, o.expiresInSeconds === null ? '—' : age(Math.max(0, o.expiresInSeconds))),
      el('td', {}, o.kind || '—'), el('td', { class: 'mono' }, o.database || o.invalid || '—'), el('td', { class: 'mono' }, o.tables || '—'),
      el('td', {}, o.publisher || '—'), el('td', { class: 'num' }, number(o.weight))));
    show(
      el('h1', {}, 'Fleet'),
      el('p', { id: 'fleet-summary' }, number(f.aliveNodes) + ' nodes alive; ' + number(f.served) + ' outboxes served, ' + number(f.unserved) + ' unserved (control schema ' + f.controlSchema + ').'),
      el('h2', {}, 'Nodes'),
      f.nodes.length
        ? el('table', { id: 'fleet-nodes' }, el('thead', {}, el('tr', {}, ['Node', 'State', 'Outboxes', 'Started', 'Last heartbeat', 'Expires'].map((h) => el('th', {}, h)))), el('tbody', {}, nodes))
        : el('p', { class: 'muted', id: 'fleet-nodes' }, 'No node has joined the fleet (or none in the last day).'),
      el('h2', {}, 'Outboxes'),
      f.outboxes.length
        ? el('table', { id: 'fleet-outboxes' }, el('thead', {}, el('tr', {}, ['Outbox', 'State', 'Served by', 'Term', 'Last renewal', 'Lease left', 'Kind', 'Database', 'Tables', 'Publisher', 'Weight'].map((h) => el('th', {}, h)))), el('tbody', {}, outboxes))
        : el('p', { class: 'muted', id: 'fleet-outboxes' }, 'The registry is empty.'),
      el('p', { class: 'footnote' }, 'Read at ' + time(f.readAt) + ' on the control database\'s clock; refreshed every ' + REFRESH_MS / 1000 +
        ' s. A node renews its leases with each heartbeat: the last renewal is its owner\'s last heartbeat. Unserved: no live lease; another node takes it at its next scan. The term grows at each takeover.'));
    refresh = setTimeout(render, REFRESH_MS);
  }

  const pages = { '': overview, events: events, 'dead-letters': deadLetters, relays: relays };

  async function render() {
    clearTimeout(refresh);
    try {
      session = session || await api('session');
      header();
      const here = place();
      await (here.fleet ? fleet : here.page === 'events' && here.id ? detail : pages[here.page] || overview)();
    } catch (e) {
      show(failure(e));
    }
  }

  render();
})();
