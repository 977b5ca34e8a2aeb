import { EmbedBatchRequest } from './embed/embed.dto';
import { ErasureRequestedEvent } from './erasure/erasure.dto';
import { LoomError } from './errors';
import { Ops, OpNames } from './ops';
import { validateInput } from './validate';
import { AppendTurnRequest, CompactRunRequest, CompactThreadRequest } from './conversations/conversation.dto';
import { BriefReviseRequest, BriefSaveRequest } from './briefs/brief.dto';
import { MemoryExtractionRequestedEvent } from './memory/memory.dto';
import { DurableWork, Subjects } from './subjects';

describe('contracts', () => {
  it.each(OpNames)('the example of %s passes its own validator', (name) => {
    const type = Ops[name].request as unknown as { new (): object; example: object };
    expect(() => validateInput(type, JSON.parse(JSON.stringify(type.example)))).not.toThrow();
  });

  it('the example of loom.embed.batch.v1 passes its validator', () => {
    expect(validateInput(EmbedBatchRequest, { ...EmbedBatchRequest.example }).texts).toHaveLength(1);
  });

  it('the example of loom.compact.run.v1 passes its validator, its request passes the op\'s, and a payload without an agent does not', () => {
    const run = validateInput(CompactRunRequest, JSON.parse(JSON.stringify(CompactRunRequest.example)));
    expect(validateInput(CompactThreadRequest, run.request).thread_id).toBe('thread-42');
    expect(capture(() => validateInput(CompactRunRequest, { namespace: 'acme', request: {} })).fields?.map((f) => f.field)).toEqual(['agent']);
  });

  it('the example of loom.erasure.requested.v1 passes its validator, and a payload without an id does not', () => {
    expect(validateInput(ErasureRequestedEvent, { ...ErasureRequestedEvent.example }).erasure_id).toBe('era_1');
    expect(capture(() => validateInput(ErasureRequestedEvent, { namespace: 'acme' })).fields?.map((f) => f.field)).toEqual(['erasure_id']);
  });

  it('[issue 11: durable events] the example of loom.brief.revise.v1 passes its validator, its request passes session.brief_save\'s, and a scope that is not one is named', () => {
    const run = validateInput(BriefReviseRequest, JSON.parse(JSON.stringify(BriefReviseRequest.example)));
    expect(validateInput(BriefSaveRequest, run.request).brief_key).toBe('loom/main');
    expect(capture(() => validateInput(BriefReviseRequest, { namespace: 'acme', agent: 'default', scope: { bounded: 'yes' }, request: {} })).fields?.map((f) => f.field)).toEqual(['scope.bounded']);
  });

  it('[issue 11: durable events] a loom.brief.revise.v1 scope that is no object (an array of scopes, an empty array, text, null) is named once, as scope, not by its items', () => {
    for (const scope of [[], [{ bounded: false }], [{ bounded: 'yes' }], 'bounded', 5, null]) {
      const error = capture(() => validateInput(BriefReviseRequest, { namespace: 'acme', agent: 'default', scope, request: {} }));
      expect([scope, (error.fields ?? []).map((f) => f.field), error.fields?.[0]?.message]).toEqual([scope, ['scope'], expect.stringMatching(/must be an object/)]);
    }
  });

  it('[issue 11: durable events] the example of loom.memory.extraction-requested.v1 passes its validator, a payload without an id does not, and both durable subjects are on the work stream', () => {
    expect(validateInput(MemoryExtractionRequestedEvent, { ...MemoryExtractionRequestedEvent.example }).extraction_id).toBe('ext_1');
    expect(capture(() => validateInput(MemoryExtractionRequestedEvent, { namespace: 'acme' })).fields?.map((f) => f.field)).toEqual(['extraction_id']);
    expect(Object.keys(DurableWork.subjects).sort()).toEqual([Subjects.erasureRequested, Subjects.memoryExtractionRequested].sort());
  });

  it('CONV-APPEND-01: a missing thread_id, role and content are each named, and a role outside the four is refused', () => {
    const error = capture(() => validateInput(AppendTurnRequest, { role: 'narrator', metadata: 'x' }));
    expect(error.code).toBe('invalid_input');
    expect(error.fields?.map((f) => f.field).sort()).toEqual(['content', 'metadata', 'role', 'thread_id']);
    expect(error.fields?.find((f) => f.field === 'role')?.message).toBe('role must be one of user, assistant, system, tool');
  });

  it('an unknown field is named, not ignored', () => {
    const error = capture(() => validateInput(AppendTurnRequest, { thread_id: 't', role: 'user', content: 'x', 'thread-id': 't' }));
    expect(error.fields).toEqual([{ field: 'thread-id', message: 'unknown field' }]);
  });

  it('a body that is not an object is refused', () => {
    expect(capture(() => validateInput(AppendTurnRequest, [1, 2])).code).toBe('invalid_input');
  });
});

function capture(fn: () => unknown): LoomError {
  try {
    fn();
  } catch (error) {
    if (error instanceof LoomError) return error;
    throw error;
  }
  throw new Error('expected a LoomError');
}
