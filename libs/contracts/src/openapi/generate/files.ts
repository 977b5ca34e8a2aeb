import { join } from 'node:path';
import { buildOpenApiDocument } from '../document';
import type { WireSchemaSet } from '../json-schema';
import { sdkTypesFile } from './sdk-types';
import { findRepoRoot, generateWireSchemas } from './wire-schemas';

export interface GeneratedFile {
  path: string;
  text: string;
}

/** Every file generated from the contracts, with the text it must hold. */
export function generatedFiles(root: string = findRepoRoot()): GeneratedFile[] {
  const wire = generateWireSchemas(root);
  // The document from the fresh answer schemas: the SDK's types never lag behind the contracts'.
  const doc = buildOpenApiDocument({ version: 'generated', wire });
  return [
    { path: join(root, 'libs', 'contracts', 'src', 'openapi', 'wire-schemas.generated.ts'), text: wireSchemasFile(wire) },
    { path: join(root, 'libs', 'sdk', 'src', 'wire.generated.ts'), text: sdkTypesFile(doc) },
  ];
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
