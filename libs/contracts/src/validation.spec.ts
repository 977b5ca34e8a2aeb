import { getMetadataStorage } from 'class-validator';
import { plainToInstance } from 'class-transformer';
import { isStrictIsoTime } from './common.dto';
import { LoomError } from './errors';
import { rawJsonDepth } from './json-shape';
import { Limits } from './limits';
import { Ops, OpNames } from './ops';
import { validateInput } from './validate';
import { AppendTurnRequest, CreateThreadRequest } from './conversations/conversation.dto';
import { ListSavedMessagesRequest, SaveMessageRequest } from './conversations/saved.dto';
import { BriefGetRequest, BriefSaveRequest } from './briefs/brief.dto';
import { RecallRequest, SetFromMessagesRequest } from './memory/memory.dto';
import { RunCompleteRequest, RunListRequest, RunReportUsageRequest } from './runs/run.dto';
import { ObserveRecordRequest } from './observe/observe.dto';
import { ErasureRequest } from './erasure/erasure.dto';
import { TrackerSourceRegisterRequest } from './tracker/tracker.dto';

const append = { thread_id: 't', role: 'user', content: 'hello' };

describe('validation classes [issue 9: validation]', () => {
  describe('numbers', () => {
    it('CONV-APPEND-02 [issue 9: tokens 1e21]: tokens past UInt32 are refused, also the values that wrapped modulo 2^32', () => {
      for (const tokens of [1e21, 2 ** 32, 2 ** 32 + 5, Number.MAX_SAFE_INTEGER, -1, 1.5]) {
        expect(fields(() => validateInput(AppendTurnRequest, { ...append, tokens }))).toEqual(['tokens']);
      }
      expect(validateInput(AppendTurnRequest, { ...append, tokens: Limits.maxUInt32 }).tokens).toBe(Limits.maxUInt32);
    });

    it('[issue 9: brief_get revision 1e21] a revision past UInt32 is refused', () => {
      expect(fields(() => validateInput(BriefGetRequest, { revision: 1e21 }))).toEqual(['revision']);
      expect(fields(() => validateInput(BriefGetRequest, { revision: 2 ** 32 }))).toEqual(['revision']);
      expect(fields(() => validateInput(BriefSaveRequest, { if_revision: 2 ** 32 }))).toEqual(['if_revision']);
    });

    it('SAVED-LIST [issue 9: list_saved_messages limit 1000000] a limit over 200 is refused', () => {
      expect(fields(() => validateInput(ListSavedMessagesRequest, { user_id: 'u1', limit: 1_000_000 }))).toEqual(['limit']);
    });

    it('an integer past 2^53 anywhere, metadata included, is refused by name', () => {
      expect(fields(() => validateInput(AppendTurnRequest, { ...append, metadata: { n: 2 ** 60 } }))).toEqual(['metadata.n']);
    });

    it('every number of every op request (nested classes included) has a lower and an upper bound', () => {
      const unbounded: string[] = [];
      for (const op of OpNames) {
        for (const { cls, path } of requestClasses(Ops[op].request as new () => object, op)) {
          const metas = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
          const props = new Set(metas.filter((m) => m.name === 'isInt' || m.name === 'isNumber').map((m) => m.propertyName));
          for (const prop of props) {
            const names = metas.filter((m) => m.propertyName === prop).map((m) => m.name);
            // settings.set's value is range-checked per key by the settings service.
            if (op === 'settings.set' && prop === 'value') continue;
            if (!names.includes('min') || !names.includes('max')) unbounded.push(`${path}.${prop}`);
          }
        }
      }
      expect(unbounded).toEqual([]);
      // The walk reaches the nested classes (a usage report's token counts are numbers too).
      expect(requestClasses(RunReportUsageRequest, 'run.report_usage').map((c) => c.cls.name)).toEqual(['RunReportUsageRequest', 'UsageReport']);
    });
  });

  describe('strings', () => {
    it('[issue 9: lone surrogate] a lone surrogate is named wherever it is: content, ids, metadata values and keys, nested arrays', () => {
      expect(fields(() => validateInput(AppendTurnRequest, { ...append, content: 'a\ud800b' }))).toEqual(['content']);
      expect(fields(() => validateInput(AppendTurnRequest, { ...append, msg_id: '\udc00' }))).toEqual(['msg_id']);
      expect(fields(() => validateInput(AppendTurnRequest, { ...append, reasoning: 'x\ud83d' }))).toEqual(['reasoning']);
      expect(fields(() => validateInput(AppendTurnRequest, { ...append, metadata: { a: { b: ['ok', '\ud800'] } } }))).toEqual(['metadata.a.b.1']);
      expect(fields(() => validateInput(AppendTurnRequest, { ...append, metadata: { ['k\ud800']: 1 } }))).toEqual(['metadata."k\ufffd"']);
      expect(fields(() => validateInput(SetFromMessagesRequest, { messages: [{ role: 'user', content: 'ok' }, { role: 'user', content: '\udfff' }] }))).toEqual(['messages.1.content']);
      expect(fields(() => validateInput(RunReportUsageRequest, { run_id: 'r', reports: [{ usage_id: '\ud800', model: 'm', input_tokens: 1, output_tokens: 1 }] }))).toEqual(['reports.0.usage_id']);
      expect(fields(() => validateInput(BriefSaveRequest, { events: [{ kind: 'note', text: '\ud800' }] }))).toEqual(['events.0.text']);
      expect(fields(() => validateInput(ObserveRecordRequest, { session_id: 's', observations: [{ obs_id: 'o', tool: 'Bash', summary: '\ud800' }] }))).toEqual(['observations.0.summary']);
    });

    it('[issue 9: name each bad field] a broken value and a field rule broken elsewhere are both named', () => {
      expect(fields(() => validateInput(AppendTurnRequest, { thread_id: 't', role: 'narrator', content: '\ud800' })).sort()).toEqual(['content', 'role']);
      expect(fields(() => validateInput(AppendTurnRequest, { thread_id: 't', content: 'x', metadata: JSON.parse('{"constructor":1}') as object })).sort()).toEqual(['metadata.constructor', 'role']);
      expect(fields(() => validateInput(AppendTurnRequest, JSON.parse('{"thread_id":"t","role":"user","content":"x","__proto__":{"polluted":1}}') as object))).toEqual(['__proto__']);
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
      // An odd key (quoted in the error) holding a value nested far too deep: named, never recursed into.
      const deep = JSON.parse(`{"thread_id":"t","role":"user","content":"x","role ":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}`) as object;
      expect(fields(() => validateInput(AppendTurnRequest, deep))).toEqual([expect.stringMatching(/^"role "\.a\.a/), '"role "']);
    });

    it('RUNS-01 [issue 13 item 6: pull_requests] one answer names every bad field of every item, dotted (pull_requests.1.number), each with the message of its own failure', () => {
      const error = capture(() =>
        validateInput(RunCompleteRequest, {
          run_id: 'r',
          status: 'finished',
          pull_requests: [{ number: 1 }, { number: 2 ** 60, url: 'ftp://x' }, { number: '5', repository: '../etc' }, { number: 0, extra: 1 }, { number: 1.5, url: 'http://x\ud800' }, { number: 3, nested: JSON.parse('['.repeat(100) + ']'.repeat(100)) }],
        }),
      );
      const byField = Object.fromEntries((error.fields ?? []).map((f) => [f.field, f.message]));
      expect(Object.keys(byField).sort()).toEqual([
        'pull_requests.1.number', 'pull_requests.1.url', 'pull_requests.2.number', 'pull_requests.2.repository', 'pull_requests.3.extra', 'pull_requests.3.number',
        'pull_requests.4.number', 'pull_requests.4.url', 'pull_requests.5.nested', `pull_requests.5.nested${'.0'.repeat(Limits.maxJsonDepth - 3)}`, 'status',
      ].sort());
      expect(byField['pull_requests.1.number']).toMatch(/not be greater than 2147483647/);
      expect(byField['pull_requests.2.number']).toMatch(/must be an integer/);
      expect(byField['pull_requests.3.number']).toMatch(/not be less than 1/);
      expect(byField['pull_requests.3.extra']).toBe('unknown field');
      expect(byField['pull_requests.4.number']).toMatch(/must be an integer/);
      expect(byField['pull_requests.4.url']).toMatch(/well-formed Unicode/);
      expect(byField['status']).toMatch(/must be one of/);
      // No bracket paths anywhere: one convention across the API.
      expect((error.fields ?? []).filter((f) => f.field.includes('['))).toEqual([]);
    });

    it('[issue 9: validation] a value of the wrong kind is named by its kind rule, not by a range or size rule that also fails on it', () => {
      const error = capture(() => validateInput(RunCompleteRequest, { run_id: 'r', status: 'succeeded', wrote: 'a.ts', memories_used: [1] }));
      const byField = Object.fromEntries((error.fields ?? []).map((f) => [f.field, f.message]));
      expect(byField['wrote']).toMatch(/must be an array/);
      expect(byField['memories_used']).toMatch(/must be a string/);
      expect(fields(() => validateInput(AppendTurnRequest, { ...append, tokens: '12' }))).toEqual(['tokens']);
      expect(capture(() => validateInput(AppendTurnRequest, { ...append, tokens: '12' })).fields?.[0]?.message).toMatch(/must be an integer/);
    });

    it('TRACKER-01 [issue 13: mapping sections] an optional mapping section that is an array, text, a number or null is named once, as a section, not by its items', () => {
      const { mapping, connection } = TrackerSourceRegisterRequest.example;
      for (const value of [[], [{ ...mapping.incidents }], [{ table: 'x' }], 'incidents', 5, null]) {
        for (const section of ['incidents', 'duplicate_links', 'pr_links', 'ci_runs']) {
          const error = capture(() => validateInput(TrackerSourceRegisterRequest, { connection, mapping: { ...mapping, [section]: value } }));
          expect([section, value, (error.fields ?? []).map((f) => f.field)]).toEqual([section, value, [`mapping.${section}`]]);
          expect(error.fields?.[0]?.message).toMatch(/must be an object/);
        }
      }
    });

    it('a well-formed surrogate pair (an emoji) is taken', () => {
      expect(validateInput(AppendTurnRequest, { ...append, content: '👍', metadata: { '👍': '👍' } }).content).toBe('👍');
    });
  });

  describe('dates', () => {
    it.each(['1', '2026-02-30', '+275760-09-13T00:00:00Z', '2026-11-29T24:00:00Z', '2026-11-29T10:00:00', 'yesterday', '2026-13-01', '1899-12-31', '2300-01-01', '2026-11-29 10:00:00Z'])(
      '[issue 9: lenient dates] %j is not a strict ISO 8601 time',
      (since) => {
        expect(fields(() => validateInput(RecallRequest, { since }))).toEqual(['since']);
        expect(fields(() => validateInput(RunListRequest, { since }))).toEqual(['since']);
        expect(fields(() => validateInput(ObserveRecordRequest, { session_id: 's', observations: [{ obs_id: 'o', tool: 'Bash', summary: 'x', ts: since }] }))).toEqual(['observations.0.ts']);
      },
    );

    it.each(['2026-11-29', '2024-02-29', '2026-11-29T10:00Z', '2026-11-29T10:00:00Z', '2026-11-29T10:00:00.123Z', '2026-11-29T10:00:00.123456+02:00', new Date().toISOString()])(
      '%j is a strict ISO 8601 time',
      (value) => expect(isStrictIsoTime(value)).toBe(true),
    );
  });

  describe('depth and size', () => {
    it('[issue 9: JSON nested 5,000 deep] any op refuses a body nested 5,000 deep with a 400, not a stack overflow', () => {
      const deep = JSON.parse('['.repeat(5000) + ']'.repeat(5000)) as unknown;
      for (const op of OpNames) {
        const error = capture(() => validateInput(Ops[op].request as new () => object, { x: deep }));
        expect(error.code).toBe('invalid_input');
        expect(error.fields?.[0]?.message).toMatch(/nested deeper than/);
      }
    });

    it('[issue 9: metadata nested 1,000 deep] metadata deeper than the bound is refused, and one at the bound is taken', () => {
      const nest = (levels: number): unknown => { let v: unknown = 1; for (let i = 0; i < levels; i++) v = { a: v }; return v; };
      expect(fields(() => validateInput(AppendTurnRequest, { ...append, metadata: nest(1000) }))[0]).toMatch(/^metadata/);
      expect(fields(() => validateInput(CreateThreadRequest, { metadata: nest(Limits.maxMetadataDepth + 1) }))).toEqual(['metadata']);
      expect(validateInput(CreateThreadRequest, { metadata: nest(Limits.maxMetadataDepth) }).metadata).toBeDefined();
      expect(fields(() => validateInput(CreateThreadRequest, { metadata: { big: 'x'.repeat(Limits.maxMetadataChars) } }))).toEqual(['metadata']);
    });

    it('rawJsonDepth reads the nesting of JSON text, brackets inside strings aside', () => {
      expect(rawJsonDepth('{"a":[{"b":"[[[[["}]}', 100)).toBe(3);
      expect(rawJsonDepth('{"a":"\\"[["}', 100)).toBe(1);
      expect(rawJsonDepth('['.repeat(100_000), 40)).toBe(41);
    });
  });

  describe('keys and nulls', () => {
    it.each(['constructor', '__proto__', 'prototype'])('[issue 9: metadata key constructor] a %s key is refused by name, in metadata or the body', (key) => {
      const metadata = JSON.parse(`{"${key}": {"x": 1}}`) as Record<string, unknown>;
      expect(fields(() => validateInput(AppendTurnRequest, { ...append, metadata }))).toEqual([`metadata.${key}`]);
      expect(fields(() => validateInput(AppendTurnRequest, JSON.parse(`{"thread_id":"t","role":"user","content":"x","${key}":1}`)))).toEqual([key]);
    });

    it('[issue 9: user_id null] no request class uses class-validator\'s IsOptional (which takes null as left out): Optional() from common.dto', () => {
      const lenient: string[] = [];
      for (const op of OpNames) {
        for (const { cls, path } of requestClasses(Ops[op].request as new () => object, op)) {
          for (const m of getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false)) if (m.name === 'isOptional') lenient.push(`${path}.${m.propertyName}`);
        }
      }
      expect(lenient).toEqual([]);
    });

    it('[issue 9: user_id null] null is not "left out": user_id: null is refused, on every op that takes a user', () => {
      expect(fields(() => validateInput(SaveMessageRequest, { user_id: null, conversation_id: 'c', message_id: 'm' }))).toEqual(['user_id']);
      expect(fields(() => validateInput(ErasureRequest, { user_id: null }))).toEqual(['user_id']);
      expect(fields(() => validateInput(AppendTurnRequest, { ...append, user_id: null }))).toEqual(['user_id']);
    });

    it('[issue 9: metadata key constructor] a key is named only for the error that names it: a sound body names none (naming can run the detector), a bad nested one names its whole path', () => {
      const named: string[] = [];
      const nameKey = (key: string): string => {
        named.push(key);
        return key;
      };
      validateInput(AppendTurnRequest, { ...append, metadata: { a: { b: [1, 'x'] } } }, nameKey);
      expect(named).toEqual([]);
      expect(fields(() => validateInput(AppendTurnRequest, { ...append, metadata: { a: { b: [1, '\ud800'] } } }, nameKey))).toEqual(['metadata.a.b.1']);
      expect(named).toEqual(['metadata', 'a', 'b']);
    });
  });
});

/** The op's request class and every class nested in it (by @ValidateNested and @Type). */
function requestClasses(cls: new () => object, path: string): Array<{ cls: new () => object; path: string }> {
  const out = [{ cls, path }];
  const nested = getMetadataStorage()
    .getTargetValidationMetadatas(cls, '', true, false)
    .filter((m) => m.type === 'nestedValidation');
  for (const { propertyName } of nested) {
    // The class a field holds, found the public way: by transforming an empty one.
    const value = (plainToInstance(cls, { [propertyName]: [{}] }) as Record<string, unknown>)[propertyName];
    const element = (Array.isArray(value) ? value[0] : value) as object;
    out.push(...requestClasses(element.constructor as new () => object, `${path}.${propertyName}`));
  }
  return out;
}

function fields(fn: () => unknown): string[] {
  return capture(fn).fields?.map((f) => f.field) ?? [];
}

function capture(fn: () => unknown): LoomError {
  try {
    fn();
  } catch (error) {
    if (error instanceof LoomError) return error;
    throw error;
  }
  throw new Error('expected a LoomError');
}
