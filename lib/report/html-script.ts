/**
 * The inline script of conformance.html (plain ES2017, no dependency, no network). It unpacks the
 * examples the page carries gzip-compressed (`#iswc-examples`, base64) with the browser's
 * DecompressionStream, then drives the toolbar: search, filters by level, operation, format and
 * verdict, expand and collapse all, and renders on demand the examples of a group beyond its first (200
 * at a time) and each one's exchange. Every text from the report reaches the page through textContent:
 * response bodies are hostile input. `window.iswcReady` holds the time (performance.now()) the page was
 * ready, for scripts/bench-report.ts and the browser tests.
 *
 * DOM contract with lib/report/html.ts:
 * - `.item`: anything the filters apply to, with `data-level`, `data-op`, `data-format`, `data-verdict`
 *   (space-separated sets; absent: any), `data-text` (lower-case text the search reads) and, for a
 *   group, `data-examples` (its key in the payload);
 * - `details.group`: a group (failures of one check × operation × format, or one observed point);
 *   `summary .hits` shows how many of its examples match the search;
 * - `.more[data-examples]`: where a group's other examples are listed on demand (`.show-more` button);
 * - `tr.fact[data-examples]` with a `.show-cases` button: one observed answer and its cases.
 */
export const HTML_SCRIPT = String.raw`(function () {
  'use strict';
  var doc = document;
  var PAGE = 200;
  var data = null;
  var query = '';
  var filters = { level: '', op: '', format: '', verdict: '' };
  // The options of a failure's replay command (lib/report/identity.ts), written once in the page.
  var replayArgsEl = doc.getElementById('replay-args');
  var replayArgs = replayArgsEl ? replayArgsEl.getAttribute('data-args') : '--report conformance.json';

  function byId(id) { return doc.getElementById(id); }
  function el(tag, cls, text) {
    var e = doc.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function examples(key) { return data && key && data[key] ? data[key] : []; }
  function exampleText(x) {
    if (x._text === undefined) x._text = [x.c, x.s, x.r || '', x.k || '', x.w || '', x.o ? JSON.stringify(x.o) : ''].join(' ').toLowerCase();
    return x._text;
  }
  function inSet(set, value) { return !value || set === undefined || (' ' + set + ' ').indexOf(' ' + value + ' ') >= 0; }

  /** The examples of an item the search keeps: all of them when the item's own text matches. */
  function matching(item, list) {
    if (!query || (item.dataset.text || '').indexOf(query) >= 0) return list;
    return list.filter(function (x) { return exampleText(x).indexOf(query) >= 0; });
  }

  function exchangeBlock(x) {
    var box = el('div', 'exchange');
    if (x.e) {
      var t = el('table', 'meta');
      var tr = el('tr');
      tr.appendChild(el('td', '', 'Documented (expected)'));
      tr.appendChild(el('td', 'expected', x.e));
      t.appendChild(tr);
      box.appendChild(t);
    }
    if (x.q !== undefined) {
      var cols = el('div', 'cols');
      var left = el('div');
      left.appendChild(el('b', '', 'Request'));
      left.appendChild(el('pre', 'request', x.q));
      var right = el('div');
      right.appendChild(el('b', '', 'Response'));
      right.appendChild(doc.createTextNode(' '));
      right.appendChild(el('span', 'muted', x.t || ''));
      right.appendChild(el('pre', 'response', x.a));
      cols.appendChild(left);
      cols.appendChild(right);
      box.appendChild(cols);
    } else box.appendChild(el('p', 'muted', 'No exchange recorded for this execution.'));
    if (x.u) {
      box.appendChild(el('b', '', 'Reproduce with'));
      box.appendChild(el('pre', 'curl', x.u));
    }
    return box;
  }

  /** One example as a table row, and a row below it for its exchange, rendered when asked. */
  function exampleRows(x, index, columns) {
    var row = el('tr', 'example');
    row.appendChild(el('td', 'muted', String(index + 1)));
    var where = el('td');
    where.appendChild(el('code', '', x.c));
    where.appendChild(doc.createTextNode(' / ' + x.s + (x.f ? ' (' + x.f.toUpperCase() + ')' : '')));
    if (x.sd !== undefined) where.appendChild(el('div', 'muted', 'seed ' + x.sd + (x.p ? ' path ' + x.p : '')));
    if (x.i) where.appendChild(el('div', 'muted failure-id', 'failure ' + x.i + ' (npx iswc-conformance replay ' + x.i + ' ' + replayArgs + ')'));
    row.appendChild(where);
    var what = el('td', 'received', x.r || x.k || '');
    if (x.w) what.appendChild(el('div', 'reason', x.w));
    if (x.o) what.appendChild(el('div', 'muted', JSON.stringify(x.o)));
    row.appendChild(what);
    var act = el('td');
    var detail = el('tr', 'exchange-row');
    detail.hidden = true;
    var cell = el('td');
    cell.colSpan = columns;
    detail.appendChild(cell);
    var button = el('button', 'show-exchange', 'exchange');
    button.type = 'button';
    button.addEventListener('click', function () {
      if (!cell.firstChild) cell.appendChild(exchangeBlock(x));
      detail.hidden = !detail.hidden;
      button.textContent = detail.hidden ? 'exchange' : 'hide';
    });
    act.appendChild(button);
    row.appendChild(act);
    return [row, detail];
  }

  /** Lists list into box, PAGE rows at a time, with a button for the next page. */
  function renderList(box, list, first) {
    var table = box.querySelector('table.examples');
    if (!table) {
      table = el('table', 'examples');
      var head = el('tr');
      ['#', 'Case / step', 'Received', ''].forEach(function (h) { head.appendChild(el('th', '', h)); });
      table.appendChild(head);
      box.appendChild(table);
    }
    var shown = table.querySelectorAll('tr.example').length;
    var end = Math.min(list.length, shown + PAGE);
    for (var i = shown; i < end; i++) {
      var rows = exampleRows(list[i], first + i, 4);
      table.appendChild(rows[0]);
      table.appendChild(rows[1]);
    }
    var next = box.querySelector('.next-page');
    if (next) next.remove();
    if (end < list.length) {
      next = el('button', 'next-page', 'Show ' + Math.min(PAGE, list.length - end) + ' more of ' + (list.length - end));
      next.type = 'button';
      next.addEventListener('click', function () { renderList(box, list, first); });
      box.appendChild(next);
    }
  }

  /** A group's examples beyond its first (or, while searching, every matching one), rendered on demand. */
  function showMore(box) {
    var item = box.closest('.item');
    var all = examples(box.dataset.examples);
    var skipFirst = box.dataset.skipFirst === 'yes';
    var list = matching(item, skipFirst ? all.slice(1) : all);
    var table = box.querySelector('table.examples');
    if (table) table.remove();
    var next = box.querySelector('.next-page');
    if (next) next.remove();
    box.dataset.rendered = 'yes';
    if (!data) {
      box.appendChild(el('p', 'muted', 'This browser cannot unpack the examples (no DecompressionStream); conformance.json holds every one.'));
      return;
    }
    renderList(box, list, skipFirst ? 1 : 0);
  }

  function apply() {
    var groups = 0;
    var shown = 0;
    doc.querySelectorAll('.item').forEach(function (item) {
      var d = item.dataset;
      var ok = inSet(d.level, filters.level) && inSet(d.op, filters.op) && inSet(d.format, filters.format) && inSet(d.verdict, filters.verdict);
      var hits = null;
      if (ok && query) {
        var own = (d.text || '').indexOf(query) >= 0;
        if (!own && d.examples) hits = matching(item, examples(d.examples)).length;
        if (!own && item.matches('details.observed-group')) {
          hits = 0;
          item.querySelectorAll('tr.fact').forEach(function (f) {
            var n = matching(item, examples(f.dataset.examples)).length;
            f.hidden = n === 0;
            hits += n;
          });
        } else item.querySelectorAll('tr.fact').forEach(function (f) { f.hidden = false; });
        ok = own || hits > 0;
      } else item.querySelectorAll('tr.fact').forEach(function (f) { f.hidden = false; });
      item.hidden = !ok;
      var badge = item.querySelector('summary .hits');
      if (badge) badge.textContent = ok && hits !== null ? hits + (hits === 1 ? ' match' : ' matches') + ' for "' + query + '"' : '';
      if (item.matches('details.group')) {
        groups++;
        if (ok) shown++;
      }
      item.querySelectorAll('.more[data-rendered="yes"]').forEach(showMore);
    });
    var status = byId('filter-status');
    if (status) status.textContent = shown === groups ? groups + ' groups' : shown + ' of ' + groups + ' groups shown';
  }

  function wire() {
    var search = byId('search');
    var timer = 0;
    search.addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(function () { query = search.value.trim().toLowerCase(); apply(); }, 60);
    });
    [['filter-level', 'level'], ['filter-operation', 'op'], ['filter-format', 'format'], ['filter-verdict', 'verdict']].forEach(function (pair) {
      var select = byId(pair[0]);
      select.addEventListener('change', function () { filters[pair[1]] = select.value; apply(); });
    });
    byId('clear-filters').addEventListener('click', clearFilters);
    byId('expand-all').addEventListener('click', function () {
      doc.querySelectorAll('details.group').forEach(function (d) { if (!d.hidden) d.open = true; });
    });
    byId('collapse-all').addEventListener('click', function () {
      doc.querySelectorAll('details[open]').forEach(function (d) { d.open = false; });
    });
    doc.addEventListener('click', function (event) {
      var target = event.target;
      if (!(target instanceof Element)) return;
      var more = target.closest('.show-more');
      if (more) {
        var box = more.closest('.more');
        more.remove();
        showMore(box);
        return;
      }
      var cases = target.closest('.show-cases');
      if (cases) {
        var fact = cases.closest('tr.fact');
        var row = fact.nextElementSibling;
        if (row && row.classList.contains('fact-cases')) {
          row.hidden = !row.hidden;
          return;
        }
        row = el('tr', 'fact-cases');
        var cell = el('td');
        cell.colSpan = fact.children.length;
        var box2 = el('div', 'more');
        box2.dataset.examples = fact.dataset.examples;
        cell.appendChild(box2);
        row.appendChild(cell);
        fact.after(row);
        showMore(box2);
        return;
      }
      var link = target.closest('a[href^="#"]');
      if (link) {
        var goal = byId(link.getAttribute('href').slice(1));
        if (!goal) return;
        if (goal.closest('[hidden]')) clearFilters();
        if (goal.tagName === 'DETAILS') goal.open = true;
      }
    });
  }

  function clearFilters() {
    query = '';
    byId('search').value = '';
    Object.keys(filters).forEach(function (k) { filters[k] = ''; });
    ['filter-level', 'filter-operation', 'filter-format', 'filter-verdict'].forEach(function (id) { byId(id).value = ''; });
    apply();
  }

  function unpack() {
    var node = byId('iswc-examples');
    if (!node || typeof DecompressionStream === 'undefined') return Promise.resolve(null);
    var binary = atob(node.textContent.trim());
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Response(stream).text().then(JSON.parse);
  }

  wire();
  apply();
  unpack().then(function (payload) {
    data = payload;
    if (query) apply();
  }, function () {
    data = null;
  }).then(function () {
    window.iswcReady = performance.now();
  });
})();`;
