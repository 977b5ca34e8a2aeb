import fc from 'fast-check';
import { leaseKey } from './lease';
import { encodeKey } from './nats-kv.leases';

/** Free text as ids arrive: any code point, lone surrogates included, and the escape characters often. */
const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), fc.string({ unit: fc.constantFrom('%', '/', '=', '.', 'a', '\ud800', '\ufffd', 'é'), maxLength: 8 }));

describe('Lease keys [issue 9: principal key collision]', () => {
  it('leaseKey never gives two different part lists the same key', () => {
    fc.assert(
      fc.property(fc.array(text, { minLength: 3, maxLength: 3 }), fc.array(text, { minLength: 3, maxLength: 3 }), (a, b) => {
        if (a.some((p, i) => p !== b[i])) expect(leaseKey(...a)).not.toBe(leaseKey(...b));
      }),
      { numRuns: 5_000 },
    );
  });

  it('the NATS KV encoding never gives two different lease keys the same KV key, and holds only KV-safe characters', () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        if (a !== b) expect(encodeKey(a)).not.toBe(encodeKey(b));
        expect(encodeKey(a)).toMatch(/^[-_a-zA-Z0-9=]*$/);
      }),
      { numRuns: 5_000 },
    );
    // The case Buffer alone would merge: a lone surrogate and the replacement character.
    expect(encodeKey('\ud800')).not.toBe(encodeKey('\ufffd'));
  });
});
