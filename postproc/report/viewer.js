// viewer.js - the interactive part of report.html (embedded at build time).
//
// Reads the JSON written by scope-profiler-pproc (postproc/cli/html_data.c)
// from <script id="sp-data"> and draws:
//  - the timeline: one lane per (region, rank, thread) on a <canvas>; each
//    pixel column is shaded in proportion to the time the lane is busy in it
//    (lighter = partly busy), from the exact intervals when the report has
//    them, else from the busy fractions per time bin at the resolution that
//    matches the zoom. Wheel zooms, drag pans, keys do both; a tooltip names
//    the call under the mouse; the time axis (DOM labels) follows the zoom.
//  - the region legend and the call tree (when the data has one; the
//    duration bars: report_durations.js; the sections over several files:
//    report_runs.js). Clicking a region highlights its calls; clicking a
//    call-tree row highlights the calls of that call path only (each exact
//    call carries its path, a node of the tree).
//  - binned lanes also carry the exact calls of the time tiles that fit the
//    report's budget (html_tiles.c): a window inside such tiles is drawn
//    (and hovered) exactly.
// No library, no network: it must open from file://.
(function () {
  'use strict';

  var LANE_H = 16;   // lane height, CSS pixels
  var LABEL_W = 190; // label column, CSS pixels
  var D = JSON.parse(document.getElementById('sp-data').textContent);
  var regions = D.regions;
  var lanes = [], allLanes = lanes; // lanes: those the filter shows (allLanes: every lane)
  var filter = { terms: [], top: 0, depth: 0 }, regionOn = null, nodeOn = null; // setFilter
  var view = { t0: 0, t1: Math.max(D.span, 1) };
  var highlight = null; // Set of region indices, or null
  var hlNode = null;    // with a call-tree row clicked: its node (highlight = its region)
  var hlRank = null;    // a rank id (report_balance.js): other ranks' lanes dimmed
  var el = {};

  ['canvas', 'scroll', 'spacer', 'axis', 'tip', 'window', 'legend', 'info', 'file', 'tree',
    'flame', 'flame-rank', 'flame-note'].forEach(function (id) {
    el[id] = document.getElementById('sp-' + id);
  });

  // ---- data -------------------------------------------------------------

  function rgb(hex) {
    return [parseInt(hex.substr(1, 2), 16), parseInt(hex.substr(3, 2), 16),
      parseInt(hex.substr(5, 2), 16)];
  }

  function decodeLevel(b64) {
    var s = atob(b64), a = new Uint8Array(s.length);
    for (var i = 0; i < s.length; i++) a[i] = s.charCodeAt(i);
    return a;
  }

  // Exact lanes: absolute starts (ns since the first start) from the deltas.
  function prepareLane(L) {
    var lane = { g: L.g, rank: L.r, thread: L.t, n: L.n, paths: L.paths || [-1],
      pi: L.pi ? Int32Array.from(L.pi) : null };
    if (L.iv) {
      var m = L.iv.length / 2, st = new Float64Array(m), du = new Float64Array(m);
      var t = 0, maxd = 0, busy = 0, end = -Infinity;
      for (var i = 0; i < m; i++) {
        t += L.iv[2 * i];
        st[i] = t;
        du[i] = L.iv[2 * i + 1];
        if (du[i] > maxd) maxd = du[i];
        var e = t + du[i];
        if (e > end) { busy += e - Math.max(t, end); end = e; }
      }
      lane.start = st; lane.dur = du; lane.maxDur = maxd; lane.busy = busy;
      lane.vals = L.vals || null; // values per call: key -> one value (or null) per call
    } else {
      lane.levels = L.occ.map(decodeLevel);
      lane.busy = L.busy;
      lane.tiles = {};
      for (var k = 0; L.z && k < 4 * L.z.length; k++) // tiles no call overlaps: known
        if ((parseInt(L.z.charAt(L.z.length - 1 - (k >> 2)), 16) >> (k & 3)) & 1) lane.tiles[k] = null;
    }
    return lane;
  }

  D.lanes.forEach(function (L) { lanes.push(prepareLane(L)); });

  // The exact calls of the embedded tiles: unsigned LEB128 varints (start
  // delta, duration, path index when the lane has several paths).
  function decodeTile(lane, b64) {
    var b = decodeLevel(b64), st = [], du = [], pi = lane.paths.length > 1 ? [] : null;
    var pos = 0, t = 0;
    function next() {
      var v = 0, mul = 1, c;
      do { c = b[pos++]; v += (c & 127) * mul; mul *= 128; } while (c & 128);
      return v;
    }
    while (pos < b.length) {
      t += next();
      st.push(t);
      du.push(next());
      if (pi) pi.push(next());
    }
    return { start: st, dur: du, pi: pi };
  }
  var TILES = D.tiles ? D.tiles.n : 64;
  (D.tiles ? D.tiles.lanes : []).forEach(function (T) {
    var lane = lanes[T.l];
    T.k.forEach(function (k, j) { lane.tiles[k] = decodeTile(lane, T.d[j]); });
  });
  regions.forEach(function (r, g) { r.rgb = rgb(r.color); r.index = g; r.path = r.path || r.name; });
  // RSS tracks (SCOPE_PROFILER_SAMPLE_MS): one per rank with samples, under
  // the lanes, all on one scale from 0 to the largest sample of any rank.
  var TRACK_H = 48;  // track height, CSS pixels
  var tracks = (D.samples || []).map(function (S) {
    var t = new Float64Array(S.t.length), acc = 0;
    for (var i = 0; i < S.t.length; i++) { acc += S.t[i]; t[i] = acc; }
    return { rank: S.r, t: t, rss: S.rss, period: S.period, thin: S.thin };
  });
  var rssMax = 1;
  tracks.forEach(function (T) { for (var i = 0; i < T.rss.length; i++) rssMax = Math.max(rssMax, T.rss[i]); });
  // MB and GB are 10^6 and 10^9 bytes, as in the Chrome-trace export and the Gantt chart.
  function fmtBytes(b) {
    return b >= 1e9 ? (b / 1e9).toFixed(2) + ' GB' : (b / 1e6).toFixed(1) + ' MB';
  }
  var threadsPerRankRegion = {};
  lanes.forEach(function (l) {
    var k = l.g + ':' + l.rank;
    threadsPerRankRegion[k] = (threadsPerRankRegion[k] || 0) + 1;
  });

  // ---- formatting -------------------------------------------------------

  var UNITS = [[1e9, 's'], [1e6, 'ms'], [1e3, '\u00b5s'], [1, 'ns']];

  function fmtTime(ns) {
    var a = Math.abs(ns);
    if (ns === 0) return '0 s';
    for (var i = 0; i < UNITS.length; i++) {
      if (a >= UNITS[i][0] || i === UNITS.length - 1) {
        var v = ns / UNITS[i][0];
        return (Math.abs(v) >= 100 ? v.toFixed(1) : v.toPrecision(4)) + ' ' + UNITS[i][1];
      }
    }
  }

  // ---- coverage of one lane per pixel column ----------------------------

  // Adds weight * the covered part of each column between x0 and x1.
  function addSpan(cov, x0, x1, w) {
    var n = cov.length;
    if (x1 <= 0 || x0 >= n) return;
    if (x0 < 0) x0 = 0;
    if (x1 > n) x1 = n;
    var a = Math.floor(x0), b = Math.floor(x1);
    if (b >= n) b = n - 1;
    if (a === b) { cov[a] += (x1 - x0) * w; return; }
    cov[a] += (a + 1 - x0) * w;
    for (var c = a + 1; c < b; c++) cov[c] += w;
    cov[b] += (x1 - b) * w;
  }

  // Index of the first interval that may end after t (starts are sorted).
  function firstFrom(lane, t) {
    var lo = 0, hi = lane.start.length, key = t - lane.maxDur;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (lane.start[mid] < key) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  // node: only the calls of that call path (undefined: all).
  function coverExact(lane, cov, scale, node) {
    var st = lane.start, du = lane.dur, m = st.length, deepOff = filter.depth > 0;
    var curS = 0, curE = -Infinity;
    for (var i = firstFrom(lane, view.t0); i < m && st[i] < view.t1; i++) {
      if (node !== undefined ? pathOf(lane, i) !== node : deepOff && !callShown(pathOf(lane, i), 0)) continue;
      var s = st[i], e = s + du[i];
      if (s > curE) { // disjoint: flush the merged run (nested calls counted once)
        if (curE > -Infinity) addSpan(cov, (curS - view.t0) * scale, (curE - view.t0) * scale, 1);
        curS = s; curE = e;
      } else if (e > curE) {
        curE = e;
      }
    }
    if (curE > -Infinity) addSpan(cov, (curS - view.t0) * scale, (curE - view.t0) * scale, 1);
  }

  // The exact calls of lane in the window: the lane itself when it is
  // exact, the concatenated tiles when every tile the window overlaps is
  // embedded (a tile holds the calls that overlap it: after the first
  // tile, only the calls that start in the tile are taken), else null
  // (drawn binned).
  function tileOf(t) { return Math.min(TILES - 1, Math.max(0, Math.floor(t * TILES / D.span))); }

  function exactSource(lane) {
    if (lane.start) return lane;
    if (!lane.tiles) return null;
    // Calls start before view.t1: the last tile is the one just below it.
    var k0 = tileOf(view.t0), k1 = Math.max(k0, Math.min(TILES, Math.ceil(view.t1 * TILES / D.span)) - 1);
    var key = k0 + ':' + k1;
    if (lane.cached && lane.cached.key === key) return lane.cached.src;
    var st = [], du = [], pi = lane.paths.length > 1 ? [] : null, maxd = 0, ok = true;
    for (var k = k0; k <= k1 && ok; k++) {
      if (!(k in lane.tiles)) { ok = false; break; }
      var T = lane.tiles[k];
      if (!T) continue;
      for (var i = 0; i < T.start.length; i++) {
        if (k > k0 && tileOf(T.start[i]) < k) continue; // taken from an earlier tile
        st.push(T.start[i]); du.push(T.dur[i]);
        if (pi) pi.push(T.pi[i]);
        if (T.dur[i] > maxd) maxd = T.dur[i];
      }
    }
    var src = ok ? { g: lane.g, rank: lane.rank, thread: lane.thread, paths: lane.paths, pi: pi,
      start: Float64Array.from(st), dur: Float64Array.from(du), maxDur: maxd, tiled: true } : null;
    lane.cached = { key: key, src: src };
    return src;
  }

  function pathOf(lane, i) { return lane.pi ? lane.paths[lane.pi[i]] : lane.paths[0]; }

  // The coarsest level whose bins are no wider than a pixel, else the finest.
  function pickLevel(lane, scale) {
    var bins = D.coarse;
    for (var l = 0; l < lane.levels.length; l++, bins *= 4)
      if (D.span / bins * scale <= 1 || l === lane.levels.length - 1) return l;
    return lane.levels.length - 1;
  }

  function coverBinned(lane, cov, scale) {
    var l = pickLevel(lane, scale), lv = lane.levels[l];
    var w = D.span / lv.length;
    var k0 = Math.max(0, Math.floor(view.t0 / w)), k1 = Math.min(lv.length, Math.ceil(view.t1 / w));
    for (var k = k0; k < k1; k++)
      if (lv[k]) addSpan(cov, (k * w - view.t0) * scale, ((k + 1) * w - view.t0) * scale, lv[k] / 255);
  }

  // ---- drawing ----------------------------------------------------------

  function laneLabel(l) {
    var r = regions[l.g], t = threadsPerRankRegion[l.g + ':' + l.rank] > 1 ? ' t' + l.thread : '';
    return r.name + ' r' + l.rank + t;
  }

  function plotWidth() { return Math.max(10, el.canvas.clientWidth - LABEL_W); }

  function draw() {
    if (!lanes.length) return; // an aggregate file: no timeline (its section is hidden)
    var cv = el.canvas, dpr = window.devicePixelRatio || 1;
    var cssW = cv.clientWidth, cssH = cv.clientHeight;
    if (cv.width !== Math.round(cssW * dpr) || cv.height !== Math.round(cssH * dpr)) {
      cv.width = Math.round(cssW * dpr);
      cv.height = Math.round(cssH * dpr);
    }
    var ctx = cv.getContext('2d');
    var pw = Math.max(1, Math.round((cssW - LABEL_W) * dpr)), ph = cv.height;
    var laneH = LANE_H * dpr, top = el.scroll.scrollTop * dpr;
    var img = ctx.createImageData(pw, ph), px = img.data;
    px.fill(255);
    var scale = pw / (view.t1 - view.t0), cov = new Float32Array(pw), covHi = new Float32Array(pw);
    var first = Math.floor(top / laneH), last = Math.min(lanes.length, Math.ceil((top + ph) / laneH));
    for (var i = first; i < last; i++) {
      var lane = lanes[i], col = regions[lane.g].rgb;
      cov.fill(0);
      var src = exactSource(lane), split = false;
      if (src) coverExact(src, cov, scale); else coverBinned(lane, cov, scale);
      var dim = (highlight && !highlight.has(lane.g)) || (hlRank !== null && lane.rank !== hlRank) ? 0.15 : 1;
      // A call-tree row: exact calls of other paths of the region dimmed
      // too; binned parts of the lane stay highlighted by region.
      if (hlNode !== null && dim === 1 && src) {
        covHi.fill(0);
        coverExact(src, covHi, scale, hlNode);
        split = true;
      }
      var y0 = Math.max(0, Math.round(i * laneH - top + dpr)), y1 = Math.min(ph, Math.round((i + 1) * laneH - top - dpr));
      for (var c = 0; c < pw; c++) {
        var a = cov[c];
        if (a <= 0) continue;
        if (a > 1) a = 1;
        if (split) { var h = Math.min(1, covHi[c]); a = h + 0.15 * Math.max(0, a - h); } else a *= dim;
        var r = 255 - a * (255 - col[0]), g = 255 - a * (255 - col[1]), b = 255 - a * (255 - col[2]);
        for (var y = y0; y < y1; y++) {
          var o = (y * pw + c) * 4;
          px[o] = r; px[o + 1] = g; px[o + 2] = b;
        }
      }
    }
    ctx.putImageData(img, Math.round(LABEL_W * dpr), 0);
    drawLabels(ctx, dpr, first, last, top);
    drawTracks(ctx, dpr, top);
    drawAxis();
    drawFlame();
  }

  function drawLabels(ctx, dpr, first, last, top) {
    ctx.save();
    ctx.scale(dpr, dpr);
    ctx.clearRect(0, 0, LABEL_W, el.canvas.clientHeight);
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    for (var i = first; i < last; i++) {
      var l = lanes[i], y = i * LANE_H - top / dpr;
      var on = (highlight && highlight.has(l.g)) || l.rank === hlRank;
      ctx.fillStyle = regions[l.g].color;
      ctx.fillRect(2, y + 3, 8, LANE_H - 6);
      ctx.fillStyle = on ? '#000' : '#333';
      ctx.font = (on ? 'bold ' : '') + '11px system-ui, sans-serif';
      var text = laneLabel(l), indent = 8 * Math.min(regions[l.g].depth || 0, 8);
      while (text.length > 4 && ctx.measureText(text).width > LABEL_W - 18 - indent) text = text.slice(0, -2);
      ctx.fillText(text !== laneLabel(l) ? text + '\u2026' : text, 14 + indent, y + LANE_H / 2);
      if (i > 0 && lanes[i - 1].g !== l.g) {
        ctx.fillStyle = '#bbb';
        ctx.fillRect(0, y, el.canvas.clientWidth, 1);
      }
    }
    ctx.fillStyle = '#999';
    ctx.fillRect(LABEL_W - 1, 0, 1, el.canvas.clientHeight);
    ctx.restore();
  }

  // The RSS tracks below the last lane: the samples joined by lines over a
  // grey area down to 0; the label column names the rank and the scale.
  function drawTracks(ctx, dpr, top) {
    if (!tracks.length) return;
    var pw = plotWidth(), range = view.t1 - view.t0, base = lanes.length * LANE_H - top / dpr;
    ctx.save();
    ctx.scale(dpr, dpr);
    ctx.fillStyle = '#999';
    ctx.fillRect(0, base, el.canvas.clientWidth, 1);
    tracks.forEach(function (T, k) {
      var y0 = base + k * TRACK_H, yb = y0 + TRACK_H - 3, hh = TRACK_H - 8;
      if (yb < 0 || y0 > el.canvas.clientHeight) return;
      ctx.font = '11px system-ui, sans-serif';
      ctx.textBaseline = 'middle';
      ctx.fillStyle = '#333';
      ctx.fillText('RSS r' + T.rank, 14, y0 + TRACK_H / 2 - 7);
      ctx.fillStyle = '#777';
      ctx.fillText('0 \u2013 ' + fmtBytes(rssMax), 14, y0 + TRACK_H / 2 + 7);
      ctx.fillStyle = '#ddd';
      ctx.fillRect(LABEL_W, yb, pw, 1);
      ctx.save();
      ctx.beginPath();
      ctx.rect(LABEL_W, y0, pw, TRACK_H);
      ctx.clip();
      var xs = function (t) { return LABEL_W + (t - view.t0) / range * pw; };
      var ys = function (b) { return yb - b / rssMax * hh; };
      ctx.beginPath();
      ctx.moveTo(xs(T.t[0]), yb);
      for (var i = 0; i < T.t.length; i++) ctx.lineTo(xs(T.t[i]), ys(T.rss[i]));
      ctx.lineTo(xs(T.t[T.t.length - 1]), yb);
      ctx.closePath();
      ctx.fillStyle = '#c8c8c8';
      ctx.fill();
      ctx.beginPath();
      for (var j = 0; j < T.t.length; j++) {
        if (j) ctx.lineTo(xs(T.t[j]), ys(T.rss[j])); else ctx.moveTo(xs(T.t[j]), ys(T.rss[j]));
      }
      ctx.strokeStyle = '#000';
      ctx.lineWidth = 1;
      ctx.stroke();
      ctx.restore();
    });
    ctx.restore();
  }

  // The RSS track's sample nearest to t, as tooltip text.
  function trackTip(T, t) {
    var lo = 0, hi = T.t.length - 1;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (T.t[mid] < t) lo = mid + 1; else hi = mid; }
    if (lo > 0 && t - T.t[lo - 1] < T.t[lo] - t) lo--;
    return 'RSS of rank ' + T.rank + '\nsample at  ' + fmtTime(T.t[lo]) + '\nRSS  ' + fmtBytes(T.rss[lo]) +
      '\n(every ' + fmtTime(T.period) + (T.thin > 1 ? '; each point the largest of ' + T.thin + ' samples' : '') +
      '; lines join samples)';
  }

  // Ticks at 1, 2 or 5 times a power of ten, about every 110 px; labelled
  // in the unit of the step, so they change as the window shrinks.
  function drawAxis() {
    var pw = plotWidth(), range = view.t1 - view.t0;
    var raw = range / Math.max(1, pw / 110), p = Math.pow(10, Math.floor(Math.log10(raw)));
    var step = raw / p < 2 ? 2 * p : raw / p < 5 ? 5 * p : 10 * p;
    var unit = UNITS[UNITS.length - 1];
    for (var u = 0; u < UNITS.length; u++) if (step >= UNITS[u][0]) { unit = UNITS[u]; break; }
    var dec = Math.max(0, -Math.floor(Math.log10(step / unit[0]) + 1e-9));
    var html = [], t = Math.ceil(view.t0 / step) * step;
    for (var n = 0; t <= view.t1 && n < 200; t += step, n++) {
      var x = LABEL_W + (t - view.t0) / range * pw;
      var last = x > LABEL_W + pw - 30 ? ' sp-last' : ''; // keep the label inside
      html.push('<span class="sp-tick' + last + '" style="left:' + x.toFixed(1) + 'px">' +
        (t / unit[0]).toFixed(dec) + ' ' + unit[1] + '</span>');
    }
    el.axis.innerHTML = html.join('');
    el.window.textContent = 'window ' + fmtTime(view.t0) + ' \u2013 ' + fmtTime(view.t1) +
      ' of ' + fmtTime(D.span);
  }

  var pending = false;
  function redraw() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () { pending = false; draw(); });
  }

  // ---- zoom and pan -----------------------------------------------------

  function setView(t0, t1) {
    var span = Math.max(D.span, 1), w = Math.min(Math.max(t1 - t0, 10), span * 1.0);
    if (t0 < 0) t0 = 0;
    if (t0 + w > span) t0 = span - w;
    view.t0 = Math.max(0, t0);
    view.t1 = view.t0 + w;
    redraw();
  }

  function zoom(factor, frac) { // factor < 1 zooms in, around the fraction frac of the width
    var w = view.t1 - view.t0, at = view.t0 + frac * w;
    setView(at - frac * w * factor, at + (1 - frac) * w * factor);
  }

  function pan(frac) { var w = view.t1 - view.t0; setView(view.t0 + frac * w, view.t1 + frac * w); }

  function mouseFrac(e) {
    var r = el.canvas.getBoundingClientRect();
    return Math.min(1, Math.max(0, (e.clientX - r.left - LABEL_W) / plotWidth()));
  }

  el.canvas.addEventListener('wheel', function (e) {
    e.preventDefault();
    if (e.shiftKey) { el.scroll.scrollTop += e.deltaY; return; }
    zoom(Math.exp(e.deltaY * 0.002), mouseFrac(e));
  }, { passive: false });

  var drag = null;
  el.canvas.addEventListener('mousedown', function (e) {
    drag = { x: e.clientX, y: e.clientY, t0: view.t0, t1: view.t1, top: el.scroll.scrollTop };
    el.canvas.classList.add('sp-dragging');
    el.canvas.focus();
  });
  window.addEventListener('mouseup', function () { drag = null; el.canvas.classList.remove('sp-dragging'); });
  window.addEventListener('mousemove', function (e) {
    if (!drag) return;
    var dt = (e.clientX - drag.x) / plotWidth() * (drag.t1 - drag.t0);
    setView(drag.t0 - dt, drag.t1 - dt);
    el.scroll.scrollTop = drag.top - (e.clientY - drag.y);
  });
  el.canvas.addEventListener('keydown', function (e) {
    var k = e.key, done = true;
    if (k === '+' || k === '=') zoom(0.5, 0.5);
    else if (k === '-' || k === '_') zoom(2, 0.5);
    else if (k === 'ArrowLeft') pan(-0.2);
    else if (k === 'ArrowRight') pan(0.2);
    else if (k === 'ArrowUp') el.scroll.scrollTop -= LANE_H * 3;
    else if (k === 'ArrowDown') el.scroll.scrollTop += LANE_H * 3;
    else if (k === '0' || k === 'Home') setView(0, D.span);
    else done = false;
    if (done) e.preventDefault();
  });
  document.getElementById('sp-zoom-in').onclick = function () { zoom(0.5, 0.5); };
  document.getElementById('sp-zoom-out').onclick = function () { zoom(2, 0.5); };
  document.getElementById('sp-reset').onclick = function () { setView(0, D.span); };
  el.scroll.addEventListener('scroll', redraw);
  window.addEventListener('resize', function () { layout(); redraw(); });

  // ---- tooltip ----------------------------------------------------------

  function hitExact(lane, t, tol) {
    var st = lane.start, du = lane.dur, best = -1;
    var lo = 0, hi = st.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (st[mid] <= t + tol) lo = mid + 1; else hi = mid; }
    for (var i = lo - 1, k = 0; i >= 0 && k < 512; i--, k++) {
      if (st[i] + du[i] >= t - tol) { best = i; if (st[i] <= t && st[i] + du[i] >= t) break; }
      if (st[i] + lane.maxDur < t - tol) break;
    }
    return best;
  }

  // The calls that contain call k of lane (same rank and thread, exact
  // lanes, the lane itself included for recursion), outermost first: the
  // call path, as the call tree nests calls.
  function callPath(lane, k) {
    var s = lane.start[k], e = s + lane.dur[k], outer = [];
    allLanes.forEach(function (l) {
      if (!l.start || l.rank !== lane.rank || l.thread !== lane.thread) return;
      var lo = 0, hi = l.start.length;
      while (lo < hi) { var mid = (lo + hi) >> 1; if (l.start[mid] <= s) lo = mid + 1; else hi = mid; }
      for (var i = lo - 1, n = 0; i >= 0 && n < 4096; i--, n++) {
        if (l.start[i] + l.maxDur < e) break; // nothing earlier can reach e
        if (l === lane && i === k) continue;
        var ie = l.start[i] + l.dur[i];
        if (ie >= e && (l.start[i] < s || ie > e || l.g !== lane.g))
          outer.push([l.start[i], -l.dur[i], regions[l.g].name]);
      }
    });
    outer.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
    return outer.map(function (o) { return o[2]; }).concat([regions[lane.g].name]).join(' / ');
  }

  var lastHit = null; // [start, duration] of the exact call last hovered (tests)

  // The MPI wait states ("waits", html_waits.c): a call's wait by lane and
  // start (its longest waits), a lane's time per state.
  var W = D.waits, waitOf = {}, laneWaits = {};
  if (W) {
    W.calls.forEach(function (c) { waitOf[c[0] + ':' + c[1] + ':' + c[2]] = c; });
    W.lanes.forEach(function (l) { laneWaits[l[0] + ':' + l[1]] = l; });
  }
  function waitText(lane, start) {
    if (!W) return '';
    var c = start === undefined ? null : waitOf[lane.g + ':' + lane.rank + ':' + start];
    if (c) return '\nwait  ' + W.states[c[3]] + ' ' + fmtTime(c[4]) + ', caused by rank ' + c[5] +
      (c[6] === null ? '' : ' in ' + c[6]);
    var l = laneWaits[lane.g + ':' + lane.rank];
    if (!l || start !== undefined) return '';
    return '\nwaits (this rank)  ' + W.states.map(function (n, s) {
      return l[2 + s] ? n + ' ' + fmtTime(l[2 + s]) : '';
    }).filter(Boolean).join(', ');
  }

  // An MPI call region's payload and messages over the selected ranks
  // (regions[].bytes, .msgs; absent for other regions).
  function mpiText(reg, sep) {
    if (reg.bytes === undefined) return '';
    var b = reg.bytes, u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'], k = 0;
    while (b >= 1024 && k < u.length - 1) { b /= 1024; k++; }
    return sep + (k ? b.toFixed(1) : b) + ' ' + u[k] + ' in ' + reg.msgs + ' messages (all ranks)';
  }

  // The values call k of an exact lane set (sp_call_set*), one line each.
  function valuesText(lane, k) {
    if (!lane.vals) return '';
    var out = '';
    Object.keys(lane.vals).sort().forEach(function (key) {
      var v = lane.vals[key][k];
      if (v !== null && v !== undefined) out += '\n  ' + key + ' = ' + v;
    });
    return out ? '\nvalues' + out : '';
  }

  function tipText(e) {
    var r = el.canvas.getBoundingClientRect(), x = e.clientX - r.left - LABEL_W;
    var yy = e.clientY - r.top + el.scroll.scrollTop, i = Math.floor(yy / LANE_H);
    if (x >= 0 && i >= lanes.length) {
      var T = tracks[Math.floor((yy - lanes.length * LANE_H) / TRACK_H)];
      return T ? trackTip(T, view.t0 + x / plotWidth() * (view.t1 - view.t0)) : null;
    }
    if (x < 0 || i < 0 || i >= lanes.length) return null;
    var lane = lanes[i], reg = regions[lane.g], w = view.t1 - view.t0;
    var t = view.t0 + x / plotWidth() * w, tol = 2 * w / plotWidth();
    var head = 'region  ' + reg.name + '\ncall path  ' + reg.path + '\nrank  ' + lane.rank +
      '   thread  ' + lane.thread + '\n' + (reg.src ? 'source  ' + reg.src + '\n' : '') +
      (reg.bytes !== undefined ? mpiText(reg, 'MPI  ') + '\n' : '');
    var src = exactSource(lane);
    if (src) {
      var k = hitExact(src, t, tol);
      if (k < 0) return null;
      lastHit = [src.start[k], src.dur[k]];
      var nd = pathOf(src, k), path = tree && tree[nd] ? tree[nd].path : callPath(src, k);
      head = head.replace('call path  ' + reg.path, 'call path  ' + path);
      return head + 'start  ' + fmtTime(src.start[k]) + '\nduration  ' + fmtTime(src.dur[k]) +
        waitText(lane, src.start[k]) +
        (src === lane ? valuesText(lane, k) : '') + (src.tiled ? '\n(exact: this window\'s tiles are embedded)' : '');
    }
    if (lane.paths.length > 1) head = head.replace('call path  ' + reg.path, 'call paths  ' +
      lane.paths.map(function (n) { return tree && tree[n] ? tree[n].path : '?'; }).join(', '));
    // The finest bins under the pointer (one pixel either side).
    var lv = lane.levels[lane.levels.length - 1], bw = D.span / lv.length, px = w / plotWidth();
    var b0 = Math.max(0, Math.floor((t - px) / bw)), b1 = Math.min(lv.length - 1, Math.floor((t + px) / bw));
    var sum = 0;
    for (var b = b0; b <= b1; b++) sum += lv[b];
    if (b1 < b0 || !sum) return null;
    return head + 'busy  ' + Math.round(sum / (b1 - b0 + 1) / 2.55) + ' % of ' + fmtTime(b0 * bw) +
      ' \u2013 ' + fmtTime((b1 + 1) * bw) + waitText(lane) + '\n(' + lane.n +
      ' calls in this lane, binned in the report' +
      (hlNode !== null && lane.g === tree[hlNode].g ? '; highlighted by region: binned calls are not split by call path'
        : '') + ')';
  }

  el.canvas.addEventListener('mousemove', function (e) {
    var text = drag ? null : tipText(e);
    el.tip.hidden = !text;
    if (!text) return;
    el.tip.textContent = text;
    el.tip.style.left = (e.clientX + 14) + 'px';
    el.tip.style.top = (e.clientY + 14) + 'px';
  });
  el.canvas.addEventListener('mouseleave', function () { el.tip.hidden = true; });

  // ---- highlight, legend -------------------------------------------------

  // set: regions whose calls are highlighted; node: a call-tree node, then
  // only that path's calls (set is its region).
  function setHighlight(set, node) {
    highlight = set && set.size ? set : null;
    hlNode = highlight && node !== undefined && node !== null ? node : null;
    Array.prototype.forEach.call(document.querySelectorAll('[data-region]'), function (n) {
      var on = highlight && highlight.has(+n.getAttribute('data-region'));
      if (hlNode !== null) on = +n.getAttribute('data-node') === hlNode; // the row only
      n.classList.toggle('sp-on', !!on);
    });
    redraw();
  }

  function toggleRegion(g) {
    setHighlight(highlight && hlNode === null && highlight.size === 1 && highlight.has(g) ? null : new Set([g]));
  }

  function toggleNode(n) {
    setHighlight(hlNode === n ? null : new Set([tree[n].g]), n);
  }

  function buildLegend() {
    regions.forEach(function (r, g) {
      var li = document.createElement('li'), sw = document.createElement('span');
      li.setAttribute('data-region', g);
      li.className = 'sp-region';
      sw.className = 'sp-swatch';
      sw.style.background = r.color;
      li.appendChild(sw);
      li.appendChild(document.createTextNode(r.name));
      li.title = r.calls + ' calls, ' + fmtTime(r.total) + ' in total' + mpiText(r, ', ') +
        (r.src ? '\nsource ' + r.src : '');
      li.onclick = function () { toggleRegion(g); };
      el.legend.appendChild(li);
    });
  }


  // ---- flame chart --------------------------------------------------------
  // The reference tool's meaning: per rank, calls sorted by start then
  // longest first, depth = number of calls still open; threads kept apart
  // (a band per thread). Built from the exact intervals of that rank.
  var FLAME_ROW = 16, flame = null;

  function buildFlame(rank) {
    var byThread = {}, binned = 0;
    allLanes.forEach(function (l) {
      if (l.rank !== rank) return;
      if (!l.start) { binned += l.n; return; }
      var calls = byThread[l.thread] || (byThread[l.thread] = []);
      for (var i = 0; i < l.start.length; i++) calls.push([l.start[i], l.start[i] + l.dur[i], l.g, 0, pathOf(l, i)]);
    });
    var bands = [], y = 0;
    Object.keys(byThread).map(Number).sort(function (a, b) { return a - b; }).forEach(function (t) {
      var calls = byThread[t], stack = [], maxd = 0;
      calls.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });
      for (var i = 0; i < calls.length; i++) {
        while (stack.length && stack[stack.length - 1] < calls[i][1]) stack.pop();
        calls[i][3] = stack.length;
        if (stack.length > maxd) maxd = stack.length;
        stack.push(calls[i][1]);
      }
      bands.push({ thread: t, calls: calls, y: y, depth: maxd + 1 });
      y += (maxd + 1) * FLAME_ROW + 18;
    });
    flame = { rank: rank, bands: bands, height: Math.max(y, 40), binned: binned };
    el['flame-note'].textContent = binned ? binned + ' calls of rank ' + rank +
      ' are binned in this report and not shown (raise --html-exact)' : '';
    drawFlame();
  }

  function drawFlame() {
    if (!flame) return;
    var cv = el.flame, dpr = window.devicePixelRatio || 1, W = cv.clientWidth;
    cv.style.height = flame.height + 'px';
    cv.width = Math.round(W * dpr);
    cv.height = Math.round(flame.height * dpr);
    var ctx = cv.getContext('2d'), pw = W - LABEL_W, scale = pw / (view.t1 - view.t0);
    ctx.scale(dpr, dpr);
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    flame.bands.forEach(function (b) {
      ctx.fillStyle = '#333';
      ctx.fillText('thread ' + b.thread, 4, b.y + 8);
      var base = b.y + 16;
      for (var i = 0; i < b.calls.length; i++) {
        var c = b.calls[i];
        if (c[1] < view.t0 || c[0] > view.t1 || !callShown(c[4], c[3], c[2])) continue;
        var x0 = LABEL_W + Math.max(0, (c[0] - view.t0) * scale);
        var x1 = LABEL_W + Math.min(pw, (c[1] - view.t0) * scale);
        var dim = highlight && (!highlight.has(c[2]) || (hlNode !== null && c[4] !== hlNode));
        ctx.globalAlpha = dim ? 0.2 : 1;
        ctx.fillStyle = regions[c[2]].color;
        ctx.fillRect(x0, base + c[3] * FLAME_ROW, x1 - x0, FLAME_ROW - 1);
        if (x1 - x0 > 40) {
          ctx.fillStyle = '#000';
          ctx.save();
          ctx.beginPath();
          ctx.rect(x0, base + c[3] * FLAME_ROW, x1 - x0, FLAME_ROW);
          ctx.clip();
          ctx.fillText(regions[c[2]].name, x0 + 3, base + c[3] * FLAME_ROW + FLAME_ROW / 2);
          ctx.restore();
        }
      }
      ctx.globalAlpha = 1;
    });
  }

  function flameHit(e) {
    if (!flame) return null;
    var r = el.flame.getBoundingClientRect(), x = e.clientX - r.left - LABEL_W, y = e.clientY - r.top;
    var t = view.t0 + x / (r.width - LABEL_W) * (view.t1 - view.t0);
    for (var k = 0; k < flame.bands.length; k++) {
      var b = flame.bands[k], d = Math.floor((y - b.y - 16) / FLAME_ROW);
      if (d < 0 || d >= b.depth) continue;
      for (var i = 0; i < b.calls.length; i++) {
        var c = b.calls[i];
        if (c[3] === d && c[0] <= t && c[1] >= t && callShown(c[4], c[3], c[2])) return { c: c, thread: b.thread };
      }
    }
    return null;
  }

  el.flame.addEventListener('mousemove', function (e) {
    var h = flameHit(e);
    el.tip.hidden = !h;
    if (!h) return;
    var reg = regions[h.c[2]];
    var fp = tree && tree[h.c[4]] ? tree[h.c[4]].path : reg.path;
    el.tip.textContent = 'region  ' + reg.name + '\ncall path  ' + fp + '\nrank  ' + flame.rank +
      '   thread  ' + h.thread + '   depth  ' + h.c[3] + '\nstart  ' + fmtTime(h.c[0]) +
      '\nduration  ' + fmtTime(h.c[1] - h.c[0]) + (reg.src ? '\nsource  ' + reg.src : '');
    el.tip.style.left = (e.clientX + 14) + 'px';
    el.tip.style.top = (e.clientY + 14) + 'px';
  });
  el.flame.addEventListener('mouseleave', function () { el.tip.hidden = true; });
  el.flame.addEventListener('click', function (e) { var h = flameHit(e); if (h) toggleRegion(h.c[2]); });
  el.flame.addEventListener('wheel', function (e) {
    e.preventDefault();
    var r = el.flame.getBoundingClientRect();
    zoom(Math.exp(e.deltaY * 0.002), Math.min(1, Math.max(0, (e.clientX - r.left - LABEL_W) / (r.width - LABEL_W))));
  }, { passive: false });
  D.ranks.forEach(function (rk) {
    var o = document.createElement('option');
    o.value = rk;
    o.textContent = rk;
    el['flame-rank'].appendChild(o);
  });
  el['flame-rank'].addEventListener('change', function () { buildFlame(+el['flame-rank'].value); });


  // ---- call tree ------------------------------------------------------------
  // D.tree: the reader's call paths, depth-first (a parent before its
  // children). A sortable table (siblings sorted under their parent) whose
  // rows fold; clicking a row highlights the region's lanes and flame boxes.
  var tree = D.tree || null, treeSort = { key: null, desc: true };

  function treeSetup() {
    if (!tree || !tree.length) return;
    tree.forEach(function (n, i) {
      n.i = i; n.kids = []; n.open = n.d < 2;
      n.path = (n.p >= 0 ? tree[n.p].path + ' / ' : '') + regions[n.g].name;
      if (n.p >= 0) tree[n.p].kids.push(n);
    });
    // Lanes in call-tree order: regions by their first node, then rank and
    // thread; labels indented by that node's depth.
    var first = {};
    tree.forEach(function (n) { if (!(n.g in first)) first[n.g] = n; });
    regions.forEach(function (r, g) {
      var n = first[g];
      r.order = n ? n.i : tree.length + g;
      r.depth = n ? n.d : 0;
      if (n) r.path = n.path;
    });
    lanes.sort(function (a, b) {
      return regions[a.g].order - regions[b.g].order || a.rank - b.rank || a.thread - b.thread;
    });
    document.getElementById('sp-tree-section').hidden = false;
    buildTree();
  }

  /* One rule (as --compare): a rank's time is its sum over threads; the
   * first figures are the mean over the selected ranks, the sum is last. */
  var TREE_COLS = [['name', 'call path'], ['calls', 'calls (all ranks)'],
    ['rmean', 'inclusive, mean/rank'], ['emean', 'exclusive, mean/rank'], ['rmin', 'min/rank'],
    ['rmax', 'max/rank'], ['imb', 'imbalance'], ['incl', 'inclusive, sum of ranks']];

  function treeCell(n, k) {
    if (k === 'calls') return String(n.calls);
    if (k === 'imb') return n.timed ? n.imb.toFixed(3) : '-';
    return n.timed ? fmtTime(n[k]) : '-';
  }

  function treeOrder(list) {
    var k = treeSort.key;
    if (!k) return list;
    return list.slice().sort(function (a, b) {
      var x = k === 'name' ? regions[a.g].name : a[k], y = k === 'name' ? regions[b.g].name : b[k];
      var c = x < y ? -1 : x > y ? 1 : 0;
      return k === 'name' ? c : treeSort.desc ? -c : c;
    });
  }

  function buildTree() {
    var t = el.tree, rows = [];
    t.textContent = '';
    var head = t.createTHead().insertRow();
    TREE_COLS.forEach(function (c) {
      var th = document.createElement('th');
      th.textContent = c[1] + (treeSort.key === c[0] ? (c[0] === 'name' ? ' \u25b4' : treeSort.desc ? ' \u25be' : ' \u25b4') : '');
      th.setAttribute('data-key', c[0]);
      th.onclick = function () {
        treeSort.desc = treeSort.key === c[0] ? !treeSort.desc : true;
        treeSort.key = c[0];
        buildTree();
      };
      head.appendChild(th);
    });
    // The filter: rows of hidden paths left out, but kept (greyed, class
    // sp-ctx) above a shown path; a search opens the folds to its matches.
    var body = t.createTBody(), keep = new Uint8Array(tree.length);
    for (var i = tree.length - 1; i >= 0; i--)
      if (keep[i] || nodeShown(i)) { keep[i] = 1; if (tree[i].p >= 0) keep[tree[i].p] = 1; }
    (function walk(list) {
      treeOrder(list).forEach(function (n) {
        if (!keep[n.i]) return;
        rows.push(n);
        if (n.open) walk(n.kids);
      });
    })(tree.filter(function (n) { return n.p < 0; }));
    rows.forEach(function (n) {
      var tr = body.insertRow();
      if (!nodeShown(n.i)) tr.className = 'sp-ctx';
      tr.setAttribute('data-name', regions[n.g].name);
      tr.setAttribute('data-region', n.g);
      tr.setAttribute('data-node', n.i);
      tr.title = n.path + (n.maxr >= 0 ? '\nslowest rank ' + n.maxr : '') +
        (regions[n.g].src ? '\nsource ' + regions[n.g].src : '');
      TREE_COLS.forEach(function (c, j) {
        var td = tr.insertCell();
        if (j === 0) {
          td.style.paddingLeft = (4 + 16 * n.d) + 'px';
          var tg = document.createElement('span');
          tg.className = 'sp-toggle';
          tg.textContent = n.kids.some(function (k) { return keep[k.i]; }) ? (n.open ? '\u25be' : '\u25b8') : '';
          tg.onclick = function (e) { e.stopPropagation(); n.open = !n.open; buildTree(); };
          td.appendChild(tg);
          var sw = document.createElement('span');
          sw.className = 'sp-swatch';
          sw.style.background = regions[n.g].color;
          td.appendChild(sw);
          td.appendChild(document.createTextNode(regions[n.g].name));
          if (regions[n.g].src) {
            var sc = document.createElement('span');
            sc.className = 'sp-src';
            sc.textContent = regions[n.g].src.replace(/^.*\//, '');
            td.appendChild(sc);
          }
        } else {
          td.textContent = treeCell(n, c[0]);
        }
      });
      tr.onclick = function () { toggleNode(n.i); };
    });
    if (highlight) setHighlight(highlight, hlNode);
  }


  // The sections over several files (Speedup, Weak scaling, Change): report_runs.js.

  // ---- layout and start -------------------------------------------------

  function layout() {
    var total = lanes.length * LANE_H + tracks.length * TRACK_H;
    var h = Math.min(total, Math.max(200, window.innerHeight * 0.7));
    el.canvas.style.height = h + 'px';
    el.scroll.style.height = h + 'px';
    el.spacer.style.height = Math.max(0, total - h) + 'px';
  }

  el.file.textContent = D.file;
  // More ranks than fit (D.dist, report_dist.js): the lanes are representative ranks'.
  var rankText = D.dist ? D.ranks.length + ' representative ranks of ' + D.dist.nranks : D.ranks.length + ' ranks';
  el.info.textContent = rankText + ', ' + regions.length + ' regions, ' + lanes.length +
    ' lanes, ' + D.counts.intervals + ' intervals' +
    (D.counts.binned ? ' (' + D.counts.binned + ' lanes as busy fractions per time bin, ' +
      D.counts.exact + ' intervals exact)' : '') + '; ' + D.generator;
  // An aggregate file (profile mode): no stamps, so no timeline and no flame
  // chart; the call tree and the durations come from its stored figures.
  if (D.stamps === 0) {
    ['sp-timeline-section', 'sp-flame-section'].forEach(function (id) {
      document.getElementById(id).hidden = true;
    });
    el.info.textContent = rankText + ', ' + regions.length + ' regions; an ' +
      'aggregate file (no stamps): no timeline or flame chart, the call tree and durations ' +
      'from its stored figures; ' + D.generator;
  }
  document.title = 'scope-profiler: ' + D.file;
  treeSetup();
  buildLegend();
  buildFlame(D.ranks[0]);
  layout();
  if (D.window && D.window[1] > D.window[0]) setView(D.window[0], D.window[1]);
  var t = performance.now();
  draw();

  // ---- the filter shared by every section --------------------------------
  // Set by report_filter.js (its header says the rules); sections ask
  // regionShown / nodeShown (masks computed once per setFilter) and redraw
  // from the hooks of onFilter.
  var filterHooks = [];
  function regionShown(g) { return !regionOn || regionOn[g] === 1; }
  function nodeShown(n) { return !nodeOn || nodeOn[n] === 1; }
  // A call of path node at flame depth d (a call without a path) of region g.
  function callShown(node, d, g) {
    if (node >= 0) return nodeShown(node);
    return (g === undefined || regionShown(g)) && (!filter.depth || d < filter.depth);
  }
  function computeFilter() {
    var T = tree || [], within = new Uint8Array(regions.length).fill(1), seen = new Uint8Array(regions.length);
    T.forEach(function (n) {
      if (!seen[n.g]) { seen[n.g] = 1; within[n.g] = 0; }
      if (!filter.depth || n.d < filter.depth) within[n.g] = 1;
    });
    var cand = regions.filter(function (r, g) {
      var name = r.name.toLowerCase();
      return within[g] && (!filter.terms.length || filter.terms.some(function (t) {
        return t.charAt(0) === '^' ? name.indexOf(t.slice(1)) === 0 : name.indexOf(t) >= 0;
      }));
    }).sort(function (a, b) { return b.total - a.total || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0); });
    if (filter.top > 0) cand = cand.slice(0, filter.top);
    regionOn = new Uint8Array(regions.length);
    cand.forEach(function (r) { regionOn[r.index] = 1; });
    nodeOn = new Uint8Array(T.length);
    T.forEach(function (n, i) { nodeOn[i] = regionOn[n.g] && (!filter.depth || n.d < filter.depth) ? 1 : 0; });
  }
  function setFilter(f) {
    Object.keys(f).forEach(function (k) { filter[k] = f[k]; });
    computeFilter();
    filterHooks.forEach(function (fn) { fn(filter); });
  }
  // This file's sections: lanes (of shown paths), legend, tree, flame (the
  // speedup: report_runs.js).
  filterHooks.push(function () {
    if (allLanes === lanes) allLanes = lanes.slice();
    lanes.length = 0;
    allLanes.forEach(function (l) {
      if (regionShown(l.g) && l.paths.some(function (p) { return callShown(p, 0); })) lanes.push(l);
    });
    Array.prototype.forEach.call(el.legend.children, function (li) { li.hidden = !regionShown(+li.getAttribute('data-region')); });
    if (tree && tree.length) {
      if (filter.terms.length) tree.forEach(function (n) { for (var p = n.p; nodeOn[n.i] && p >= 0; p = tree[p].p) tree[p].open = true; });
      buildTree();
    }
    layout();
    redraw();
  });

  // For scripts and tests: the state, and the same actions as the mouse and keys.
  // loadedMs: from navigation start to the end of the first drawing (benchmark).
  window.spReport = {
    data: D, lanes: lanes, view: function () { return [view.t0, view.t1]; },
    setView: setView, zoom: zoom, highlight: setHighlight, draw: draw,
    highlighted: function () { return highlight ? Array.from(highlight) : []; },
    highlightedNode: function () { return hlNode; },
    lastHit: function () { return lastHit; },
    exactSource: exactSource, tileOf: tileOf,
    flame: function () {
      return flame.bands.map(function (b) {
        return { thread: b.thread, calls: b.calls.length, depth: b.depth,
          depths: b.calls.map(function (c) { return [regions[c[2]].name, c[0], c[3]]; }),
          shown: b.calls.filter(function (c) { return callShown(c[4], c[3], c[2]); }).length };
      });
    },
    firstDrawMs: performance.now() - t, loadedMs: performance.now(),
    // For the other sections (report_*.js, run after this file):
    filter: filter, setFilter: setFilter, regionShown: regionShown, nodeShown: nodeShown,
    onFilter: function (fn) { filterHooks.push(fn); },
    fmtTime: fmtTime, toggleRegion: toggleRegion, toggleNode: toggleNode,
    highlightRank: function (r) { hlRank = r === undefined ? null : r; draw(); },
    highlightedRank: function () { return hlRank; }
  };
})();
