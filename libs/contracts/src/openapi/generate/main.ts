// `npm run generate:wire`: rewrites the files generated from the contracts. A unit test
// (openapi/generated-files.spec.ts) fails while any of them is stale.
import { writeFileSync } from 'node:fs';
import { generatedFiles } from './files';

for (const file of generatedFiles()) {
  writeFileSync(file.path, file.text);
  process.stdout.write(`wrote ${file.path}\n`);
}
