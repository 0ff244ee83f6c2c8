/**
 * Writes shared/otel/genAiRegistry.ts: the attributes of the pinned OpenTelemetry semantic
 * conventions that the OTLP exporter (src-main/otlp/otlpExport.ts) may emit, with their types, read
 * from the semantic-conventions repository at its release tag (docs/otlp.md, "Exporting to
 * OpenTelemetry"). The test checks every attribute the exporter writes against the written file, so
 * it needs no copy of the repository.
 *
 *   npx tsx scripts/generate-genai-registry.ts [SEMCONV_GIT_DIR]
 *
 * SEMCONV_GIT_DIR defaults to the local mirror (a bare clone); it is read with `git show`. The
 * registry YAML is read by a reader of exactly its shape (attribute items with an `id`, a `type`
 * that is a name or an enum's `members` with their `value`s), so no YAML library is needed.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { repoRoot } from '../devkit/repoPaths';

/** v1.41.1: the last release with the GenAI conventions in the main repository (from v1.42.0 they live in semantic-conventions-genai). */
const TAG = 'v1.41.1';
const DEFAULT_MIRROR = '/work/.mirror/open-telemetry+semantic-conventions/repo';

/** The registries read: all of gen_ai's, and of the others the attributes the exporter uses. */
const registries: readonly { file: string; only?: readonly string[] }[] = [
  { file: 'model/gen-ai/registry.yaml' },
  { file: 'model/error/registry.yaml', only: ['error.type'] },
  { file: 'model/service/registry.yaml', only: ['service.name'] },
  { file: 'model/http/registry.yaml', only: ['http.response.status_code'] },
];

interface RegistryAttribute {
  name: string;
  type: string;
  /** An enum's well-known values (the type is then `string`). */
  members: string[];
}

function git(gitDir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', gitDir, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

/** The attributes of one registry file: each `- id:` item under `attributes:`, its `type` and enum members. */
function readRegistry(yaml: string, file: string): RegistryAttribute[] {
  const attributes: RegistryAttribute[] = [];
  let current: RegistryAttribute | null = null;
  let itemIndent = -1;
  let inMembers = false;
  for (const line of yaml.split('\n')) {
    const indent = /^(\s*)/.exec(line)![1]!.length;
    const item = /^\s*- id: ([a-z][\w.]*)\s*$/.exec(line);
    // The first attribute item (under a group's `attributes:`) fixes the indentation of the others;
    // enum members are items too, but deeper.
    if (item !== null && (itemIndent === -1 ? line.startsWith('      - ') : indent === itemIndent)) {
      itemIndent = indent;
      inMembers = false;
      current = { name: item[1]!, type: '', members: [] };
      attributes.push(current);
      continue;
    }
    if (current === null) continue;
    if (line.trim() !== '' && indent <= itemIndent) {
      current = null;
      inMembers = false;
      continue;
    }
    const type = /^\s*type:\s*(\S*)\s*$/.exec(line);
    if (type !== null && indent === itemIndent + 2) {
      current.type = type[1] === '' ? 'string' : type[1]!;
      continue;
    }
    if (/^\s*members:\s*$/.test(line)) inMembers = true;
    const value = /^\s*value:\s*"?([^"\s]+)"?\s*$/.exec(line);
    if (inMembers && value !== null) current.members.push(value[1]!);
  }
  for (const attribute of attributes) if (attribute.type === '') throw new Error(`${file}: ${attribute.name} has no type`);
  return attributes;
}

/** The schema file of the release, or the nearest earlier one the tag lists (a patch release may have none). */
function schemaVersion(gitDir: string): string {
  const wanted = TAG.slice(1).split('.').map(Number);
  const listed = git(gitDir, 'ls-tree', '--name-only', TAG, 'schemas/')
    .split('\n')
    .map((path) => path.replace(/^schemas\//, ''))
    .filter((version) => /^\d+\.\d+\.\d+$/.test(version));
  const atOrBefore = listed
    .map((version) => ({ version, parts: version.split('.').map(Number) }))
    .filter(({ parts }) => compareVersions(parts, wanted) <= 0)
    .sort((a, b) => compareVersions(b.parts, a.parts));
  if (atOrBefore[0] === undefined) throw new Error(`no schema file at or before ${TAG}`);
  return atOrBefore[0].version;
}

function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let index = 0; index < 3; index += 1) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

async function main(): Promise<void> {
  const gitDir = process.argv[2] ?? DEFAULT_MIRROR;
  const commit = git(gitDir, 'rev-parse', `${TAG}^{commit}`).trim();
  const attributes = registries.flatMap(({ file, only }) => {
    const read = readRegistry(git(gitDir, 'show', `${TAG}:${file}`), file);
    if (only === undefined) return read;
    const picked = read.filter((attribute) => only.includes(attribute.name));
    if (picked.length !== only.length)
      throw new Error(`${file}: missing ${only.filter((name) => !picked.some((attribute) => attribute.name === name)).join(', ')}`);
    return picked;
  });
  const byName = new Map(attributes.map((attribute) => [attribute.name, attribute]));
  const schema = schemaVersion(gitDir);
  const membersOf = (name: string): string[] => byName.get(name)?.members ?? [];
  const lines = [
    '/**',
    ` * The OpenTelemetry semantic conventions the OTLP exporter follows, pinned: ${TAG} (commit ${commit}),`,
    ' * the last release with the GenAI conventions in open-telemetry/semantic-conventions. Generated by',
    ' * scripts/generate-genai-registry.ts from model/gen-ai/registry.yaml and, of the other registries,',
    ` * the attributes the exporter uses (${registries
      .filter((registry) => registry.only)
      .flatMap((registry) => registry.only!)
      .join(', ')}). Do not edit: run the script.`,
    ' */',
    '',
    `export const semconvVersion = '${TAG.slice(1)}';`,
    `export const semconvCommit = '${commit}';`,
    `/** The release's schema file, or the nearest earlier one it lists (${TAG} lists none of its own). */`,
    `export const semconvSchemaUrl = 'https://opentelemetry.io/schemas/${schema}';`,
    '',
    "export type RegistryAttributeType = 'string' | 'int' | 'double' | 'boolean' | 'string[]' | 'int[]' | 'double[]' | 'boolean[]' | 'any';",
    '',
    '/** Every attribute name of the registries read, with its type (an enum is a `string`). */',
    'export const registryAttributes: Readonly<Record<string, RegistryAttributeType>> = {',
    ...attributes.map((attribute) => `  '${attribute.name}': '${attribute.members.length > 0 ? 'string' : attribute.type}',`),
    '};',
    '',
    '/** `gen_ai.provider.name`: the well-known values. */',
    `export const wellKnownProviderNames: readonly string[] = [${membersOf('gen_ai.provider.name')
      .map((value) => `'${value}'`)
      .join(', ')}];`,
    '',
    '/** `gen_ai.operation.name`: the well-known values. */',
    `export const wellKnownOperationNames: readonly string[] = [${membersOf('gen_ai.operation.name')
      .map((value) => `'${value}'`)
      .join(', ')}];`,
    '',
  ];
  const out = join(repoRoot, 'shared', 'otel', 'genAiRegistry.ts');
  // Written as the formatter would leave it, so lint passes on a freshly generated file.
  writeFileSync(out, await format(lines.join('\n'), { ...(await resolveConfig(out)), filepath: out }));
  console.log(`wrote ${out}: ${attributes.length} attributes of ${TAG} (${commit.slice(0, 8)}), schema ${schema}`);
}

await main();
