// report_run.js - the Run metadata section of report.html: what the file
// says about its run (ranks, threads, hosts, library version: "run",
// html_run.c; the program's sp_metadata_set keys: "meta") and the selection
// the report was written with (files, --ranks, --include, --exclude, the
// window, --html-exact). Values are shown as the file stores them (long
// ones cut at 300 characters in the page, the full text in the tooltip).
(function () {
  'use strict';
  var R = window.spReport, D = R.data, run = D.run || {}, sel = run.sel || {};
  function byId(id) { return document.getElementById(id); }

  function row(table, key, value) {
    var tr = table.insertRow(), th = document.createElement('th'), td;
    th.textContent = key;
    tr.appendChild(th);
    td = tr.insertCell();
    td.textContent = value.length > 300 ? value.slice(0, 299) + '\u2026' : value;
    if (value.length > 300) td.title = value;
    tr.setAttribute('data-key', key);
    return tr;
  }

  // 0-3, 7, 9-10
  function ranges(list) {
    var out = [];
    for (var i = 0, j; i < list.length; i = j + 1) {
      for (j = i; j + 1 < list.length && list[j + 1] === list[j] + 1; j++) continue;
      out.push(j > i ? list[i] + '-' + list[j] : String(list[i]));
    }
    return out.join(', ');
  }

  function kv(list) {
    var o = {};
    (list || []).forEach(function (m) { o[m.k] = m.v; });
    return o;
  }

  byId('sp-run-link').onclick = function () { byId('sp-run-section').scrollIntoView(); };
  var lib = kv(run.lib), t = byId('sp-run');
  // Threads per rank: the lanes' thread ids (a lane per region, rank, thread).
  var threads = {};
  D.lanes.forEach(function (l) { (threads[l.r] = threads[l.r] || {})[l.t] = 1; });
  var most = 0;
  Object.keys(threads).forEach(function (r) { most = Math.max(most, Object.keys(threads[r]).length); });
  var files = sel.files || [{ path: D.file, label: D.file, ranks: D.ranks.length }];
  row(t, files.length > 1 ? 'files' : 'file', files.map(function (f) {
    return f.path + (f.label !== f.path ? ' (' + f.label + ')' : '') + (files.length > 1 ? ': ' + f.ranks + ' ranks' : '');
  }).join('; '));
  row(t, 'ranks', D.ranks.length + ' of ' + (run.ranks || D.ranks.length) + ' in the file: ' + ranges(D.ranks));
  row(t, 'threads', (most ? 'up to ' + most + ' per rank recorded calls' : 'not known from the calls') +
    (lib.omp_num_threads !== undefined ? '; omp_num_threads ' + lib.omp_num_threads : ''));
  if (run.hosts) {
    row(t, 'hosts', run.nhosts ? run.nhosts + ': ' + run.hosts.map(function (h) {
      return h.h + ' (' + h.n + (h.n === 1 ? ' rank)' : ' ranks)');
    }).join(', ') + (run.hosts.length < run.nhosts ? ', \u2026' : '') :
      'not recorded per rank' + (lib.hostname ? '; /metadata hostname ' + lib.hostname : ''));
  }
  row(t, 'library version', lib.library_version || lib.scope_profiler_version || 'not recorded');
  if (lib.timestamp) row(t, 'recorded', lib.timestamp);
  if (run.aligned !== undefined) row(t, 'clocks', run.aligned ? 'aligned to rank 0 (the file\'s offsets)' : 'as recorded');
  row(t, 'selected ranks', sel.rank_words && sel.rank_words.length ? '--ranks ' + sel.rank_words.join(' ') : 'all');
  row(t, 'regions', D.regions.length + ' selected' +
    (sel.include && sel.include.length ? '; --include ' + sel.include.join(' ') : '') +
    (sel.exclude && sel.exclude.length ? '; --exclude ' + sel.exclude.join(' ') : ''));
  if (D.window) {
    var whole = D.window[0] === 0 && D.window[1] >= D.span;
    row(t, 'window', whole ? 'the whole run, ' + R.fmtTime(D.span) :
      R.fmtTime(D.window[0]) + ' \u2013 ' + R.fmtTime(D.window[1]) + ' of ' + R.fmtTime(D.span));
  }
  if (sel.exact !== undefined) {
    row(t, '--html-exact', sel.exact + ': ' + D.counts.exact + ' of ' + D.counts.intervals +
      ' calls embedded exactly, ' + D.counts.binned + ' of ' + D.counts.lanes + ' lanes binned');
  }

  [['sp-meta', D.meta, 'the program set none (sp_metadata_set)'],
    ['sp-lib', run.lib, 'none']].forEach(function (s) {
    var table = byId(s[0]);
    if (s[1] && s[1].length) s[1].forEach(function (m) { row(table, m.k, m.v); });
    else row(table, '', s[2]).removeAttribute('data-key');
  });
})();
