// report_io.js - the I/O section of report.html (SCOPE_PROFILER_PROFILE_IO;
// data "io", html_io.c): the files summed over the selected ranks with their
// slowest rank, the ranks (every one up to 64; past that the distribution
// and the slowest 16), and the regions with the bytes and time of the I/O
// calls they made (as --summary --columns io_bytes,io_s). Hidden without
// records. The regions' table follows the shared filter.
(function () {
  'use strict';
  var R = window.spReport;
  if (!R || !R.data.io) return;
  var D = R.data, io = D.io, fmt = R.fmtTime;

  function h(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    return e;
  }
  // Bytes in powers of 1000 (MB = 10^6 B), as the RSS track.
  function fmtBytes(b) {
    if (b === undefined) return '-';
    var u = [[1e12, 'TB'], [1e9, 'GB'], [1e6, 'MB'], [1e3, 'kB']];
    for (var i = 0; i < u.length; i++) if (b >= u[i][0]) return (b / u[i][0]).toPrecision(4) + ' ' + u[i][1];
    return b + ' B';
  }
  function bw(bytes, ns) { return ns > 0 ? fmtBytes(bytes * 1e9 / ns) + '/s' : '-'; }
  function table(id, head, rows) {
    var t = h('table', { id: id, 'class': 'sp-runs-table' }), tr = t.insertRow();
    head.forEach(function (c) { tr.appendChild(h('th', { title: c[1] || '' }, c[0])); });
    rows.forEach(function (r) {
      var row = t.insertRow();
      r.forEach(function (c) { row.insertCell().textContent = c; });
    });
    return t;
  }

  var sec = h('section', { id: 'sp-io-section' });
  sec.appendChild(h('h2', {}, 'I/O'));
  sec.appendChild(h('p', { 'class': 'sp-help' }, 'files, bytes and time of the program\'s POSIX, ' +
    'stdio and MPI-IO calls (docs/io.md); bandwidth = bytes / (read + write time)'));

  // The files: 20 rows, all (at most 100) on a click.
  var SHOWN = 20, filesAll = false, filesBox = h('div');
  sec.appendChild(h('h3', {}, 'Files' + (io.nfiles > io.files.length ?
    ' (the ' + io.files.length + ' with the most I/O time of ' + io.nfiles + ')' : '')));
  sec.appendChild(filesBox);
  function files() {
    var list = filesAll ? io.files : io.files.slice(0, SHOWN);
    filesBox.textContent = '';
    filesBox.appendChild(table('sp-io-files', [['file'], ['ranks'], ['opens'], ['reads'],
      ['writes'], ['read'], ['written'], ['read time'], ['write time'], ['meta time'],
      ['bandwidth'], ['slowest rank', 'largest read + write + metadata time on the file'],
      ['its time']],
    list.map(function (f) {
      return [f.f, f.nr, f.opens, f.reads, f.writes, fmtBytes(f.br), fmtBytes(f.bw), fmt(f.rs),
        fmt(f.ws), fmt(f.ms), bw(f.br + f.bw, f.rs + f.ws), f.slow, fmt(f.slow_ns)];
    })));
    if (io.files.length > SHOWN) {
      var more = h('button', { id: 'sp-io-more' }, filesAll ? 'show the first ' + SHOWN :
        'show all ' + io.files.length);
      more.onclick = function () { filesAll = !filesAll; files(); };
      filesBox.appendChild(more);
    }
  }
  files();

  var dist = io.dist;
  sec.appendChild(h('h3', {}, dist ? 'Ranks: ' + dist.n + ' with I/O; the ' + io.ranks.length +
    ' slowest' : 'Ranks'));
  if (dist) {
    sec.appendChild(table('sp-io-dist', [['over the ranks'], ['min'], ['25 %'], ['median'],
      ['75 %'], ['max']], [['bytes'].concat(dist.bytes.map(fmtBytes)),
      ['I/O time'].concat(dist.ns.map(fmt))]));
  }
  sec.appendChild(table('sp-io-ranks', [['rank'], ['files'], ['read'], ['written'],
    ['read time'], ['write time'], ['meta time'], ['bandwidth']],
  io.ranks.map(function (r) {
    return [r.r, r.nf, fmtBytes(r.br), fmtBytes(r.bw), fmt(r.rs), fmt(r.ws), fmt(r.ms),
      bw(r.br + r.bw, r.rs + r.ws)];
  })));

  sec.appendChild(h('h3', {}, 'Regions'));
  sec.appendChild(h('p', { 'class': 'sp-help' }, 'the I/O calls each region made directly ' +
    '(an I/O region: its own calls), summed over the selected ranks'));
  var regTable = h('div');
  sec.appendChild(regTable);
  function regions() {
    var rows = io.regions.filter(function (g) { return R.regionShown(g.g); })
      .sort(function (a, b) { return b.ns - a.ns; })
      .map(function (g) { return [D.regions[g.g].name, fmtBytes(g.b), fmt(g.ns)]; });
    regTable.textContent = '';
    regTable.appendChild(table('sp-io-regions', [['region'], ['bytes'], ['time']], rows));
  }
  regions();
  R.onFilter(regions);

  var before = document.getElementById('sp-durations-section');
  before.parentNode.insertBefore(sec, before);
})();
