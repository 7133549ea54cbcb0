// report_balance.js - the Load balance, Rank comparison and Hotspots
// sections of report.html (issue 39), after the call tree. Figures: per
// region the rank times of "balance" (html_balance.c: a rank's outermost
// calls summed over its threads, as --summary), per call path the tree's
// (as --tree). Every table follows the shared filter (spReport.regionShown,
// nodeShown) and is rebuilt on spReport.onFilter.
(function () {
  'use strict';
  var R = window.spReport;
  if (!R) return;
  var D = R.data, regions = D.regions, tree = D.tree || [], ranks = D.ranks, nr = ranks.length;
  var B = D.balance || { rt: [] }, fmt = R.fmtTime, stamps = D.stamps !== 0;
  var TOP_RANKS = 8, TOP_HOT = 10, MAX_PATHS = 100, GROWTH = 1.5, GROWTH_CALLS = 3;
  // The noise floor of the check command (check.c): a region under 0.1 % of
  // the run per rank or under 100 us per rank is never named as growing (an
  // empty region going from 25 to 160 ns a call is no finding).
  var FLOOR_SHARE = 0.001, FLOOR_NS = 1e5;
  // More ranks than fit (report_dist.js): "ranks" and B.rt hold the
  // representative ranks only; the regions' min, mean, max and slowest rank
  // come from every rank (dist.regions[].bal, the same rule), and the tree's
  // figures are over every rank too, so costs multiply by all of them.
  var DIST = D.dist, nAll = DIST ? DIST.nranks : nr, distBal = [];
  if (DIST) DIST.regions.forEach(function (d) { if (d.bal) distBal[d.g] = d.bal; });
  var OVER = DIST ? 'all ' + nAll + ' ranks, not only the ' + nr + ' representative ranks that ' +
    'the other per-rank views show,' : 'the ' + nr + ' selected ranks';

  function h(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function section(id, title) {
    var s = h('section', { id: id });
    s.appendChild(h('h2', {}, title));
    return s;
  }

  // The call path of each node ('main / step / compute').
  var paths = [];
  tree.forEach(function (n, i) {
    paths[i] = (n.p >= 0 ? paths[n.p] + ' / ' : '') + regions[n.g].name;
  });

  // Per region: min, mean and max over the selected ranks of the rank's time.
  function regionRow(g) {
    var a = distBal[g];
    if (a) return { g: g, name: regions[g].name, ranks: regions[g].ranks, min: a[0], mean: a[1],
      max: a[2], slow: a[3], imb: a[2] > 0 ? (a[2] - a[1]) / a[2] : 0, cost: (a[2] - a[1]) * nAll };
    var rt = B.rt[g] || [], mn = Infinity, mx = -1, slow = -1, sum = 0;
    for (var j = 0; j < nr; j++) {
      var v = rt[j] || 0;
      sum += v;
      if (v < mn) mn = v;
      if (v > mx) { mx = v; slow = ranks[j]; } // the lowest rank id on ties, as the tree
    }
    var mean = nr ? sum / nr : 0;
    return { g: g, name: regions[g].name, ranks: regions[g].ranks, min: nr ? mn : 0, mean: mean,
      max: Math.max(mx, 0), slow: slow, imb: mx > 0 ? (mx - mean) / mx : 0, cost: (mx - mean) * nr };
  }
  function pathRow(i) {
    var n = tree[i];
    return { i: i, g: n.g, name: paths[i], calls: n.calls, min: n.rmin, mean: n.rmean, max: n.rmax,
      slow: n.maxr, imb: n.imb, cost: (n.rmax - n.rmean) * nAll };
  }

  // A sortable table: cols [key, heading, kind]; state {key, desc}; clicking
  // a heading sorts by it (again: the other way). Each cell keeps its number
  // in data-v for scripts and tests.
  function table(el, cols, rows, state, limit, rowHook) {
    el.textContent = '';
    var k = state.key;
    rows = rows.slice().sort(function (a, b) {
      var x = a[k], y = b[k], c = x < y ? -1 : x > y ? 1 : 0;
      return (state.desc ? -c : c) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    });
    var head = el.createTHead().insertRow();
    cols.forEach(function (c) {
      var th = h('th', { 'data-key': c[0] }, c[1] + (k === c[0] ? (state.desc ? ' \u25be' : ' \u25b4') : ''));
      th.onclick = function () {
        state.desc = state.key === c[0] ? !state.desc : c[2] !== 'name';
        state.key = c[0];
        table(el, cols, rows, state, limit, rowHook);
      };
      head.appendChild(th);
    });
    if (rowHook && rowHook.head) head.appendChild(h('th', {}, rowHook.head));
    var body = el.createTBody();
    rows.slice(0, limit || rows.length).forEach(function (r) {
      var tr = body.insertRow();
      tr.setAttribute('data-name', r.name);
      cols.forEach(function (c) {
        var v = r[c[0]], td = tr.insertCell();
        if (c[2] !== 'name') td.setAttribute('data-v', v);
        td.textContent = c[2] === 'time' ? fmt(v) : c[2] === 'ratio' ? v.toFixed(3) :
          c[2] === 'pct' ? (100 * v).toFixed(2) + ' %' : String(v);
      });
      if (rowHook) rowHook(tr, r);
    });
    if (limit && rows.length > limit) {
      var tr = body.insertRow(), td = tr.insertCell();
      td.colSpan = cols.length;
      td.className = 'sp-more';
      td.textContent = (rows.length - limit) + ' more rows (narrow them with the filter)';
    }
  }

  // ---- the sections, inserted after the call tree --------------------------
  var after = document.getElementById('sp-tree-section');
  var secBal = section('sp-balance-section', 'Load balance');
  var secRanks = section('sp-ranks-section', 'Rank comparison');
  var secHot = section('sp-hotspots-section', 'Hotspots');
  after.parentNode.insertBefore(secHot, after.nextSibling);
  after.parentNode.insertBefore(secRanks, secHot);
  after.parentNode.insertBefore(secBal, secRanks);

  var RULE = 'a rank\'s time is its time in the region summed over its threads';
  secBal.appendChild(h('p', { 'class': 'sp-help' }, 'Per region: ' + RULE + (stamps ? ' (its ' +
    'outermost calls: a recursive region counts once)' : ' (this aggregate file stores no stamps: ' +
    'its stored total per rank, every call\'s duration, so a recursive region\'s nested calls ' +
    'count again)') + ', as --summary; min, mean and max over ' + OVER +
    ' (a rank without the region counts 0); slowest rank: the lowest id on ' +
    'ties; imbalance = (max \u2212 mean) / max, as --summary and --tree; cost = ' +
    '(max \u2212 mean) \u00d7 ' + nAll + ' ranks: the time the ' +
    'other ranks spend waiting for the slowest, if they wait for it.'));
  var tabRegions = h('table', { id: 'sp-balance-regions', 'class': 'sp-bal' });
  secBal.appendChild(tabRegions);
  secBal.appendChild(h('p', { 'class': 'sp-help' }, 'Per call path: a rank\'s inclusive time ' +
    'on the path summed over its threads, min, mean and max over ' + OVER + ' (0 where a ' +
    'rank lacks the path), as the call tree and --tree.'));
  var tabPaths = h('table', { id: 'sp-balance-paths', 'class': 'sp-bal' });
  secBal.appendChild(tabPaths);
  var BAL_COLS = [['name', 'region', 'name'], ['ranks', 'ranks with it', 'int'],
    ['min', 'min/rank', 'time'], ['mean', 'mean/rank', 'time'], ['max', 'max/rank', 'time'],
    ['slow', 'slowest rank', 'int'], ['imb', 'imbalance', 'ratio'], ['cost', 'cost', 'time']];
  var PATH_COLS = [['name', 'call path', 'name'], ['calls', 'calls (all ranks)', 'int']]
    .concat(BAL_COLS.slice(2));
  var sortRegions = { key: 'cost', desc: true }, sortPaths = { key: 'cost', desc: true };

  // OpenMP (a file with omp regions, html_balance.c's "omp"): per rank and
  // thread its outermost "omp parallel" time split into wait (the OpenMP
  // wait regions) and work (the rest).
  var OMP = B.omp, tabOmp = null, sortOmp = { key: 'wait', desc: true };
  var OMP_COLS = [['name', 'rank / thread', 'name'], ['rank', 'rank', 'int'], ['tid', 'thread', 'int'],
    ['par', 'in omp parallel', 'time'], ['work', 'work', 'time'], ['wait', 'wait', 'time'],
    ['share', 'wait share', 'pct']];
  if (OMP) {
    secBal.appendChild(h('h3', {}, 'OpenMP threads: work vs wait'));
    secBal.appendChild(h('p', { 'class': 'sp-help' }, 'Per rank and thread: its time in its ' +
      'outermost omp parallel calls; wait = its time in the OpenMP wait regions (omp barrier, ' +
      'omp implicit barrier, omp runtime barrier, omp taskwait, omp taskgroup, omp reduction, ' +
      'and the critical, lock and ordered waits), work = the rest of its parallel time; wait ' +
      'share = wait / parallel time. A worker\'s wait at the barrier closing a parallel region ' +
      'is not reported by libomp, and a task run inside a wait counts as wait (docs/openmp.md). ' +
      'Not narrowed by the filter.'));
    tabOmp = h('table', { id: 'sp-balance-omp', 'class': 'sp-bal' });
    secBal.appendChild(tabOmp);
  }
  function buildOmp() {
    var rows = OMP.threads.map(function (t) {
      return { name: 'rank ' + t[0] + ' / thread ' + t[1], rank: t[0], tid: t[1], par: t[2],
        work: Math.max(t[2] - t[3], 0), wait: t[3], share: t[2] > 0 ? t[3] / t[2] : 0 };
    });
    var top = rows.reduce(function (m, r) { return Math.max(m, r.work + r.wait); }, 0);
    var bars = function (tr, r) {
      var td = tr.insertCell(), w = h('span', { 'class': 'sp-bar sp-omp-work' }),
        x = h('span', { 'class': 'sp-bar sp-omp-wait' });
      w.style.width = (top > 0 ? 100 * r.work / top : 0).toFixed(1) + '%';
      x.style.width = (top > 0 ? 100 * r.wait / top : 0).toFixed(1) + '%';
      td.className = 'sp-omp-bars';
      td.appendChild(w);
      td.appendChild(x);
    };
    bars.head = 'work | wait (scaled to the longest thread)';
    table(tabOmp, OMP_COLS, rows, sortOmp, 0, bars);
  }

  var rankHelp = h('p', { 'class': 'sp-help' });
  secRanks.appendChild(rankHelp);
  var tabRanks = h('table', { id: 'sp-ranks', 'class': 'sp-bal' });
  secRanks.appendChild(tabRanks);

  // The run: the inclusive time of every root path summed over ranks and
  // threads, so the exclusive times of all paths add up to 100 %.
  var run = 0;
  tree.forEach(function (n) { if (n.p < 0 && n.timed) run += n.incl; });
  secHot.appendChild(h('p', { 'class': 'sp-help' }, 'The call paths with the most exclusive time ' +
    '(a path\'s time minus its children\'s, summed over threads): mean/rank over ' + OVER +
    ' (0 where a rank lacks the path) and the sum of ranks; share = the sum of ' +
    'ranks / the run, the inclusive time of every root path summed over ranks and threads (' +
    fmt(run) + '), so the shares of all paths add up to 100 %.'));
  var tabHot = h('table', { id: 'sp-hotspots', 'class': 'sp-bal' });
  secHot.appendChild(tabHot);
  var HOT_COLS = [['name', 'call path', 'name'], ['emean', 'exclusive, mean/rank', 'time'],
    ['excl', 'exclusive, sum of ranks', 'time'], ['share', 'share of the run', 'pct'],
    ['calls', 'calls (all ranks)', 'int']];
  var sortHot = { key: 'excl', desc: true };
  secHot.appendChild(h('h3', {}, 'Findings'));
  var findHelp = h('p', { 'class': 'sp-help' }, 'The region whose imbalance costs the most ' +
    '(cost as in Load balance' + (DIST ? ', over all ' + nAll + ' ranks' : '') + '); the rank ' +
    'with the most time in MPI calls (regions named MPI_*, its time summed over those regions' +
    (DIST ? '; of the ' + nr + ' representative ranks' : '') + '); a region whose calls take at least ' + GROWTH +
    ' times as long, on the mean, in the last third of the run as in the first (calls by their start, ' +
    'every call counted, at least ' + GROWTH_CALLS + ' in each third; as the check command, none ' +
    'under the noise floor: ' + (100 * FLOOR_SHARE) + ' % of the run or ' + fmt(FLOOR_NS) +
    ' per rank' + (DIST ? '; the calls of the ' + nr + ' representative ranks' : '') + ').');
  secHot.appendChild(findHelp);
  var list = h('ul', { id: 'sp-findings' });
  secHot.appendChild(list);

  var hlRank = null;
  function clickRank(r) {
    hlRank = hlRank === r ? null : r;
    R.highlightRank(hlRank);
    [].forEach.call(tabRanks.querySelectorAll('tbody tr'), function (tr) {
      tr.classList.toggle('sp-on', +tr.getAttribute('data-rank') === hlRank);
    });
  }

  function buildRanks(rows) {
    var top = rows.filter(function (r) { return r.max > 0; })
      .sort(function (a, b) { return b.mean - a.mean || a.g - b.g; }).slice(0, TOP_RANKS);
    rankHelp.textContent = 'Each cell: ' + RULE + ' (0 where it lacks the region), with a bar ' +
      'scaled to the region\'s slowest rank' + (DIST ? ' of all ' + nAll : '') + ', marked red ' +
      '(none when every rank takes the same); the ' + top.length + ' shown regions with the ' +
      'largest mean over ' + OVER + '.' + (DIST ? ' Rows: the ' + nr + ' representative ranks.' : '') +
      (stamps ? ' Click a rank to highlight its lanes in the timeline (again: all ranks).' : '');
    tabRanks.textContent = '';
    var head = tabRanks.createTHead().insertRow();
    head.appendChild(h('th', {}, 'rank'));
    top.forEach(function (r) { head.appendChild(h('th', { 'data-region': r.g }, r.name)); });
    var body = tabRanks.createTBody();
    ranks.forEach(function (rk, j) {
      var tr = body.insertRow();
      tr.setAttribute('data-rank', rk);
      if (rk === hlRank) tr.className = 'sp-on';
      tr.insertCell().textContent = String(rk);
      top.forEach(function (r) {
        var v = B.rt[r.g][j], td = tr.insertCell(), bar = h('span', { 'class': 'sp-bar' });
        td.setAttribute('data-v', v);
        if (rk === r.slow && r.max > r.mean) td.className = 'sp-slow'; // none when all equal
        bar.style.width = (r.max > 0 ? 100 * v / r.max : 0).toFixed(1) + '%';
        td.appendChild(bar);
        td.appendChild(h('span', {}, fmt(v)));
      });
      if (stamps) tr.onclick = function () { clickRank(rk); };
    });
  }

  function finding(kind, attrs, text) {
    attrs['data-kind'] = kind;
    list.appendChild(h('li', attrs, text));
  }

  function buildFindings(rows) {
    list.textContent = '';
    var worst = rows.filter(function (r) { return r.cost > 0; })
      .sort(function (a, b) { return b.cost - a.cost || a.g - b.g; })[0];
    if (worst)
      finding('imbalance', { 'data-region': worst.name, 'data-rank': worst.slow }, 'Most imbalanced: ' +
        worst.name + ' costs the run ' + fmt(worst.cost) + ' ((max \u2212 mean) \u00d7 ' + nAll +
        ' ranks): rank ' + worst.slow + ' takes ' + fmt(worst.max) + ', the mean is ' +
        fmt(worst.mean) + ' (imbalance ' + worst.imb.toFixed(3) + ').');
    var mpi = rows.filter(function (r) { return regions[r.g].name.indexOf('MPI_') === 0; });
    if (mpi.length) {
      var per = ranks.map(function (rk, j) {
        return mpi.reduce(function (s, r) { return s + (B.rt[r.g][j] || 0); }, 0);
      });
      var jm = per.indexOf(Math.max.apply(null, per));
      var mean = per.reduce(function (s, v) { return s + v; }, 0) / nr;
      if (per[jm] > 0)
        finding('mpi', { 'data-rank': ranks[jm] }, 'Most time in MPI calls' + (DIST ? ' (of the ' +
          nr + ' representative ranks)' : '') + ': rank ' + ranks[jm] +
          ' (waiting or moving data), ' + fmt(per[jm]) + ' in ' + (mpi.length > 4 ? mpi.length +
          ' MPI_* regions' : mpi.map(function (r) { return r.name; }).join(', ')) +
          ' (mean over ' + (DIST ? 'them ' : 'ranks ') + fmt(mean) + ').');
    }
    if (!B.thirds) {
      list.appendChild(h('li', {}, 'No growth finding: this aggregate file stores no stamps.'));
      return;
    }
    var grow = null, floor = Math.max(FLOOR_NS, FLOOR_SHARE * (nAll ? run / nAll : 0));
    rows.forEach(function (r) {
      var t = B.thirds[r.g];
      if (!t || t[0] < GROWTH_CALLS || t[2] < GROWTH_CALLS || t[1] <= 0) return;
      if (r.mean < floor) return; // under the noise floor: never named
      var ratio = (t[3] / t[2]) / (t[1] / t[0]);
      if (ratio >= GROWTH && (!grow || ratio > grow.ratio)) grow = { r: r, t: t, ratio: ratio };
    });
    if (grow)
      finding('growth', { 'data-region': grow.r.name }, 'Growing: the calls of ' + grow.r.name +
        ' take ' + grow.ratio.toFixed(2) + ' times as long in the last third of the run (mean ' +
        fmt(grow.t[3] / grow.t[2]) + ', ' + grow.t[2] + ' calls) as in the first (' +
        fmt(grow.t[1] / grow.t[0]) + ', ' + grow.t[0] + ' calls).');
  }

  function build() {
    var rows = [];
    for (var g = 0; g < regions.length; g++) if (R.regionShown(g)) rows.push(regionRow(g));
    var prow = [], hot = [];
    tree.forEach(function (n, i) {
      if (!n.timed || !R.nodeShown(i)) return;
      prow.push(pathRow(i));
      hot.push({ name: paths[i], emean: n.emean, excl: n.excl, share: run > 0 ? n.excl / run : 0,
        calls: n.calls });
    });
    table(tabRegions, BAL_COLS, rows, sortRegions);
    table(tabPaths, PATH_COLS, prow, sortPaths, MAX_PATHS);
    if (tabOmp) buildOmp();
    if (!prow.length) tabPaths.appendChild(h('caption', {}, 'no call path with times'));
    buildRanks(rows);
    hot.sort(function (a, b) { return b.excl - a.excl || (a.name < b.name ? -1 : a.name > b.name); });
    table(tabHot, HOT_COLS, hot.slice(0, TOP_HOT), sortHot);
    if (!hot.length) tabHot.appendChild(h('caption', {}, 'no call path with times (a calls-only ' +
      'file stores no nesting)'));
    buildFindings(rows);
    if (!list.children.length) list.appendChild(h('li', {}, 'none for the shown regions'));
  }
  var t = performance.now();
  build();
  R.balanceMs = performance.now() - t; // the three sections' first build (benchmark)
  R.onFilter(build);
})();
