// The dashboard: a first screen that asks for a token, then three pages.
// - Conversations: the "Record conversations" switch (conversation.set_logging), a search box
//   (conversation.search), the saved briefs, the runs with their model cost, and the threads.
// - Saved: one user's saved messages, listed or searched, each with an Unsave button.
// - Settings: the live settings (settings.get), editable by an admin for every namespace.
// It speaks only the public ops API with the token the person pastes; the token stays in this
// tab (sessionStorage). What the token may do comes from token.whoami: a control the token
// cannot use is disabled, and the reason is written beside it. All data is rendered as text.
'use strict';

const $ = (id) => document.getElementById(id);
const PAGES = ['conversations', 'saved', 'settings'];
const RANK = { viewer: 0, writer: 1, admin: 2 };
let session = JSON.parse(sessionStorage.getItem('loom.session') || 'null');
/** token.whoami's answer for the current session. */
let me = null;

class OpError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

/** Settings act on the whole deployment: their bodies name no namespace. */
const DEPLOYMENT_OPS = new Set(['settings.get', 'settings.set']);

async function op(name, body) {
  const namespace = session.namespace && !DEPLOYMENT_OPS.has(name) ? { namespace: session.namespace } : {};
  const response = await fetch(`/v1/ops/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${session.token}` },
    body: JSON.stringify({ ...namespace, ...body }),
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new OpError(answer.error ? `${answer.error.message} (${response.status})` : `HTTP ${response.status}`, response.status);
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

/** Shows `reason` beside a control (or hides the note when there is none). */
function explain(id, reason) {
  $(id).textContent = reason || '';
  $(id).hidden = !reason;
}

// ---- what this token may do --------------------------------------------------------------

const atLeast = (role) => me !== null && RANK[me.role] >= RANK[role];
const bounded = () => me !== null && me.read_scope !== 'all';
const everyNamespace = () => me !== null && me.namespaces.includes('*');
const roleName = () => (me ? `${me.role}${bounded() ? ` (${me.read_scope} ${me.read_user_id})` : ''}` : '');

/** Why the token cannot use namespace-wide pages (conversations), or undefined when it can. */
function conversationsBlocked() {
  if (bounded()) {
    const can = me.read_scope === 'own_user' ? 'its saved messages and briefs' : 'its session\'s briefs';
    return `This token acts for user ${me.read_user_id} only (${me.read_scope}): it can use ${can}, not the namespace's conversations.`;
  }
  return undefined;
}

function recordReason() {
  if (atLeast('admin') && !bounded()) return undefined;
  return `Only an admin can change recording; this token is a ${roleName()}.`;
}

function unsaveReason() {
  if (atLeast('writer')) return undefined;
  return `Unsaving needs the writer role; this token is a ${roleName()}.`;
}

function savedReason() {
  if (me && me.read_scope === 'own_session') return 'Saved messages need a token for a user or for the whole namespace; this token is bound to one session (own_session).';
  return undefined;
}

function settingsReason() {
  if (bounded()) return `Settings are not readable with a token bound to one user (${me.read_scope}).`;
  if (!atLeast('admin')) return `Changing a setting needs an admin token for every namespace; this token is a ${roleName()}.`;
  if (!everyNamespace()) return `Changing a setting needs an admin token for every namespace (settings apply to the whole deployment); this admin token covers ${me.namespaces.join(', ')} only.`;
  return undefined;
}

// ---- pages -----------------------------------------------------------------------------

function currentPage() {
  const page = location.hash.replace(/^#/, '');
  return PAGES.includes(page) ? page : 'conversations';
}

async function showPage() {
  const page = currentPage();
  for (const name of PAGES) $(name).hidden = name !== page;
  for (const link of document.querySelectorAll('#pages a')) {
    if (link.dataset.page === page) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  document.title = `Loom · ${page[0].toUpperCase()}${page.slice(1)}`;
  say('Loading…');
  try {
    if (page === 'conversations') await loadConversations();
    else if (page === 'saved') await loadSaved();
    else await loadSettings();
    say('');
  } catch (error) {
    say(`Could not load ${page}: ${error.message}`, true);
  }
}

// ---- Conversations -----------------------------------------------------------------------

async function loadConversations() {
  const blocked = conversationsBlocked();
  for (const id of ['conv-search-section', 'briefs-section', 'runs-section']) $(id).hidden = false;
  if (blocked) {
    $('record-switch').disabled = true;
    $('record-note').textContent = '';
    explain('record-reason', blocked);
    $('conv-search-section').hidden = true;
    $('runs-section').hidden = true;
    $('threads').replaceChildren(el('li', blocked));
    await loadBriefs();
    return;
  }
  await loadSwitch();
  await loadBriefs();
  await loadRuns();
  await loadThreads();
}

function describeRecording(on) {
  $('record-note').textContent = on
    ? 'On: new turns are stored, embedded and searchable.'
    : 'Off: appends are answered logging_disabled and nothing is kept (saved messages still are).';
}

async function loadSwitch() {
  const { conversation_logging_enabled: on } = await op('conversation.get_logging', {});
  const reason = recordReason();
  $('record-switch').checked = on;
  $('record-switch').setAttribute('aria-checked', String(on));
  $('record-switch').disabled = reason !== undefined;
  describeRecording(on);
  explain('record-reason', reason);
}

async function flipSwitch(event) {
  const enabled = event.target.checked;
  event.target.disabled = true;
  try {
    const answer = await op('conversation.set_logging', { enabled });
    const on = answer.conversation_logging_enabled;
    event.target.checked = on;
    event.target.setAttribute('aria-checked', String(on));
    describeRecording(on);
    say(on ? `Recording is on for ${answer.namespace}.` : `Recording is off for ${answer.namespace}: new turns are not kept.`);
  } catch (error) {
    event.target.checked = !enabled;
    say(`Could not change the switch: ${error.message}`, true);
  } finally {
    event.target.disabled = recordReason() !== undefined;
  }
}

async function searchConversations(event) {
  event.preventDefault();
  const query = $('conv-search').value.trim();
  if (!query) return;
  const mode = $('conv-search-mode').value;
  say('Searching…');
  try {
    const answer = await op('conversation.search', { query, search_mode: mode, agent: '*', namespace_scope: 'namespace', limit: 20 });
    const list = $('conv-search-results');
    list.replaceChildren();
    $('conv-search-summary').textContent = `Mode: ${answer.mode}${answer.mode !== mode ? ` (asked for ${mode})` : ''} · ${answer.hits.length} hit(s)`;
    $('conv-search-summary').hidden = false;
    for (const hit of answer.hits) {
      const item = el('li', undefined, { 'data-thread-id': hit.thread_id, 'data-msg-id': hit.msg_id, tabindex: '0' });
      const score = hit.score === null ? '' : ` · score ${hit.score}`;
      item.append(el('span', `${hit.thread_id} · ${hit.role} · ${new Date(hit.ts).toLocaleString()}${score}`, { class: 'meta' }));
      item.append(el('p', hit.excerpt, { class: 'excerpt' }));
      const open = () => void openThread({ thread_id: hit.thread_id });
      item.addEventListener('click', open);
      item.addEventListener('keydown', (e) => e.key === 'Enter' && open());
      list.append(item);
    }
    if (answer.hits.length === 0) list.append(el('li', 'Nothing found.', { class: 'empty' }));
    say('');
  } catch (error) {
    say(`Search failed: ${error.message}`, true);
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
    item.addEventListener('click', () => void openThread(thread));
    item.addEventListener('keydown', (e) => e.key === 'Enter' && void openThread(thread));
    list.append(item);
  }
  if (threads.length === 0) list.append(el('li', 'No recorded threads in this namespace yet.'));
}

async function openThread(thread) {
  try {
    const answer = await op('conversation.get', { thread_id: thread.thread_id, agent: '*', include_messages: true, order: 'desc', limit: 50 });
    $('thread-title').textContent = answer.thread.title || thread.thread_id;
    const turns = $('turns');
    turns.replaceChildren();
    for (const turn of [...answer.messages].reverse()) {
      const item = el('li', undefined, { 'data-role': turn.role, 'data-msg-id': turn.msg_id });
      item.append(el('span', `${turn.role} · ${turn.agent}`, { class: 'role' }));
      item.append(document.createTextNode(turn.content));
      turns.append(item);
    }
    $('thread').hidden = false;
  } catch (error) {
    say(`Could not open ${thread.thread_id}: ${error.message}`, true);
  }
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

// ---- Saved -------------------------------------------------------------------------------

function savedUser() {
  return me && me.read_scope === 'own_user' ? me.read_user_id : $('saved-user').value.trim();
}

async function loadSaved() {
  const blocked = savedReason();
  const pinned = me.read_scope === 'own_user';
  for (const id of ['saved-user', 'saved-search', 'saved-mode']) $(id).disabled = blocked !== undefined;
  $('saved-form').querySelector('button').disabled = blocked !== undefined;
  if (pinned) {
    $('saved-user').value = me.read_user_id;
    $('saved-user').disabled = true;
  }
  explain('saved-user-reason', blocked ?? (pinned ? `This token acts for user ${me.read_user_id} only.` : undefined));
  explain('unsave-reason', blocked ? undefined : unsaveReason());
  if (blocked) {
    $('saved-list').replaceChildren();
    return;
  }
  if (!savedUser()) {
    $('saved-summary').textContent = 'Name a user to see the messages they saved.';
    $('saved-summary').hidden = false;
    $('saved-list').replaceChildren();
    return;
  }
  await showSaved();
}

async function showSaved() {
  const user = savedUser();
  const query = $('saved-search').value.trim();
  sessionStorage.setItem('loom.savedUser', $('saved-user').value.trim());
  const body = { user_id: user };
  const answer = query
    ? await op('conversation.search_saved_messages', { ...body, query, search_mode: $('saved-mode').value, limit: 50 })
    : await op('conversation.list_saved_messages', { ...body, limit: 100 });
  const items = query ? answer.hits : answer.messages;
  $('saved-summary').textContent = query
    ? `Mode: ${answer.mode} · ${items.length} hit(s) for ${user}`
    : `${items.length}${answer.next_cursor ? '+' : ''} saved message(s) of ${user}, newest first`;
  $('saved-summary').hidden = false;
  const list = $('saved-list');
  list.replaceChildren();
  const reason = unsaveReason();
  for (const item of items) {
    const row = el('li', undefined, { 'data-conversation-id': item.conversation_id, 'data-message-id': item.message_id });
    const score = item.score === undefined ? '' : ` · score ${Math.round(item.score * 1e4) / 1e4} (${item.matched.join(' + ')})`;
    row.append(el('span', `${item.conversation_id} · ${item.role} · saved ${new Date(item.ts).toLocaleString()}${score}`, { class: 'meta' }));
    row.append(el('p', item.excerpt, { class: 'excerpt' }));
    const unsave = el('button', 'Unsave', { type: 'button', class: 'unsave' });
    if (reason) {
      unsave.disabled = true;
      unsave.title = reason;
    }
    unsave.addEventListener('click', () => void unsaveMessage(item, row, unsave));
    row.append(unsave);
    list.append(row);
  }
  if (items.length === 0) list.append(el('li', query ? 'Nothing found.' : 'No saved messages.', { class: 'empty' }));
}

async function unsaveMessage(item, row, button) {
  button.disabled = true;
  try {
    const answer = await op('conversation.unsave_message', { user_id: savedUser(), conversation_id: item.conversation_id, message_id: item.message_id, agent: item.agent });
    if (answer.found) {
      row.remove();
      say(`Unsaved ${item.message_id}${answer.removed ? ' (removed: the namespace does not record it)' : ''}.`);
    } else {
      say(`${item.message_id} was no longer saved.`);
    }
  } catch (error) {
    button.disabled = false;
    say(`Could not unsave ${item.message_id}: ${error.message}`, true);
  }
}

// ---- Settings ----------------------------------------------------------------------------

const SETTINGS = {
  conversation_search_excerpt_chars: { meaning: 'Characters in each search hit’s excerpt (and saved-message listings).', input: { type: 'number', min: '1', step: '1' } },
  conversation_search_min_similarity: { meaning: 'Lowest cosine similarity a vector hit needs (0 to 1).', input: { type: 'number', min: '0', max: '1', step: '0.01' } },
  session_brief_model_calls: { meaning: '1: session briefs are revised with model calls; 0: no model calls (the deterministic builder).', choices: ['1', '0'] },
  conversation_search_default_mode: { meaning: 'The search_mode of a conversation.search that names none.', choices: ['hybrid', 'vector', 'lexical'] },
};

async function loadSettings() {
  const body = $('settings-table').querySelector('tbody');
  const reason = settingsReason();
  explain('settings-reason', reason);
  body.replaceChildren();
  if (bounded()) return;
  const values = await op('settings.get', {});
  for (const [key, value] of Object.entries(values)) {
    const spec = SETTINGS[key] ?? { meaning: '', input: { type: 'text' } };
    const row = el('tr', undefined, { 'data-setting': key });
    row.append(el('th', key, { scope: 'row' }));
    row.append(el('td', spec.meaning));
    let field;
    if (spec.choices) {
      field = el('select', undefined, { 'aria-label': key });
      for (const choice of spec.choices) field.append(el('option', choice, { value: choice }));
    } else {
      field = el('input', undefined, { 'aria-label': key, ...spec.input });
    }
    field.value = String(value);
    const cell = el('td');
    cell.append(field);
    row.append(cell);
    const save = el('button', 'Save', { type: 'button' });
    const actions = el('td');
    actions.append(save);
    row.append(actions);
    if (reason) {
      field.disabled = true;
      save.disabled = true;
      save.title = reason;
    }
    save.addEventListener('click', () => void saveSetting(key, field, save));
    body.append(row);
  }
}

async function saveSetting(key, field, button) {
  const raw = field.value.trim();
  const value = key === 'conversation_search_default_mode' ? raw : Number(raw);
  button.disabled = true;
  try {
    const values = await op('settings.set', { key, value });
    field.value = String(values[key]);
    say(`Saved: ${key} = ${values[key]}.`);
  } catch (error) {
    say(`Could not save ${key}: ${error.message}`, true);
  } finally {
    button.disabled = settingsReason() !== undefined;
  }
}

// ---- connecting --------------------------------------------------------------------------

function showConnect(message) {
  me = null;
  $('connect-page').hidden = false;
  $('pages').hidden = true;
  $('identity').hidden = true;
  for (const name of PAGES) $(name).hidden = true;
  if (message) say(message, true);
  else say('');
  $('token').focus();
}

async function connect() {
  say('Checking the token…');
  try {
    me = await op('token.whoami', {});
  } catch (error) {
    const why =
      error.status === 401
        ? 'Loom does not know that token (or it was revoked). Paste a token from `loom up` or `loom token create`.'
        : error.status === 403
          ? `That token does not cover namespace "${session.namespace}". Leave the namespace empty to use the token's own.`
          : `Could not reach Loom: ${error.message}`;
    sessionStorage.removeItem('loom.session');
    showConnect(why);
    return;
  }
  $('connect-page').hidden = true;
  $('pages').hidden = false;
  $('identity').hidden = false;
  $('whoami').textContent = `${roleName()} · namespace ${me.namespace}`;
  $('saved-user').value = sessionStorage.getItem('loom.savedUser') || '';
  await showPage();
}

$('connect').addEventListener('submit', (event) => {
  event.preventDefault();
  session = { namespace: $('namespace').value.trim(), token: $('token').value.trim() };
  sessionStorage.setItem('loom.session', JSON.stringify(session));
  $('token').value = '';
  void connect();
});
$('sign-out').addEventListener('click', () => {
  sessionStorage.removeItem('loom.session');
  session = null;
  showConnect();
});
$('record-switch').addEventListener('change', (event) => void flipSwitch(event));
$('conv-search-form').addEventListener('submit', (event) => void searchConversations(event));
$('saved-form').addEventListener('submit', (event) => {
  event.preventDefault();
  say('Loading…');
  showSaved().then(
    () => say(''),
    (error) => say(`Could not load saved messages: ${error.message}`, true),
  );
});
window.addEventListener('hashchange', () => me && void showPage());
if (session) {
  $('namespace').value = session.namespace;
  void connect();
} else {
  showConnect();
}
