// Basalt status page: renders /status.json (inlined on first load, then polled every second).
(function () {
  'use strict';
  var SVG = 'http://www.w3.org/2000/svg';

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }

  function fmt(n, digits) {
    return Number(n).toLocaleString('en-US', { maximumFractionDigits: digits === undefined ? 0 : digits });
  }

  function fillBody(tableId, rows) {
    var body = document.querySelector('#' + tableId + ' tbody');
    body.textContent = '';
    rows.forEach(function (cells) {
      var tr = el('tr');
      cells.forEach(function (c) { tr.appendChild(c); });
      body.appendChild(tr);
    });
  }

  function chart(svgId, points, label) {
    var svg = document.getElementById(svgId);
    svg.textContent = '';
    var max = 1;
    points.forEach(function (v) { if (v > max) max = v; });
    var n = Math.max(points.length - 1, 1);
    var coords = points.map(function (v, i) {
      return (i * 400 / n).toFixed(1) + ',' + (118 - v * 110 / max).toFixed(1);
    });
    var line = document.createElementNS(SVG, 'polyline');
    line.setAttribute('points', coords.join(' '));
    svg.appendChild(line);
    var text = document.createElementNS(SVG, 'text');
    text.setAttribute('x', '4');
    text.setAttribute('y', '12');
    text.setAttribute('font-size', '10');
    text.textContent = 'max ' + fmt(max, 2) + ' ' + label;
    svg.appendChild(text);
    svg.setAttribute('data-points', String(points.length));
  }

  function render(s) {
    document.getElementById('broker').textContent = s.broker;
    document.getElementById('updated').textContent = 'updated ' + new Date(s.timeMs).toLocaleTimeString();
    var series = s.series || [];
    chart('tps-chart', series.map(function (p) { return p.putTps; }), 'msg/s');
    chart('latency-chart', series.map(function (p) { return p.putP99Ms; }), 'ms');
    var last = series.length ? series[series.length - 1] : { putTps: 0, putP99Ms: 0, getTps: 0 };
    document.getElementById('tps-now').textContent = 'now: put ' + fmt(last.putTps, 1) + ' msg/s, get ' + fmt(last.getTps, 1) + ' msg/s';
    document.getElementById('latency-now').textContent = 'now: ' + fmt(last.putP99Ms, 3) + ' ms';

    var cl = document.getElementById('commitlog');
    cl.textContent = '';
    [['min offset', fmt(s.commitLog.minOffset)], ['max offset', fmt(s.commitLog.maxOffset)],
     ['flushed offset', fmt(s.commitLog.flushedOffset)], ['committed offset', fmt(s.commitLog.committedOffset)],
     ['disk used', fmt(s.disk.usedRatio * 100, 1) + ' % (' + s.disk.path + ')']].forEach(function (r) {
      var tr = el('tr');
      tr.appendChild(el('th', r[0]));
      tr.appendChild(el('td', r[1], 'num'));
      cl.appendChild(tr);
    });

    fillBody('topics', s.topics.map(function (t) {
      var queues = t.queues.map(function (q) { return q.queueId + ': ' + q.minOffset + '..' + q.maxOffset; }).join(', ');
      return [el('td', t.name, 'topic'), el('td', fmt(t.putTps, 1), 'num'), el('td', fmt(t.messagesPut), 'num'), el('td', queues)];
    }));
    fillBody('groups', s.groups.map(function (g) {
      var queues = g.queues.map(function (q) { return q.queueId + ': ' + q.consumerOffset + '/' + q.brokerOffset; }).join(', ');
      return [el('td', g.group), el('td', g.topic), el('td', fmt(g.lag), g.lag > 0 ? 'num lag' : 'num'), el('td', queues)];
    }));
    fillBody('delay-levels', (s.delayLevels || []).map(function (d) {
      return [el('td', d.level + ' (' + fmt(d.delayMs / 1000, 0) + ' s)'), el('td', fmt(d.offset) + ' / ' + fmt(d.maxOffset), 'num'),
        el('td', fmt(d.backlog), 'num'), el('td', fmt(d.oldestDueAgeMs / 1000, 1), d.oldestDueAgeMs > 1000 ? 'num lag' : 'num'),
        el('td', fmt(d.delivered), 'num'), el('td', fmt(d.putFailures) + ' / ' + fmt(d.skipped), 'num')];
    }));
    var tx = s.transactions || {topics: [], endRefused: {}, duplicateDecisions: 0};
    fillBody('transactions', tx.topics.map(function (t) {
      return [el('td', t.topic, 'topic'), el('td', fmt(t.prepared), 'num'), el('td', fmt(t.committed), 'num'),
        el('td', fmt(t.rolledBack), 'num'), el('td', fmt(t.checked), 'num'), el('td', fmt(t.givenUp), t.givenUp > 0 ? 'num lag' : 'num'),
        el('td', fmt(t.oldestUndecidedAgeMs / 1000, 1), 'num')];
    }));
    var refusals = Object.keys(tx.endRefused).map(function (r) { return r + ': ' + fmt(tx.endRefused[r]); }).join(', ');
    document.getElementById('transaction-refusals').textContent = 'END_TRANSACTION refused: ' + (refusals || 'none')
      + ' · second decisions ignored: ' + fmt(tx.duplicateDecisions);
    var tm = document.getElementById('timer');
    tm.textContent = '';
    var t = s.timer;
    (t.enabled ? [['state', t.delivering ? 'enqueuing and delivering' : 'enqueuing only (not delivering: a slave, or shutting down)'],
      ['pending', fmt(t.pending)], ['enqueue lag', fmt(t.enqueueLagMessages) + ' entries, ' + fmt(t.enqueueLagMs / 1000, 1) + ' s'],
      ['dequeue lag', fmt(t.dequeueLagMs / 1000, 1) + ' s'], ['congest num', fmt(t.congestNum)],
      ['enqueue / dequeue TPS', fmt(t.enqueueTps, 1) + ' / ' + fmt(t.dequeueTps, 1)],
      ['since start', fmt(t.enqueued) + ' enqueued, ' + fmt(t.delivered) + ' delivered, ' + fmt(t.cancelled) + ' cancelled, '
        + fmt(t.droppedEntries) + ' entries dropped']]
      : [['state', 'disabled (timerWheelEnable=false): timer messages are refused']]).forEach(function (r) {
      var tr = el('tr');
      tr.appendChild(el('th', r[0]));
      tr.appendChild(el('td', r[1], 'num'));
      tm.appendChild(tr);
    });
    var haLine = 'role: ' + s.ha.role;
    if (s.ha.epoch !== undefined) {
      haLine += ', epoch ' + s.ha.epoch + ' (history: ' + (s.ha.epochs.length ? s.ha.epochs.map(function (e) {
        return e.epoch + '@' + e.startOffset;
      }).join(', ') : 'none') + '), SyncStateSet size ' + s.ha.syncStateSetSize + ', elections ' + s.ha.elections
        + (s.ha.secondsWithoutMaster > 0 ? ', no master for ' + s.ha.secondsWithoutMaster.toFixed(0) + ' s' : '');
    }
    document.getElementById('ha-role').textContent = haLine + (s.ha.slaves.length ? '' : ' (no slaves connected)');
    fillBody('clients', (s.clients || []).map(function (c) {
      return [el('td', c.kind), el('td', c.group), el('td', c.protocol), el('td', String(c.clients), 'num')];
    }));
    fillBody('retries', (s.retries || []).map(function (r) {
      return [el('td', r.group), el('td', String(r.retries), 'num'), el('td', String(r.deadLettered), 'num'),
        el('td', String(r.dropped), 'num')];
    }));
    fillBody('ha', s.ha.slaves.map(function (h) {
      return [el('td', h.address + ' (brokerId ' + h.brokerId + ')'), el('td', fmt(h.ackOffset), 'num'), el('td', fmt(h.lagBytes), 'num'), el('td', fmt(h.lagMs), 'num'),
        el('td', h.inSync === undefined ? '' : (h.inSync ? 'yes' : 'no'))];
    }));
  }

  function poll() {
    fetch('/status.json', { cache: 'no-store' })
      .then(function (r) { return r.json(); })
      .then(render)
      .catch(function () { document.getElementById('updated').textContent = 'broker unreachable'; });
  }

  render(JSON.parse(document.getElementById('initial-status').textContent));
  setInterval(poll, 1000);
})();
