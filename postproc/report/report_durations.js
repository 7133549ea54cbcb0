// report_durations.js - the Durations section of report.html: a bar per
// region with stamped calls (its total, mean, shortest or longest call,
// as the metric menu says), longest first, widths in proportion; the
// regions the filter hides are left out (rebuilt from onFilter).
(function () {
  'use strict';
  var R = window.spReport, regions = R.data.regions;
  var svg = document.getElementById('sp-durations'), metric = document.getElementById('sp-metric');

  function metricOf(r, m) {
    if (m === 'avg') return r.n ? r.total / r.n : 0;
    return r[m] || 0;
  }

  function buildDurations() {
    var m = metric.value, svgNS = 'http://www.w3.org/2000/svg';
    var rows = regions.filter(function (r) { return r.n > 0 && R.regionShown(r.index); })
      .sort(function (a, b) { // longest first, ties by name
        return metricOf(b, m) - metricOf(a, m) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
      });
    var max = rows.length ? metricOf(rows[0], m) || 1 : 1, W = 900, bh = 16, nameW = 220;
    svg.setAttribute('width', W);
    svg.setAttribute('height', rows.length * (bh + 4) + 4);
    svg.textContent = '';
    rows.forEach(function (r, k) {
      var y = 2 + k * (bh + 4), w = metricOf(r, m) / max * (W - nameW - 110);
      var name = document.createElementNS(svgNS, 'text');
      name.setAttribute('x', nameW - 6); name.setAttribute('y', y + bh - 4);
      name.setAttribute('text-anchor', 'end');
      name.textContent = r.name.length > 34 ? r.name.slice(0, 33) + '\u2026' : r.name;
      var bar = document.createElementNS(svgNS, 'rect');
      bar.setAttribute('x', nameW); bar.setAttribute('y', y);
      bar.setAttribute('width', Math.max(0.5, w)); bar.setAttribute('height', bh);
      bar.setAttribute('fill', r.color);
      bar.setAttribute('data-region', r.index);
      bar.addEventListener('click', function () { R.toggleRegion(r.index); });
      var val = document.createElementNS(svgNS, 'text');
      val.setAttribute('x', nameW + w + 4); val.setAttribute('y', y + bh - 4);
      val.textContent = R.fmtTime(metricOf(r, m));
      svg.appendChild(name); svg.appendChild(bar); svg.appendChild(val);
    });
  }

  metric.addEventListener('change', buildDurations);
  R.onFilter(buildDurations);
  buildDurations();
})();
