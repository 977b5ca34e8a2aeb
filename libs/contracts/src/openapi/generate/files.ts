import { join } from 'node:path';
import type { WireSchemaSet } from '../json-schema';
import { findRepoRoot, generateWireSchemas } from './wire-schemas';

export interface GeneratedFile {
  path: string;
  text: string;
}

/** Every file generated from the contracts, with the text it must hold. */
export function generatedFiles(root: string = findRepoRoot()): GeneratedFile[] {
  const wire = generateWireSchemas(root);
  return [{ path: join(root, 'libs', 'contracts', 'src', 'openapi', 'wire-schemas.generated.ts'), text: wireSchemasFile(wire) }];
}

function wireSchemasFile(wire: WireSchemaSet): string {
  return [
    '// Generated from the TypeScript types of the contracts by `npm run generate:wire`',
    '// (libs/contracts/src/openapi/generate). Do not edit: change the types and run it again.',
    "import type { WireSchemaSet } from './json-schema';",
    '',
    `export const WireSchemas: WireSchemaSet = ${JSON.stringify(wire, null, 2)};`,
    '',
  ].join('\n');
}
