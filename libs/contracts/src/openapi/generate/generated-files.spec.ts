import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatedFiles } from './files';
import { generateWireSchemas } from './wire-schemas';

/** A throwaway repository whose contracts hold one op, written as `ops`. */
function fakeContracts(ops: string): string {
  const root = mkdtempSync(join(tmpdir(), 'loom-wire-'));
  mkdirSync(join(root, 'libs', 'contracts', 'src'), { recursive: true });
  writeFileSync(
    join(root, 'libs', 'contracts', 'src', 'ops.ts'),
    `export interface Answer<T extends object> { readonly __answer?: T }\nexport function answers<T extends object>(): Answer<T> { return {}; }\nexport class Req { x?: string }\n${ops}\n`,
  );
  return root;
}

describe('files generated from the contracts [issue 12: OpenAPI]', () => {
  it('[issue 12: every op has its schema] are up to date (else: npm run generate:wire)', () => {
    for (const file of generatedFiles()) expect([file.path, readFileSync(file.path, 'utf8') === file.text]).toEqual([file.path, true]);
  }, 60_000);

  it('[issue 12: every op has its schema] the generator refuses an op that declares no answer type', () => {
    const root = fakeContracts("export const Ops = { 'a.b': { role: 'viewer', request: Req } } as const;");
    try {
      expect(() => generateWireSchemas(root)).toThrow(/op a\.b declares no answer type/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);

  it('[issue 12: no unknown on the wire] the generator refuses an answer type that says unknown or any outside a free-form object', () => {
    const root = fakeContracts(
      "export interface Loose { data: unknown; meta: Record<string, unknown> }\nexport const Ops = { 'a.b': { role: 'viewer', request: Req, response: answers<Loose>() } } as const;",
    );
    try {
      expect(() => generateWireSchemas(root)).toThrow(/\(unknown\/any\): Loose\.data$/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);

  it('[issue 12: answer schemas] the generator turns named interfaces into components, `T | null` into a type list, literal unions into enums and maps into additionalProperties', () => {
    const root = fakeContracts(
      [
        '/** A hit. */',
        "export interface Hit { id: string; score: number | null; mode: 'a' | 'b'; saved: Record<string, boolean>; tags?: string[]; when?: 'x' | null }",
        'export interface Found { hits: Hit[] }',
        "export const Ops = { 'a.b': { role: 'viewer', request: Req, response: answers<Found>() } } as const;",
      ].join('\n'),
    );
    try {
      const wire = generateWireSchemas(root);
      expect(wire.responses).toEqual({ 'a.b': { $ref: '#/components/schemas/Found' } });
      expect(wire.components['Hit']).toEqual({
        description: 'A hit.',
        type: 'object',
        properties: {
          id: { type: 'string' },
          score: { type: ['number', 'null'] },
          mode: { type: 'string', enum: ['a', 'b'] },
          saved: { type: 'object', additionalProperties: { type: 'boolean' } },
          tags: { type: 'array', items: { type: 'string' } },
          when: { type: ['string', 'null'], enum: ['x', null] },
        },
        required: ['id', 'score', 'mode', 'saved'],
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);
});
