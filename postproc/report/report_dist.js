// report_dist.js - the Distribution over ranks section of report.html (data
// "dist", html_dist.c): present when the file has more selected ranks than
// fit (1024) and --ranks did not choose. The sections that show ranks one by
// one (timeline, flame chart, Load balance, Rank comparison, RSS, waits, I/O)
// then show the representative ranks named here; this section shows, per
// region, its per-rank totals over every rank: quantiles, a histogram and
// the outliers. Never a row per rank. Follows the shared filter.
(function () {
  'use strict';
  var R = window.spReport;
  if (!R || !R.data.dist) return;
  var D = R.data, dist = D.dist, fmt = R.fmtTime, SVG = 'http://www.w3.org/2000/svg';

  function h(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    return e;
  }
  // A histogram of counts as a small SVG: bar heights on a square-root scale
  // (one rank in a bin stays visible beside thousands).
  function spark(counts, color) {
    var W = 160, H = 24, n = counts.length, top = Math.sqrt(Math.max.apply(null, counts) || 1);
    var s = document.createElementNS(SVG, 'svg');
    s.setAttribute('width', W);
    s.setAttribute('height', H);
    s.setAttribute('class', 'sp-dist-hist');
    counts.forEach(function (c, i) {
      if (!c) return;
      var bh = Math.max(1, Math.round(H * Math.sqrt(c) / top)), r = document.createElementNS(SVG, 'rect');
      r.setAttribute('x', (i * W / n).toFixed(1));
      r.setAttribute('width', Math.max(1, W / n - 1).toFixed(1));
      r.setAttribute('y', H - bh);
      r.setAttribute('height', bh);
      r.setAttribute('fill', color);
      var t = document.createElementNS(SVG, 'title');
      t.textContent = c + ' rank' + (c === 1 ? '' : 's');
      r.appendChild(t);
      s.appendChild(r);
    });
    return s;
  }

  var sec = h('section', { id: 'sp-dist-section' });
  sec.appendChild(h('h2', {}, 'Distribution over ranks'));
  var reps = 'min r' + dist.min + ', median r' + dist.median + ', max r' + dist.max +
    (dist.outliers.length ? ', outliers ' + dist.outliers.map(function (r) { return 'r' + r; }).join(' ') : '');
  sec.appendChild(h('p', { id: 'sp-dist-reps' }, dist.nranks + ' ranks are more than fit (' + dist.fit +
    '): the timeline, the flame chart, Load balance, Rank comparison and the other per-rank views ' +
    'show ' + D.ranks.length + ' representative ranks: ' + reps +
    (dist.region >= 0 ? ' (of region \u2018' + D.regions[dist.region].name + '\u2019, the slowest)' : '') +
    '; --ranks picks any.'));
  sec.appendChild(h('p', { 'class': 'sp-help' }, 'per region, each rank\'s total time in it ' +
    '(its calls\' durations summed over its threads; 0 on a rank without the region) over all ' +
    dist.nranks + ' ranks: quantiles (linear, as numpy.percentile), the histogram from min to max (' +
    dist.bins + ' bins, heights on a square-root scale) and the outliers (beyond 1.5 IQR of the ' +
    'quartiles; the farthest from the median)'));
  var box = h('div');
  sec.appendChild(box);
  function table() {
    var t = h('table', { id: 'sp-dist', 'class': 'sp-runs-table' }), tr = t.insertRow();
    ['region', 'ranks with calls', 'min', '25 %', 'median', '75 %', 'max', 'mean', 'histogram',
      'outliers'].forEach(function (c) { tr.appendChild(h('th', {}, c)); });
    dist.regions.filter(function (d) { return R.regionShown(d.g); })
      .sort(function (a, b) { return b.mean - a.mean; })
      .forEach(function (d) {
        var row = t.insertRow(), g = D.regions[d.g];
        row.setAttribute('data-region', d.g);
        row.insertCell().textContent = g.name;
        row.insertCell().textContent = d.ranks;
        d.q.forEach(function (v) { row.insertCell().textContent = fmt(v); });
        row.insertCell().textContent = fmt(d.mean);
        row.insertCell().appendChild(spark(d.hist, g.color));
        row.insertCell().textContent = d.nout ? d.nout + (d.out.length < d.nout ? ' (the ' +
          d.out.length + ' farthest): ' : ': ') + d.out.map(function (o) {
          return 'r' + o[0] + ' ' + fmt(o[1]);
        }).join(', ') : '-';
      });
    box.textContent = '';
    box.appendChild(t);
  }
  table();
  R.onFilter(table);

  var before = document.getElementById('sp-timeline-section');
  before.parentNode.insertBefore(sec, before);
})();
