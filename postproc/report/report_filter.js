// report_filter.js - the Search and filters section of report.html: a search
// box and two sliders that set spReport.filter for every section.
//
// The rules (masks computed in viewer.js's setFilter):
//  - search: comma-separated terms, case-insensitive; a region matches when
//    its name contains a term, or starts with it when the term begins with
//    '^' ("^mpi, solve"); no term: every region.
//  - call depth d (1 .. the tree's deepest path + 1; the top = all): the
//    call paths (tree nodes) of depth < d are within it (1: the roots only);
//    a region is within it when one of its paths is.
//  - regions N (1 .. all; the top = all): of the regions that match and are
//    within the depth, the N with the most total time over the selected
//    ranks (regions[].total; ties by name).
// A path is shown when its region is and it is within the depth. The
// timeline keeps the lanes with a shown path (an exact lane draws only the
// calls of its shown paths; a binned lane cannot split its bins by path);
// the call tree hides the rows of hidden paths but keeps, greyed, the rows
// above a shown path so that its place in the tree stays readable; the
// flame chart leaves out hidden calls, the others keep their depth. The
// state lives in the URL hash (#q=...&top=N&depth=D; other keys kept), so a
// link or a reload shows the same filter.
(function () {
  'use strict';
  var R = window.spReport, D = R.data, regions = D.regions, tree = D.tree || [];
  function byId(id) { return document.getElementById(id); }
  var box = byId('sp-search'), top = byId('sp-top'), depth = byId('sp-depth');
  var count = byId('sp-filter-count');
  var levels = tree.reduce(function (m, n) { return Math.max(m, n.d + 1); }, 0);

  top.min = 1;
  top.max = top.value = Math.max(1, regions.length);
  depth.min = 1;
  depth.max = depth.value = Math.max(1, levels);
  depth.disabled = levels < 2;
  top.disabled = regions.length < 2;

  function terms(s) {
    return s.split(',').map(function (t) { return t.trim().toLowerCase(); })
      .filter(function (t) { return t && t !== '^'; });
  }

  function fromControls() {
    return { terms: terms(box.value), top: +top.value >= regions.length ? 0 : +top.value,
      depth: +depth.value >= levels ? 0 : +depth.value };
  }

  // The hash's other keys (another section's) are kept.
  function hashParams() { return new URLSearchParams(location.hash.replace(/^#/, '')); }
  function saveHash() {
    var p = hashParams(), f = R.filter;
    p.delete('q'); p.delete('top'); p.delete('depth');
    if (box.value.trim()) p.set('q', box.value.trim());
    if (f.top) p.set('top', f.top);
    if (f.depth) p.set('depth', f.depth);
    var h = p.toString();
    if (h !== location.hash.replace(/^#/, '')) {
      try { history.replaceState(null, '', h ? '#' + h : location.pathname + location.search); } catch (e) {
        location.hash = h; // a browser that refuses replaceState on file://
      }
    }
  }

  function fromHash() {
    var p = hashParams();
    box.value = p.get('q') || '';
    top.value = p.has('top') ? Math.min(Math.max(1, +p.get('top') || top.max), top.max) : top.max;
    depth.value = p.has('depth') ? Math.min(Math.max(1, +p.get('depth') || depth.max), depth.max) : depth.max;
  }

  // One setFilter per animation frame while a slider is dragged.
  var queued = false;
  function apply() {
    if (queued) return;
    queued = true;
    requestAnimationFrame(function () { queued = false; R.setFilter(fromControls()); });
  }

  function show(f) {
    var nr = 0, np = 0;
    regions.forEach(function (r, g) { if (R.regionShown(g)) nr++; });
    tree.forEach(function (n, i) { if (R.nodeShown(i)) np++; });
    byId('sp-top-value').textContent = f.top ? f.top : 'all (' + regions.length + ')';
    byId('sp-depth-value').textContent = f.depth ? f.depth : 'all (' + levels + ')';
    count.textContent = nr + ' of ' + regions.length + ' regions shown' +
      (tree.length ? ', ' + np + ' of ' + tree.length + ' call paths' : '') +
      (D.lanes.length ? ', ' + R.lanes.length + ' of ' + D.lanes.length + ' lanes' : '');
    saveHash();
  }
  R.onFilter(show);

  box.addEventListener('input', apply);
  top.addEventListener('input', apply);
  depth.addEventListener('input', apply);
  window.addEventListener('hashchange', function () { fromHash(); R.setFilter(fromControls()); });

  // After every section's script has run (they register onFilter first).
  // readyMs: from navigation start to here, every section built (benchmark).
  // Without a filter in the hash the sections stand as built (no rebuild).
  function start() {
    fromHash();
    var f = fromControls();
    if (f.terms.length || f.top || f.depth) R.setFilter(f); else show(R.filter);
    R.readyMs = performance.now();
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
