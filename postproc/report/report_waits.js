// report_waits.js - the Wait states section of report.html (issue 50,
// docs/wait-states.md): per call path and rank the time in each MPI wait
// state (Late Sender, Late Receiver, Wait at N x N, Wait at Barrier, Late
// Broadcast, Early Reduce), and per state the causes, the late rank and
// the region it was in, largest first ("waits", html_waits.c; the same
// figures as scope-profiler-pproc --waits). The timeline's tooltips name a
// call's wait (viewer.js). Absent for files without MPI call records.
(function () {
  'use strict';
  var R = window.spReport, D = R.data, W = D.waits;
  if (!W) return;
  function h(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    return e;
  }
  var sec = h('section', { id: 'sp-waits-section' });
  sec.appendChild(h('h2', {}, 'Wait states'));
  var paired = W.paired[0] + ' messages and ' + W.paired[1] + ' collective calls paired';
  var unp = W.unpaired.reduce(function (a, b) { return a + b; }, 0);
  sec.appendChild(h('p', { 'class': 'sp-help' }, 'time an MPI call waited for another rank ' +
    '(Scalasca\'s wait states, on rank 0\'s clock): ' + paired +
    (unp ? '; ' + unp + ' calls could not be paired (not guessed: see --waits)' : '')));
  var anchor = document.getElementById('sp-hotspots-section') ||
    document.getElementById('sp-tree-section');
  anchor.parentNode.insertBefore(sec, anchor.nextSibling);

  function sec_(ns) { return (ns / 1e9).toFixed(6); }
  // Per call path and rank: one column per state with some time.
  var used = W.states.map(function (_, s) {
    return W.rows.some(function (r) { return r[2 + s] > 0; });
  });
  var tab = h('table', { id: 'sp-waits', 'class': 'sp-bal' }), head = tab.createTHead().insertRow();
  ['call path', 'rank'].concat(W.states.filter(function (_, s) { return used[s]; }))
    .concat(['wait']).forEach(function (t) { head.appendChild(h('th', {}, t)); });
  var body = tab.createTBody();
  W.rows.slice(0, 50).forEach(function (r) {
    var tr = body.insertRow(), total = 0;
    tr.setAttribute('data-rank', r[0]);
    tr.setAttribute('data-path', r[1]);
    tr.insertCell().textContent = r[1];
    tr.insertCell().textContent = r[0];
    W.states.forEach(function (_, s) {
      total += r[2 + s];
      if (used[s]) tr.insertCell().textContent = sec_(r[2 + s]);
    });
    tr.insertCell().textContent = sec_(total);
  });
  sec.appendChild(h('h3', {}, 'Per call path and rank, seconds'));
  sec.appendChild(tab);
  if (W.rows.length > 50) sec.appendChild(h('p', { 'class': 'sp-help' }, (W.rows.length - 50) +
    ' more rows: scope-profiler-pproc FILE --waits'));
  var tc = h('table', { id: 'sp-waits-causes', 'class': 'sp-bal' }), hc = tc.createTHead().insertRow();
  ['state', 'caused by rank', 'in region', 'seconds', 'calls'].forEach(function (t) {
    hc.appendChild(h('th', {}, t));
  });
  var bc = tc.createTBody();
  W.causes.slice(0, 60).forEach(function (c) {
    var tr = bc.insertRow();
    tr.setAttribute('data-state', W.states[c[0]]);
    tr.insertCell().textContent = W.states[c[0]];
    tr.insertCell().textContent = c[3];
    tr.insertCell().textContent = c[4] === null ? '-' : c[4];
    tr.insertCell().textContent = sec_(c[1]);
    tr.insertCell().textContent = c[2];
  });
  sec.appendChild(h('h3', {}, 'Causes: the late rank and the region it was in'));
  sec.appendChild(tc);
})();
