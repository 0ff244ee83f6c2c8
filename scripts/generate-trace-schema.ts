/**
 * `npm run schema`: writes the published JSON Schema and the validators compiled from it, both
 * built by devkit/traceSchema.ts from the zod schemas of the canonical trace format.
 */
import { writeFileSync } from 'node:fs';
import { buildTraceSchemaText, buildValidatorsModuleText, schemaPath, validatorsPath } from '../devkit/traceSchema';

writeFileSync(schemaPath, buildTraceSchemaText());
writeFileSync(validatorsPath, buildValidatorsModuleText());
console.log(`wrote ${schemaPath} and ${validatorsPath}`);
