// The playground's page, style and script (served by routes/playground.ts). Plain HTML, CSS and browser
// JavaScript, no framework and nothing fetched from elsewhere, so it works offline. Kept as strings so
// that the build and the image need no copy step. test/browser/playground.test.ts drives it in Chromium.

const escapeAttribute = (text: string) =>
  text.replace(/[&"<>]/g, (char) => ({ '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;' })[char]!);

/** The page; `token` (development server, loopback only) fills in the token field. */
export function playgroundPage({ token, sample }: { token: string | undefined; sample: boolean }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>catalog-search playground</title>
<link rel="stylesheet" href="/playground/playground.css">
<script src="/playground/playground.js" defer></script>
${token === undefined ? '' : `<meta name="development-token" content="${escapeAttribute(token)}">\n`}</head>
<body>
<header>
  <h1>catalog-search playground</h1>
  <p>Ranks a tool list for your requests through the public API (<code>POST /v1/catalog/search</code>), once with the project's learning and once without it (<code>X-Learning: off</code>).</p>
</header>
<main>
<form id="search-form" novalidate>
  <div class="field">
    <label for="token">Bearer token</label>
    <input id="token" name="token" type="password" autocomplete="off" spellcheck="false" aria-describedby="token-help">
    <p id="token-help" class="help">${
      token === undefined
        ? 'A token of your project (for a trial: <code>npm run -s mint-token -- --project NAME</code>).'
        : 'Filled in: a development token for project <code>dev-project</code> (this server signs with its development key).'
    }</p>
  </div>
  <div class="field">
    <label for="tools">Tool list</label>
    <textarea id="tools" name="tools" rows="8" spellcheck="false" aria-describedby="tools-help"></textarea>
    <p id="tools-help" class="help">Paste an MCP <code>tools/list</code> answer, a search request body (<code>tools</code>, <code>servers</code> or <code>toolSet</code>), or a stored <code>toolSet</code> id.${
      sample ? ' Or use the sample list: 38 tools of GitHub, Slack, Google Calendar, Gmail and more.' : ''
    }</p>
    ${sample ? '<button type="button" id="use-sample">Use the sample list</button>' : ''}
  </div>
  <div class="field">
    <label for="queries">Requests, one per line</label>
    <textarea id="queries" name="queries" rows="3" aria-describedby="queries-help"></textarea>
    <p id="queries-help" class="help">Each line is a step of the task (the request's <code>query</code> array). Ctrl+Enter searches.</p>
  </div>
  <button type="submit" id="search">Search</button>
</form>
<p id="error" role="alert" hidden></p>
<section id="results" aria-live="polite" aria-label="Results">
  <div class="column" id="learned"><h2>With learning</h2><div class="body"></div></div>
  <div class="column" id="unlearned"><h2>Without learning</h2><div class="body"></div></div>
</section>
</main>
</body>
</html>
`;
}

export const PLAYGROUND_STYLE = `
:root { color-scheme: light; font-family: system-ui, sans-serif; line-height: 1.4; color: #1b1f24; background: #fff; }
body { margin: 0 auto; max-width: 1200px; padding: 1rem 1.5rem 3rem; }
h1 { font-size: 1.5rem; margin: 0.5rem 0; }
h2 { font-size: 1.1rem; margin: 0 0 0.5rem; }
code { background: #eef1f4; padding: 0 0.2em; border-radius: 3px; }
.field { margin: 0 0 1rem; }
label { display: block; font-weight: 600; margin-bottom: 0.25rem; }
input, textarea { width: 100%; box-sizing: border-box; font: 0.9rem ui-monospace, monospace; padding: 0.4rem;
  border: 1px solid #6b7480; border-radius: 4px; }
.help { margin: 0.25rem 0; color: #4a525c; font-size: 0.9rem; }
button { font: inherit; padding: 0.4rem 1rem; border: 1px solid #0b57d0; border-radius: 4px; background: #0b57d0;
  color: #fff; cursor: pointer; }
button[type="button"] { background: #fff; color: #0b57d0; }
button:disabled { opacity: 0.6; cursor: progress; }
:focus-visible { outline: 3px solid #e8710a; outline-offset: 2px; }
#error { color: #a50e0e; background: #fce8e6; padding: 0.5rem; border-radius: 4px; }
#results { display: grid; grid-template-columns: 1fr 1fr; gap: 1.5rem; margin-top: 1.5rem; }
.column { min-width: 0; }
.meta { font-size: 0.85rem; background: #f3f5f7; border-radius: 4px; padding: 0.5rem; margin: 0 0 0.75rem; }
.meta { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; }
.meta dt { font-weight: 600; display: inline; }
.meta dd { display: inline; margin: 0; overflow-wrap: anywhere; }
ol.ranking { padding-left: 1.5rem; margin: 0; }
ol.ranking li { margin: 0 0 0.75rem; }
.tool { display: flex; justify-content: space-between; gap: 0.5rem; font-family: ui-monospace, monospace; }
.moved { font-size: 0.8rem; color: #137333; font-family: system-ui, sans-serif; }
.bar { height: 0.5rem; background: #e3e7eb; border-radius: 4px; overflow: hidden; margin: 0.2rem 0; }
.bar span { display: block; height: 100%; background: #0b57d0; }
.explanation { margin: 0; font-size: 0.85rem; color: #3c434b; }
@media (max-width: 800px) { #results { grid-template-columns: 1fr; } }
`;

// Browser JavaScript (ES2020, no modules). No template literals here: this file is one.
export const PLAYGROUND_SCRIPT = String.raw`
'use strict';
(function () {
  var TOOL_SET_ID = /^[A-Za-z0-9_-]{43}$/;
  var $ = function (id) { return document.getElementById(id); };

  document.addEventListener('DOMContentLoaded', function () {
    var token = document.querySelector('meta[name="development-token"]');
    if (token) $('token').value = token.content;
    var sample = $('use-sample');
    if (sample) sample.addEventListener('click', useSample);
    $('search-form').addEventListener('submit', function (event) { event.preventDefault(); search(); });
    $('queries').addEventListener('keydown', function (event) {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) { event.preventDefault(); search(); }
    });
  });

  function useSample() {
    fetch('/playground/sample.json').then(function (response) { return response.json(); }).then(function (body) {
      $('tools').value = JSON.stringify({ tools: body.tools }, null, 2);
      if ($('queries').value.trim() === '') $('queries').value = body.query.join('\n');
      $('queries').focus();
    }, function (error) { showError('Could not load the sample list: ' + error.message); });
  }

  // The list part of a request body from what was pasted: a toolSet id, an MCP tools/list answer
  // (as JSON-RPC or its result), a request body, or a bare array of tools or servers.
  function readList(text) {
    text = text.trim();
    if (text === '') throw new Error('Paste a tool list, or use the sample list.');
    if (TOOL_SET_ID.test(text)) return { toolSet: text };
    var value;
    try { value = JSON.parse(text); } catch (error) { throw new Error('The tool list is not JSON (nor a toolSet id): ' + error.message); }
    if (value && value.result && Array.isArray(value.result.tools)) value = value.result;
    if (Array.isArray(value)) value = value.every(isServer) ? { servers: value } : { tools: value };
    if (!value || typeof value !== 'object') throw new Error('The tool list must be a JSON object or array.');
    if (typeof value.toolSet === 'string') return { toolSet: value.toolSet };
    if (Array.isArray(value.servers)) return { servers: value.servers };
    if (Array.isArray(value.tools)) {
      // A tools/list answer names tools without a server: send it as one server's list.
      var mcp = value.tools.length > 0 && value.tools.every(function (tool) { return tool && tool.toolKey === undefined && tool.serverName === undefined; });
      return mcp ? { servers: [{ serverId: 'server', tools: value.tools }] } : { tools: value.tools };
    }
    throw new Error('No tools found: expected "tools", "servers", "toolSet" or a tools/list answer.');
  }
  function isServer(entry) { return entry && typeof entry.serverId === 'string' && Array.isArray(entry.tools); }

  function search() {
    hideError();
    var body;
    try {
      body = readList($('tools').value);
      var query = $('queries').value.split('\n').map(function (line) { return line.trim(); }).filter(Boolean);
      if (query.length === 0) throw new Error('Type at least one request.');
      body.query = query;
      body.maxResults = 10;
    } catch (error) { showError(error.message); return; }
    var headers = { 'content-type': 'application/json', authorization: 'Bearer ' + $('token').value.trim() };
    var button = $('search');
    button.disabled = true;
    $('results').setAttribute('aria-busy', 'true');
    // The same request twice: with the project's learning, and without it (X-Learning: off).
    Promise.all([
      call(body, headers),
      call(body, Object.assign({ 'x-learning': 'off' }, headers)),
    ]).then(function (answers) {
      render('learned', answers[0], answers[1]);
      render('unlearned', answers[1], undefined);
    }, function (error) {
      showError(error.message);
    }).then(function () {
      button.disabled = false;
      $('results').setAttribute('aria-busy', 'false');
    });
  }

  function call(body, headers) {
    return fetch('/v1/catalog/search', { method: 'POST', headers: headers, body: JSON.stringify(body) }).then(function (response) {
      return response.json().then(function (answer) {
        if (!response.ok) throw new Error(response.status + ' ' + (answer.code || '') + ': ' + (answer.detail || answer.title || 'the search failed'));
        return answer;
      });
    });
  }

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // One column: meta, then each result with its relevance bar and explanation. "other" is the answer
  // without learning: a tool learning moved says from where.
  function render(column, answer, other) {
    var target = $(column).querySelector('.body');
    target.textContent = '';
    var meta = element('dl', 'meta');
    var m = answer.meta;
    var skipped = m.skippedCount ? m.skippedCount + ' (' + m.skipped.map(function (s) { return s.toolKey || ('#' + s.index); }).join(', ') + ')' : '0';
    [['ranker', m.ranker], ['semantic', m.semantic || 'off'], ['learning', m.learning || 'none'], ['skipped', skipped],
     ['degraded', m.degraded], ['toolSet', m.toolSet], ['requestId', m.requestId]].forEach(function (pair) {
      if (pair[1] === undefined) return;
      var entry = element('div', 'entry');
      entry.appendChild(element('dt', '', pair[0]));
      entry.appendChild(document.createTextNode(' '));
      entry.appendChild(element('dd', '', String(pair[1])));
      meta.appendChild(entry);
    });
    target.appendChild(meta);
    if (answer.results.length === 0) { target.appendChild(element('p', '', 'No tool matched.')); return; }
    var before = {};
    if (other) other.results.forEach(function (result, index) { before[result.toolKey] = index + 1; });
    var list = element('ol', 'ranking');
    answer.results.forEach(function (result, index) {
      var item = element('li', 'result');
      var row = element('div', 'tool');
      row.appendChild(element('span', 'key', result.toolKey));
      var was = before[result.toolKey];
      if (other && was !== index + 1) row.appendChild(element('span', 'moved', was ? 'was #' + was : 'new'));
      row.appendChild(element('span', 'relevance', result.relevance.toFixed(3)));
      item.appendChild(row);
      var bar = element('div', 'bar');
      bar.setAttribute('role', 'img');
      bar.setAttribute('aria-label', 'relevance ' + result.relevance.toFixed(2));
      var fill = element('span');
      fill.style.width = Math.round(result.relevance * 100) + '%';
      bar.appendChild(fill);
      item.appendChild(bar);
      if (result.explanation) item.appendChild(element('p', 'explanation', result.explanation));
      list.appendChild(item);
    });
    target.appendChild(list);
  }

  function showError(message) { var node = $('error'); node.textContent = message; node.hidden = false; }
  function hideError() { var node = $('error'); node.textContent = ''; node.hidden = true; }
})();
`;
