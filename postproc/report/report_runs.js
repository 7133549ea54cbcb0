// report_runs.js - the sections of report.html that compare several runs
// (D.files, written by html_files.c; run after viewer.js, through
// window.spReport):
//  - Speedup (two or more files): regions common to all files, mean duration
//    per call over the selected ranks (the reference tool's rule), files with
//    the same x averaged, baseline = smallest x, speedup = baseline / mean,
//    dashed ideal x / smallest x.
//  - Weak scaling (three or more files): per common region its time per
//    rank (each rank's time summed over its threads, mean over the selected
//    ranks: --compare's rank_mean) against x, files with the same x
//    averaged; ideal = flat at the baseline; efficiency = t(base) / t(x).
//  - Change (exactly two files): per region, the second run's rank_mean
//    against the first's in percent, largest increase first.
// The x axis of both charts is chosen among ranks, nodes (distinct host
// names), threads per rank and cores (threads x ranks) where every file has
// it. /metadata work_per_rank equal in every file marks a weak-scaling study
// (no Speedup, as --work-per-rank does to the PLplot charts); different
// values mark a study that is not one (no Weak scaling). Every section
// follows the shared filter (spReport.regionShown / onFilter).
(function () {
  'use strict';
  var R = window.spReport, D = R.data, files = D.files;
  if (!files || files.length < 2) return;
  var NS = 'http://www.w3.org/2000/svg';
  var byName = {};
  D.regions.forEach(function (r, g) { byName[r.name] = g; });
  var AXES = [
    { k: 'ranks', label: 'ranks', long: 'ranks (selected ranks of the file)' },
    { k: 'nodes', label: 'nodes', long: 'nodes (distinct host names of the selected ranks)' },
    { k: 'threads', label: 'threads per rank', long: 'threads per rank (/metadata omp_num_threads)' },
    { k: 'cores', label: 'cores', long: 'cores (threads per rank x selected ranks)' }
  ].filter(function (a) {
    return files.every(function (f) { return typeof f[a.k] === 'number'; });
  });
  var axis = AXES[0];
  function $(id) { return document.getElementById('sp-' + id); }

  // A region of another file is shown when the first file's region of that
  // name is; one the first file lacks, when a search term matches its name.
  function shown(name) {
    if (name in byName) return R.regionShown(byName[name]);
    var terms = R.filter.terms || [], low = name.toLowerCase();
    return !terms.length || terms.some(function (t) {
      return t.charAt(0) === '^' ? low.indexOf(t.slice(1)) === 0 : low.indexOf(t) >= 0;
    });
  }
  function color(name) { return name in byName ? D.regions[byName[name]].color : '#555'; }

  // ---- which study: /metadata work_per_rank --------------------------------
  var works = files.map(function (f) { return f.work; });
  var study = 'unknown';
  if (works.every(function (w) { return w > 0; })) {
    study = works.every(function (w) { return Math.abs(w - works[0]) <= 1e-9 * works[0]; }) ?
      'weak' : 'strong';
  }

  // ---- the series ---------------------------------------------------------
  // Groups of files by x (ascending), each value the mean over its files.
  function groups() {
    var xs = [];
    files.forEach(function (f) { if (xs.indexOf(f[axis.k]) < 0) xs.push(f[axis.k]); });
    return xs.sort(function (a, b) { return a - b; });
  }
  function byX(xs, value) {
    return xs.map(function (x) {
      var m = files.filter(function (f) { return f[axis.k] === x; }).map(value);
      return m.reduce(function (a, b) { return a + b; }, 0) / m.length;
    });
  }
  function common(has) {
    return Object.keys(files[0].regions).filter(function (n) {
      return shown(n) && files.every(function (f) { return f.regions[n] && has(f.regions[n]); });
    });
  }
  function speedupSeries() {
    var xs = groups();
    return { xs: xs, series: common(function (r) { return r.n > 0; }).map(function (n) {
      var means = byX(xs, function (f) { return f.regions[n].total / f.regions[n].n; });
      return { name: n, points: xs.map(function (x, k) { return [x, means[0] / means[k]]; }) };
    }) };
  }
  function weakSeries() {
    var xs = groups();
    return { xs: xs, series: common(function (r) { return r.rank_mean > 0; }).map(function (n) {
      var t = byX(xs, function (f) { return f.regions[n].rank_mean; });
      return { name: n, points: xs.map(function (x, k) { return [x, t[k], t[0] / t[k]]; }) };
    }) };
  }

  // ---- a line chart in an <svg> -------------------------------------------
  function svgAdd(svg, tag, attrs, text) {
    var e = document.createElementNS(NS, tag);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    svg.appendChild(e);
    return e;
  }
  // o: {xs, series [{name, points [[x, y, ...]]}], ylog, yfmt, ideal(se) -> [[x, y], ...],
  //     attrs(se, p) -> data attributes of a point, tip(se, p), ytitle}
  function lineChart(svg, o) {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var W = 560, H = 340, L = 76, B = 40, T = 10, Rw = 150;
    svg.setAttribute('width', W);
    svg.setAttribute('height', H);
    var ys = [];
    o.series.forEach(function (se) {
      se.points.forEach(function (p) { ys.push(p[1]); });
      (o.ideal ? o.ideal(se) : []).forEach(function (p) { ys.push(p[1]); });
    });
    var xmin = o.xs[0], xmax = o.xs[o.xs.length - 1];
    var ymax = Math.max.apply(null, ys.concat([0])), ymin = Math.min.apply(null, ys.concat([ymax]));
    var log = o.ylog && ymin > 0 && ymax / ymin > 20;
    var lo = log ? Math.log10(ymin) - 0.1 : 0, hi = log ? Math.log10(ymax) + 0.1 : ymax * 1.05 || 1;
    function X(x) { return L + (xmax > xmin ? (x - xmin) / (xmax - xmin) : 0.5) * (W - L - Rw); }
    function Y(y) { return H - B - ((log ? Math.log10(y) : y) - lo) / (hi - lo) * (H - B - T); }
    svgAdd(svg, 'line', { x1: L, y1: H - B, x2: W - Rw, y2: H - B, stroke: '#999' });
    svgAdd(svg, 'line', { x1: L, y1: T, x2: L, y2: H - B, stroke: '#999' });
    o.xs.forEach(function (x) {
      svgAdd(svg, 'text', { x: X(x), y: H - B + 14, 'text-anchor': 'middle', 'data-xtick': x }, x);
    });
    svgAdd(svg, 'text', { x: (L + W - Rw) / 2, y: H - 6, 'text-anchor': 'middle',
      'data-xlabel': 1 }, axis.label);
    var ticks = log ? [] : [0, hi / 2 / 1.05, hi / 1.05];
    if (log) for (var e = Math.ceil(lo); e <= Math.floor(hi); e++) ticks.push(Math.pow(10, e));
    if (log && ticks.length < 2) ticks = [ymin, ymax];
    ticks.forEach(function (y) {
      svgAdd(svg, 'text', { x: L - 4, y: Y(y) + 4, 'text-anchor': 'end' }, o.yfmt(y));
    });
    svgAdd(svg, 'text', { x: 12, y: (T + H - B) / 2, 'text-anchor': 'middle', 'data-ytitle': 1,
      transform: 'rotate(-90 12 ' + (T + H - B) / 2 + ')' }, o.ytitle + (log ? ' (log scale)' : ''));
    o.series.forEach(function (se, k) {
      var col = color(se.name);
      if (o.ideal) {
        svgAdd(svg, 'polyline', { fill: 'none', stroke: o.idealColor || col, 'stroke-width': 1,
          'stroke-dasharray': '5,4', 'data-ideal': se.name,
          points: o.ideal(se).map(function (p) { return X(p[0]) + ',' + Y(p[1]); }).join(' ') });
      }
      svgAdd(svg, 'polyline', { fill: 'none', stroke: col, 'stroke-width': 2,
        points: se.points.map(function (p) { return X(p[0]) + ',' + Y(p[1]); }).join(' ') });
      se.points.forEach(function (p) {
        var attrs = o.attrs(se, p);
        attrs.cx = X(p[0]);
        attrs.cy = Y(p[1]);
        attrs.r = 4;
        attrs.fill = col;
        svgAdd(svg, 'circle', attrs).appendChild(document.createElementNS(NS, 'title'))
          .textContent = o.tip(se, p);
      });
      svgAdd(svg, 'rect', { x: W - Rw + 10, y: T + 16 * k, width: 10, height: 10, fill: col });
      svgAdd(svg, 'text', { x: W - Rw + 24, y: T + 16 * k + 9 },
        se.name.length > 20 ? se.name.slice(0, 19) + '\u2026' : se.name);
    });
  }

  // ---- Speedup and Weak scaling -------------------------------------------
  function fewX(xs, note) {
    if (xs.length > 1) return false;
    note.textContent = 'every file has the same ' + axis.label + ' (' + xs[0] + '): nothing to ' +
      'plot against it; choose another x axis';
    return true;
  }
  function buildSpeedup() {
    var note = $('speedup-note'), svg = $('speedup');
    note.textContent = '';
    $('speedup-rule').textContent = 'Regions common to all files; y: mean duration per call ' +
      'over the selected ranks (the reference tool\'s rule), files with the same ' + axis.label +
      ' averaged; speedup = that mean at the smallest ' + axis.label + ' / the mean; dashed: ideal (' +
      axis.label + ' / smallest ' + axis.label + ').';
    if (study === 'weak') {
      svg.hidden = true;
      note.textContent = 'Not drawn: work_per_rank is ' + works[0] + ' in every file (/metadata), ' +
        'a weak-scaling study; speedup is for a fixed problem size (strong scaling), as ' +
        '--work-per-rank leaves it out of the PLplot charts. See Weak scaling.';
      return;
    }
    var s = speedupSeries();
    svg.hidden = fewX(s.xs, note) || !s.series.length;
    if (!s.series.length && s.xs.length > 1) note.textContent = 'no region shown is timed in every file';
    if (svg.hidden) return;
    var x0 = s.xs[0];
    // One ideal line for all regions: x / smallest x.
    var pts = s.xs.map(function (x) { return [x, x / x0]; });
    lineIdeal(svg, s, pts);
  }
  // The speedup chart with its one grey ideal line (in the y range).
  function lineIdeal(svg, s, pts) {
    var series = s.series;
    lineChart(svg, { xs: s.xs, series: series, yfmt: function (y) { return y.toFixed(2); },
      ytitle: 'speedup',
      ideal: function () { return pts; }, idealColor: '#777',
      attrs: function (se, p) { return { 'data-name': se.name, 'data-x': p[0], 'data-speedup': p[1] }; },
      tip: function (se, p) {
        return se.name + ': ' + p[0] + ' ' + axis.label + ', speedup ' + p[1].toFixed(3);
      } });
    // One dashed line is enough: keep the first, drop the copies per region.
    var ideals = svg.querySelectorAll('[data-ideal]');
    for (var i = 1; i < ideals.length; i++) ideals[i].parentNode.removeChild(ideals[i]);
    if (ideals.length) ideals[0].setAttribute('data-ideal', 1);
  }

  function buildWeak() {
    var note = $('weak-note'), svg = $('weak'), table = $('weak-table');
    note.textContent = '';
    table.innerHTML = '';
    $('weak-rule').textContent = 'Regions common to all files; y: time per rank (each rank\'s ' +
      'time in the region summed over its threads, mean over the selected ranks: --compare\'s ' +
      'rank_mean), files with the same ' + axis.label + ' averaged; dashed: ideal, flat at the ' +
      'smallest ' + axis.label + '; efficiency = that time / the time.' +
      (study === 'weak' ? ' work_per_rank = ' + works[0] + ' in every file.' : '');
    if (study === 'strong') {
      svg.hidden = true;
      note.textContent = 'Not drawn: work_per_rank differs between the files (/metadata: ' +
        works.join(', ') + '): not a weak-scaling study. See Speedup.';
      return;
    }
    var s = weakSeries();
    svg.hidden = fewX(s.xs, note) || !s.series.length;
    if (!s.series.length && s.xs.length > 1) note.textContent = 'no region shown is timed in every file';
    if (svg.hidden) return;
    lineChart(svg, { xs: s.xs, series: s.series, ylog: true, yfmt: R.fmtTime,
      ytitle: 'time per rank (mean over ranks)',
      ideal: function (se) { return [[s.xs[0], se.points[0][1]], [s.xs[s.xs.length - 1], se.points[0][1]]]; },
      attrs: function (se, p) {
        return { 'data-name': se.name, 'data-x': p[0], 'data-t': p[1], 'data-eff': p[2] };
      },
      tip: function (se, p) {
        return se.name + ': ' + p[0] + ' ' + axis.label + ', ' + R.fmtTime(p[1]) +
          ' per rank, efficiency ' + p[2].toFixed(3);
      } });
    var head = table.insertRow();
    ['region'].concat(s.xs.map(function (x) { return axis.label + ' ' + x; })).forEach(function (h, k) {
      var th = document.createElement('th');
      th.textContent = h;
      if (k) th.colSpan = 2;
      head.appendChild(th);
    });
    var sub = table.insertRow();
    sub.appendChild(document.createElement('th'));
    s.xs.forEach(function () {
      ['time/rank', 'efficiency'].forEach(function (h) {
        var th = document.createElement('th');
        th.textContent = h;
        th.className = 'sp-sub';
        sub.appendChild(th);
      });
    });
    s.series.forEach(function (se) {
      var tr = table.insertRow();
      tr.setAttribute('data-name', se.name);
      tr.insertCell().textContent = se.name;
      se.points.forEach(function (p) {
        var td = tr.insertCell();
        td.textContent = R.fmtTime(p[1]);
        td.setAttribute('data-t', p[1]);
        td = tr.insertCell();
        td.textContent = (100 * p[2]).toFixed(1) + '%';
        td.className = 'sp-eff';
        td.setAttribute('data-eff', p[2]);
      });
    });
  }

  // ---- Change (two files) -------------------------------------------------
  // Rows: [name, first, second, pct]; first/second: rank_mean (ns) or null.
  function changeRows() {
    var a = files[0].regions, b = files[1].regions, names = Object.keys(a);
    Object.keys(b).forEach(function (n) { if (!(n in a)) names.push(n); });
    function t(r) { return r && typeof r.rank_mean === 'number' ? r.rank_mean : null; }
    var rows = names.filter(shown).map(function (n) {
      var x = t(a[n]), y = t(b[n]);
      return [n, x, y, x !== null && y !== null && x > 0 ? 100 * (y - x) / x : null];
    });
    // Largest increase first; then the rows without a percentage, by name.
    return rows.sort(function (p, q) {
      if (p[3] !== null && q[3] !== null) return q[3] - p[3] || (p[0] < q[0] ? -1 : 1);
      if (p[3] !== null || q[3] !== null) return p[3] !== null ? -1 : 1;
      return p[0] < q[0] ? -1 : p[0] > q[0] ? 1 : 0;
    });
  }
  function buildChange() {
    var table = $('change'), rows = changeRows();
    table.innerHTML = '';
    $('change-rule').textContent = 'Per region, the time per rank (each rank\'s time summed over ' +
      'its threads, outermost calls, mean over the selected ranks: --compare\'s rank_mean) of ' +
      files[1].label + ' (' + files[1].ranks + ' ranks) against ' + files[0].label + ' (' +
      files[0].ranks + ' ranks): change = (second - first) / first; largest increase first.';
    var head = table.insertRow();
    ['region', files[0].label, files[1].label, 'change', ''].forEach(function (h) {
      var th = document.createElement('th');
      th.textContent = h;
      head.appendChild(th);
    });
    var big = Math.max.apply(null, rows.map(function (r) { return r[3] === null ? 0 : Math.abs(r[3]); })
      .concat([1e-9]));
    rows.forEach(function (r) {
      var tr = table.insertRow();
      tr.setAttribute('data-name', r[0]);
      if (r[3] !== null) tr.setAttribute('data-pct', r[3]);
      tr.insertCell().textContent = r[0];
      [r[1], r[2]].forEach(function (v) {
        var td = tr.insertCell();
        td.textContent = v === null ? '\u2013' : R.fmtTime(v);
        if (v !== null) td.setAttribute('data-t', v);
      });
      var pc = tr.insertCell(), bar = tr.insertCell();
      bar.className = 'sp-change-bar';
      if (r[3] !== null) {
        pc.textContent = (r[3] > 0 ? '+' : '') + r[3].toFixed(1) + '%';
        var w = Math.max(1, Math.round(60 * Math.abs(r[3]) / big)), d = document.createElement('span');
        d.className = r[3] > 0 ? 'sp-up' : 'sp-down';
        d.style.width = w + 'px';
        d.style.marginLeft = (r[3] > 0 ? 60 : 60 - w) + 'px';
        bar.appendChild(d);
      } else {
        pc.textContent = r[1] === null && r[2] === null ? 'timed in neither run' :
          r[1] === null ? 'only in the second run' : r[2] === null ? 'only in the first run' :
          'no time in the first run';
        pc.className = 'sp-only';
      }
    });
  }

  // ---- start --------------------------------------------------------------
  function build() {
    if (files.length >= 2) buildSpeedup();
    if (files.length >= 3) buildWeak();
    if (files.length === 2) buildChange();
  }
  $('scaling').hidden = false;
  $('speedup-section').hidden = false;
  $('weak-section').hidden = files.length < 3;
  $('change-section').hidden = files.length !== 2;
  var sel = $('x-axis');
  AXES.forEach(function (a) {
    var o = document.createElement('option');
    o.value = a.k;
    o.textContent = a.long;
    sel.appendChild(o);
  });
  sel.addEventListener('change', function () {
    axis = AXES.filter(function (a) { return a.k === sel.value; })[0];
    build();
  });
  $('study').textContent = study === 'weak' ? 'work_per_rank ' + works[0] + ' in every file: a ' +
    'weak-scaling study' : study === 'strong' ? 'work_per_rank differs between the files: not a ' +
    'weak-scaling study' : 'no work_per_rank in the files\' /metadata: Speedup reads right for a ' +
    'fixed problem (strong scaling), Weak scaling for a fixed work per rank';
  build();
  R.onFilter(build);
  R.runs = { axis: function () { return axis.k; }, axes: AXES.map(function (a) { return a.k; }),
    study: study, changeRows: changeRows, speedupSeries: speedupSeries, weakSeries: weakSeries };
})();
