// The dashboard's Conversations page: the "Record conversations" switch (conversation.set_logging),
// the saved briefs, the runs with their model cost, and the namespace's threads, headed by their
// titles. It speaks only the public ops API with the token the person pastes; the token stays in
// this tab (sessionStorage). All data is rendered as text, never as HTML.
'use strict';

const $ = (id) => document.getElementById(id);
let session = JSON.parse(sessionStorage.getItem('loom.session') || 'null');

async function op(name, body) {
  const response = await fetch(`/v1/ops/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${session.token}` },
    body: JSON.stringify({ namespace: session.namespace, ...body }),
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(answer.error ? `${answer.error.message} (${response.status})` : `HTTP ${response.status}`);
  return answer;
}

function say(text, isError = false) {
  $('status').textContent = text;
  $('status').className = isError ? 'error' : '';
}

function el(tag, text, attrs = {}) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

async function loadSwitch() {
  const { conversation_logging_enabled } = await op('conversation.get_logging', {});
  $('record-switch').checked = conversation_logging_enabled;
  $('record-switch').setAttribute('aria-checked', String(conversation_logging_enabled));
}

async function flipSwitch(event) {
  const enabled = event.target.checked;
  try {
    const answer = await op('conversation.set_logging', { enabled });
    event.target.setAttribute('aria-checked', String(answer.conversation_logging_enabled));
    say(answer.conversation_logging_enabled ? `Recording is on for ${answer.namespace}.` : `Recording is off for ${answer.namespace}: new turns are not kept.`);
  } catch (error) {
    event.target.checked = !enabled;
    say(`Could not change the switch: ${error.message}`, true);
  }
}

async function loadThreads() {
  const { threads } = await op('conversation.threads', { agent: '*', window_days: 365, limit: 100 });
  const list = $('threads');
  list.replaceChildren();
  for (const thread of threads) {
    const item = el('li', undefined, { 'data-thread-id': thread.thread_id, tabindex: '0' });
    // The title (a person's, or the titler's) leads; an untitled thread shows its id.
    item.append(el('h3', thread.title || thread.thread_id, { class: 'thread-heading' }));
    item.append(el('p', `${thread.turn_count} turn(s) · ${new Date(thread.last_activity_at).toLocaleString()}`));
    if (thread.excerpt) item.append(el('p', thread.excerpt));
    item.addEventListener('click', () => openThread(thread));
    item.addEventListener('keydown', (e) => e.key === 'Enter' && openThread(thread));
    list.append(item);
  }
  if (threads.length === 0) list.append(el('li', 'No recorded threads in this namespace yet.'));
}

async function openThread(thread) {
  const answer = await op('conversation.get', { thread_id: thread.thread_id, agent: '*', include_messages: true, order: 'desc', limit: 50 });
  $('thread-title').textContent = answer.thread.title || thread.thread_id;
  const turns = $('turns');
  turns.replaceChildren();
  for (const turn of [...answer.messages].reverse()) {
    const item = el('li', undefined, { 'data-role': turn.role });
    item.append(el('span', `${turn.role} · ${turn.agent}`, { class: 'role' }));
    item.append(document.createTextNode(turn.content));
    turns.append(item);
  }
  $('thread').hidden = false;
}

// Briefs are named, never loaded, until the person asks for one (BRIEF-RESTORE-01).
async function loadBriefs() {
  const { briefs } = await op('session.brief_list', { limit: 50 });
  const list = $('briefs');
  list.replaceChildren();
  $('brief').hidden = true;
  for (const brief of briefs) {
    const item = el('li', undefined, { 'data-brief-key': brief.brief_key });
    item.append(el('span', brief.brief_key, { class: 'brief-name' }));
    const load = el('button', 'Load', { type: 'button' });
    load.addEventListener('click', () => void openBrief(brief.brief_key));
    item.append(load);
    list.append(item);
  }
  if (briefs.length === 0) list.append(el('li', 'No saved briefs.'));
}

async function openBrief(key) {
  const { brief } = await op('session.brief_get', { brief_key: key });
  $('brief-key').textContent = `${brief.brief_key} · revision ${brief.revision} · ${brief.author}`;
  $('brief-text').textContent = brief.rendered;
  $('brief').hidden = false;
}

const usd = (value) => (value === null || value === undefined ? '—' : `$${value.toFixed(value < 1 ? 4 : 2)}`);
const count = (value) => value.toLocaleString('en-US');

// Runs and what their model calls cost; a run whose client reported no usage has no cost (—).
async function loadRuns() {
  const { runs, model_cost: page } = await op('run.list', { agent: '*', limit: 50 });
  const body = $('runs').querySelector('tbody');
  body.replaceChildren();
  for (const run of runs) {
    const row = el('tr', undefined, { 'data-run-id': run.run_id });
    const cost = run.model_cost;
    const inputs = cost ? cost.input_tokens + cost.cache_write_tokens + cost.cache_write_1h_tokens + cost.cache_read_tokens : 0;
    for (const text of [
      run.goal,
      run.agent,
      run.status,
      new Date(run.started_at).toLocaleString(),
      cost ? count(cost.reports) : '—',
      cost ? `${count(inputs)} / ${count(cost.output_tokens)}` : '—',
      cost ? usd(cost.cost_usd) + (cost.unpriced_models.length ? ` (unpriced: ${cost.unpriced_models.join(', ')})` : '') : '—',
    ]) {
      row.append(el('td', text));
    }
    body.append(row);
  }
  if (runs.length === 0) {
    const empty = el('tr');
    empty.append(el('td', 'No runs in this namespace yet.', { colspan: '7' }));
    body.append(empty);
  }
  $('runs-total').textContent = page && page.cost_usd !== null ? `These ${runs.length} run(s): ${usd(page.cost_usd)}.` : '';
}

async function open() {
  say('Loading…');
  try {
    await loadSwitch();
    await loadBriefs();
    await loadRuns();
    await loadThreads();
    $('conversations').hidden = false;
    say('');
  } catch (error) {
    say(`Could not load ${session.namespace}: ${error.message}`, true);
  }
}

$('connect').addEventListener('submit', (event) => {
  event.preventDefault();
  session = { namespace: $('namespace').value.trim(), token: $('token').value.trim() };
  sessionStorage.setItem('loom.session', JSON.stringify(session));
  void open();
});
$('record-switch').addEventListener('change', flipSwitch);
if (session) {
  $('namespace').value = session.namespace;
  void open();
}
