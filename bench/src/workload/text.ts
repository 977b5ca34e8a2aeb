import { Rng } from '../util/rng';

/**
 * Synthetic coding-agent turns: each thread has a topic, turns mix that topic's words with
 * general engineering prose, 200-2,000 characters, no digits (digit runs could read as PINs or
 * card numbers and make Loom skip the embedding, which would skew the search figures).
 */
const TOPICS: readonly string[][] = [
  ['ledger', 'invoice', 'billing', 'currency', 'rounding', 'refund', 'tax', 'receipt', 'payment', 'reconcile'],
  ['kubernetes', 'pod', 'deployment', 'helm', 'ingress', 'replica', 'namespace', 'liveness', 'probe', 'rollout'],
  ['postgres', 'migration', 'schema', 'index', 'vacuum', 'transaction', 'deadlock', 'foreign', 'constraint', 'column'],
  ['react', 'component', 'hook', 'render', 'state', 'props', 'memo', 'effect', 'suspense', 'hydration'],
  ['oauth', 'token', 'refresh', 'scope', 'session', 'cookie', 'login', 'redirect', 'consent', 'issuer'],
  ['flaky', 'test', 'jest', 'mock', 'fixture', 'snapshot', 'timeout', 'retry', 'assertion', 'coverage'],
  ['docker', 'image', 'layer', 'cache', 'registry', 'dockerfile', 'container', 'volume', 'entrypoint', 'build'],
  ['kafka', 'consumer', 'partition', 'offset', 'topic', 'producer', 'lag', 'rebalance', 'broker', 'commit'],
  ['terraform', 'module', 'provider', 'plan', 'apply', 'drift', 'backend', 'workspace', 'variable', 'output'],
  ['graphql', 'resolver', 'query', 'mutation', 'schema', 'loader', 'batching', 'subscription', 'field', 'directive'],
  ['webpack', 'bundle', 'chunk', 'loader', 'plugin', 'treeshaking', 'sourcemap', 'minify', 'esbuild', 'vite'],
  ['redis', 'cache', 'eviction', 'ttl', 'pipeline', 'cluster', 'sentinel', 'pubsub', 'keyspace', 'memory'],
  ['logging', 'trace', 'span', 'metric', 'dashboard', 'alert', 'grafana', 'prometheus', 'sampling', 'exporter'],
  ['rust', 'borrow', 'lifetime', 'trait', 'ownership', 'cargo', 'crate', 'async', 'tokio', 'unsafe'],
  ['python', 'virtualenv', 'pip', 'typing', 'pytest', 'asyncio', 'decorator', 'generator', 'pandas', 'numpy'],
  ['search', 'embedding', 'vector', 'cosine', 'similarity', 'ranking', 'recall', 'index', 'query', 'relevance'],
  ['email', 'smtp', 'template', 'bounce', 'unsubscribe', 'newsletter', 'queue', 'delivery', 'spam', 'header'],
  ['upload', 'multipart', 'bucket', 'storage', 'presigned', 'thumbnail', 'resize', 'stream', 'chunk', 'checksum'],
  ['websocket', 'socket', 'reconnect', 'heartbeat', 'broadcast', 'channel', 'presence', 'latency', 'frame', 'handshake'],
  ['permissions', 'role', 'policy', 'admin', 'audit', 'tenant', 'access', 'grant', 'revoke', 'owner'],
  ['ci', 'pipeline', 'workflow', 'runner', 'artifact', 'matrix', 'lint', 'release', 'tag', 'changelog'],
  ['parser', 'lexer', 'grammar', 'ast', 'token', 'precedence', 'syntax', 'error', 'recovery', 'visitor'],
  ['mobile', 'android', 'ios', 'gesture', 'navigation', 'offline', 'push', 'notification', 'keyboard', 'layout'],
  ['pricing', 'subscription', 'plan', 'trial', 'upgrade', 'downgrade', 'proration', 'seat', 'quota', 'usage'],
  ['clickhouse', 'mergetree', 'part', 'merge', 'insert', 'final', 'replacing', 'projection', 'materialized', 'codec'],
  ['memory', 'leak', 'heap', 'snapshot', 'garbage', 'allocation', 'profiler', 'closure', 'listener', 'buffer'],
  ['date', 'timezone', 'locale', 'calendar', 'daylight', 'format', 'parse', 'offset', 'utc', 'iso'],
  ['accessibility', 'screenreader', 'aria', 'contrast', 'focus', 'keyboard', 'label', 'landmark', 'tabindex', 'alt'],
  ['cron', 'scheduler', 'job', 'worker', 'backoff', 'idempotent', 'dedupe', 'lock', 'lease', 'heartbeat'],
  ['csv', 'export', 'import', 'encoding', 'delimiter', 'quote', 'header', 'row', 'streaming', 'validation'],
];

const GENERAL: readonly string[] = (
  'we should update the code so that it handles the case where the request fails and then retries with a ' +
  'different configuration I think the problem is in the function that reads the file before the service starts ' +
  'let me check the logs again and look at what changed in the last commit because the behaviour seems different ' +
  'after the refactor the tests pass locally but fail on the server which suggests an environment issue maybe a ' +
  'missing variable or a different version of the library can you run it again with verbose output and share the ' +
  'error message here is a patch that moves the logic into a helper and adds a check for empty input the fix looks ' +
  'good but we also need documentation and a note in the readme about the new option I will open a pull request ' +
  'once the review comments are addressed please keep the public interface stable and avoid breaking callers'
).split(' ');

const OPENERS: readonly string[] = [
  'Looking at this again,',
  'I checked the',
  'The issue with the',
  'Can you explain why the',
  'Here is what I found about the',
  'Next step for the',
  'I refactored the',
  'We still see a problem in the',
  'Summary of the change to the',
  'Quick question about the',
];

export interface GeneratedTurn {
  topic: number;
  content: string;
}

export class TurnGenerator {
  private readonly rng: Rng;

  constructor(seed: number) {
    this.rng = new Rng(seed);
  }

  static get topicCount(): number {
    return TOPICS.length;
  }

  /** A turn of 200-2,000 characters (skewed towards shorter turns, as in real sessions). */
  turn(topic: number): GeneratedTurn {
    const rng = this.rng;
    const words = TOPICS[topic % TOPICS.length]!;
    // Skewed length: half the turns under ~700 characters.
    const target = Math.round(200 + 1800 * Math.pow(rng.next(), 1.6));
    const parts: string[] = [rng.pick(OPENERS), rng.pick(words)];
    let length = parts[0]!.length + parts[1]!.length + 1;
    while (length < target) {
      const w = rng.next() < 0.3 ? rng.pick(words) : rng.pick(GENERAL);
      parts.push(w);
      length += w.length + 1;
      if (rng.next() < 0.07) {
        parts.push('.');
        length += 2;
      }
    }
    return { topic, content: parts.join(' ').replace(/ \./g, '.').slice(0, 2000) };
  }

  /** A short query (2-4 words) from a topic's vocabulary, sometimes with one general word. */
  query(topic: number): string {
    const rng = this.rng;
    const words = TOPICS[topic % TOPICS.length]!;
    const n = rng.range(2, 4);
    const picked = new Set<string>();
    while (picked.size < n) picked.add(rng.pick(words));
    const out = [...picked];
    if (rng.next() < 0.4) out.push(rng.pick(['fix', 'error', 'slow', 'broken', 'config', 'change', 'review', 'failing']));
    return out.join(' ');
  }

  int(maxExclusive: number): number {
    return this.rng.int(maxExclusive);
  }

  next(): number {
    return this.rng.next();
  }
}

/** The same row shape Loom writes to `<db>.conversations`, for the raw-engine baseline. */
export function transcriptRow(namespace: string, threadId: string, msgId: string, role: string, content: string, version: number): Record<string, unknown> {
  const now = Date.now();
  const ts = new Date(now).toISOString().replace('T', ' ').replace('Z', '') + String(version % 1000).padStart(3, '0');
  return {
    namespace,
    thread_id: threadId,
    agent: 'default',
    msg_id: msgId,
    ts,
    role,
    content,
    reasoning: '',
    user_id: 'u' + (version % 17),
    run_id: 'run-' + threadId,
    metadata: '{"client":"bench"}',
    tokens: null,
    is_high: false,
    is_summary: false,
    is_saved: false,
    saved_at: null,
    deleted: false,
    deleted_at: null,
    created_at: new Date(now).toISOString().replace('T', ' ').replace('Z', ''),
    version,
  };
}
