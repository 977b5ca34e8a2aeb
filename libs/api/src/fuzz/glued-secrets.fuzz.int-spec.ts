import { Writable } from 'node:stream';
import * as fc from 'fast-check';
import { createLogger } from '@loom/platform';
import { FUZZ_SECRETS, rowCounts, startTestLoom, uniqueNamespace, type TestLoom } from '../../../testing/src';
import { keyAsNamed } from '../ops/op-dispatcher';

/**
 * Unknown fields whose names hold a secret glued to a name (`a_ghp_…`, `x-sk-…`, `foo.AKIA…`):
 * the detector matches a token only at a token boundary, so the op API checks each part after a
 * separator too (keyAsNamed, shared with the MCP tools' unknown arguments). Through the HTTP API
 * of an embedded Loom whose whole log (debug) is captured.
 */
describe('Unknown fields named with a secret glued to a name [issue 9: fuzz]', () => {
  const seed = Number(process.env['LOOM_FUZZ_SEED'] ?? 20261204);
  const lines: string[] = [];
  let loom: TestLoom;
  let ns: string;

  /** A secret, or a telling piece of one (its first 10 characters), anywhere in `text`. */
  const secretsIn = (text: string) => FUZZ_SECRETS.filter((s) => text.includes(s) || text.includes(s.slice(0, 10)));

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    loom = await startTestLoom({ env: { LOOM_CONVERSATION_TITLER_ENABLED: 'false', LOOM_LOG_LEVEL: 'debug' }, logger: createLogger('gateway', 'debug', sink) });
    ns = uniqueNamespace();
    await loom.record(ns);
  }, 120_000);

  afterAll(async () => loom?.close());

  /** A valid body of each op, but for the unknown fields added to it. */
  const VALID = {
    'conversation.append': { thread_id: 'glued', role: 'user', content: 'never stored' },
    'conversation.search': { query: 'ledger' },
  } as const;
  const SEPARATORS = ['_', '-', '.', '/', ':'] as const;
  /** A plain name: no field of either op (each has a `z` no field name has). */
  const plainName = fc.stringMatching(/^[a-z][a-z0-9]{0,7}$/).map((n) => `z${n}`);
  const glued = fc.tuple(fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,11}$/), fc.constantFrom(...SEPARATORS), fc.constantFrom(...FUZZ_SECRETS)).map(([name, sep, secret]) => `${name}${sep}${secret}`);

  it('CONV-APPEND-01, CONV-SEARCH-01 [issue 9: fuzz]: generated unknown fields with a secret glued after _ - . / : are each refused in one 400, the glued ones withheld, and no secret is echoed or logged', async () => {
    const failures: string[] = [];
    const before = await rowCounts(loom.gateway.runtime.storage);
    const gluedSent = new Set<string>();
    let calls = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...(Object.keys(VALID) as Array<keyof typeof VALID>)),
        fc.uniqueArray(glued, { minLength: 1, maxLength: 3 }),
        fc.uniqueArray(plainName, { maxLength: 2 }),
        async (op, secretKeys, plainKeys) => {
          const body: Record<string, unknown> = { namespace: ns, ...VALID[op] };
          for (const key of [...secretKeys, ...plainKeys]) body[key] = 1;
          const answer = await loom.admin.call(op, body);
          calls++;
          for (const key of secretKeys) gluedSent.add(key.match(/[_\-./:]/)![0]);
          const fields = ((answer.body?.error?.fields ?? []) as Array<{ field: string; message: string }>);
          // Each unknown field named: the plain ones by name, the glued ones as [withheld] (one
          // entry, since the fields of an answer are distinct names).
          const expected = [...plainKeys, '[withheld]'].sort();
          const found: string[] = [];
          if (answer.status !== 400 || answer.body?.error?.code !== 'invalid_input') found.push(`answered ${answer.status}`);
          if (JSON.stringify(fields.map((f) => f.field).sort()) !== JSON.stringify(expected)) found.push(`named ${JSON.stringify(fields.map((f) => f.field))}`);
          if (fields.some((f) => f.message !== 'unknown field')) found.push(`messages ${JSON.stringify(fields.map((f) => f.message))}`);
          if (secretsIn(JSON.stringify(answer.body)).length > 0) found.push('a secret echoed');
          if (found.length > 0) failures.push(`${found.join('; ')}: ${op} ${JSON.stringify([...secretKeys, ...plainKeys])} → ${JSON.stringify(answer.body).slice(0, 300)}`);
        },
      ),
      { seed, numRuns: 40, interruptAfterTimeLimit: 90_000 },
    );
    process.stdout.write(`glued-secret unknown-field fuzz seed ${seed}: ${calls} calls\n`);
    expect(calls).toBeGreaterThan(30);
    // Every separator was tried.
    expect([...gluedSent].sort()).toEqual([...SEPARATORS].sort());
    expect(failures.slice(0, 10)).toEqual([]);
    expect(await rowCounts(loom.gateway.runtime.storage)).toEqual(before);
    expect(secretsIn(lines.join(''))).toEqual([]);
  }, 180_000);

  it('CONV-APPEND-01, CONV-SEARCH-01 [issue 9: fuzz]: hand-picked glued secrets are withheld, plain names and a secret far past the 64 characters shown are not', async () => {
    const [ghp, skKey, akia] = FUZZ_SECRETS;
    for (const key of [`a_${ghp}`, `x-${skKey}`, `foo.${akia}`, `dir/${ghp}`, `k:${skKey}`, `${'n'.repeat(50)}_${ghp}`]) expect([key, keyAsNamed(key)]).toEqual([key, '[withheld]']);
    expect(['limt', 'thread-id', 'a.b', `${'n'.repeat(300)}_${ghp}`].map(keyAsNamed)).toEqual(['limt', 'thread-id', '"a.b"', JSON.stringify(`${'n'.repeat(64)}…`)]);
    const answer = await loom.admin.call('conversation.search', { namespace: ns, query: 'ledger', limt: 2, [`a_${ghp}`]: 1, [`foo.${akia}`]: 3 });
    expect([answer.status, answer.body.error.message, answer.body.error.fields]).toEqual([
      400,
      'invalid input: limt, [withheld]',
      [
        { field: 'limt', message: 'unknown field' },
        { field: '[withheld]', message: 'unknown field' },
      ],
    ]);
    expect(secretsIn(JSON.stringify(answer.body))).toEqual([]);
    expect(secretsIn(lines.join(''))).toEqual([]);
  }, 60_000);
});
