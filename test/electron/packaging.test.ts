/**
 * The installers `npm run dist` builds (electron-builder.json): the configuration is valid for
 * electron-builder (its own JSON schema, app-builder-lib/scheme.json, checked by Ajv), and says
 * what a user meets: an installer for each platform, `.jsonl` files opening in Loopscope, the
 * icon, and an app that contains the built main process, preload and page. No installer is built
 * here (that needs the Electron download: docs/desktop.md); the checks of the built files need
 * `npm run build`.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, matchesGlob } from 'node:path';
import { inflateSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { repoRoot } from '../../devkit/repoPaths';

const configPath = join(repoRoot, 'electron-builder.json');
const config = JSON.parse(readFileSync(configPath, 'utf8')) as Record<string, unknown>;
const packageJson = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { main: string; scripts: Record<string, string> };

// electron-builder's schema is generated from its TypeScript types and uses keywords Ajv's strict mode refuses.
const schema = JSON.parse(readFileSync(join(repoRoot, 'node_modules', 'app-builder-lib', 'scheme.json'), 'utf8')) as object;
const validateConfiguration = new Ajv({ allErrors: true, strict: false }).compile(schema);

function validationErrors(candidate: unknown): string[] {
  return validateConfiguration(candidate) ? [] : (validateConfiguration.errors ?? []).map((error) => `${error.instancePath} ${error.message ?? ''}`);
}

/** A section of the configuration, e.g. `linux`, as an object. */
function section(name: string): Record<string, unknown> {
  const value = config[name];
  assert.ok(typeof value === 'object' && value !== null, `electron-builder.json has a "${name}" section`);
  return value as Record<string, unknown>;
}

/** Whether the packaged app holds `path`: the last of the `files` patterns that matches it decides, as in electron-builder. */
function packaged(path: string): boolean {
  const patterns = config['files'] as string[];
  let included = false;
  for (const pattern of patterns) {
    if (pattern.startsWith('!')) {
      if (matchesGlob(path, pattern.slice(1))) included = false;
    } else if (matchesGlob(path, pattern)) {
      included = true;
    }
  }
  return included;
}

describe('the electron-builder configuration', () => {
  it("is valid against electron-builder's own schema", () => {
    assert.deepEqual(validationErrors(config), []);
  });

  it('would be refused with a wrong type or a misspelt option (the check is live)', () => {
    assert.notDeepEqual(validationErrors({ ...config, appId: 42 }), []);
    assert.notDeepEqual(validationErrors({ ...config, linux: { ...section('linux'), targets: ['AppImage'] } }), []);
  });

  it('names the app Loopscope with its own application id', () => {
    assert.equal(config['productName'], 'Loopscope');
    assert.equal(config['appId'], 'dev.loopscope.app');
  });

  it('builds an AppImage and a .deb for Linux, a .dmg for macOS and an NSIS installer for Windows', () => {
    const linux = section('linux');
    assert.deepEqual(linux['target'], ['AppImage', 'deb']);
    assert.equal(linux['category'], 'Development');
    assert.match(String(linux['maintainer']), /\S+ <\S+@\S+>/, 'a .deb needs a maintainer with an e-mail address');
    const mac = section('mac');
    assert.deepEqual(mac['target'], ['dmg']);
    assert.equal(mac['category'], 'public.app-category.developer-tools');
    assert.deepEqual(section('win')['target'], ['nsis']);
  });

  it('makes .jsonl files open in Loopscope as a viewer', () => {
    const associations = config['fileAssociations'] as { ext: string; name: string; role?: string }[];
    const jsonl = associations.find((association) => association.ext === 'jsonl');
    assert.ok(jsonl, 'a .jsonl file association');
    assert.equal(jsonl.name, 'JSONL trace');
    assert.equal(jsonl.role, 'Viewer');
  });

  it('packs the built main process, preload and page, and starts on the main entry', () => {
    const extraMetadata = config['extraMetadata'] as { main?: string } | undefined;
    const main = extraMetadata?.main ?? packageJson.main;
    assert.equal(main, 'out/main/index.js');
    for (const path of [
      main,
      'out/main/storeWorker.js',
      'out/preload/index.cjs',
      'out/renderer/index.html',
      'out/renderer/assets/RunView-DdSWmrg9.js',
      'package.json',
    ]) {
      assert.ok(packaged(path), `${path} is in the packaged app`);
    }
    assert.equal(packaged('src-main/electron/main.ts'), false, 'sources stay out');
  });

  it('points at files the build really writes', () => {
    for (const path of [packageJson.main, 'out/preload/index.cjs', 'out/renderer/index.html']) {
      assert.ok(existsSync(join(repoRoot, path)), `${path} exists (run \`npm run build\` first)`);
    }
  });

  it('is the configuration `npm run dist` builds with, after the build', () => {
    assert.equal(packageJson.scripts['dist'], 'npm run build && electron-builder --config electron-builder.json');
  });
});

describe('the app icon', () => {
  const buildResources = section('directories')['buildResources'];
  const iconPath = join(repoRoot, String(buildResources), 'icon.png');

  it('is a PNG of at least 512×512 in the build resources, where electron-builder makes every size from it', () => {
    assert.equal(buildResources, 'build');
    const bytes = readFileSync(iconPath);
    assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'the PNG signature');
    assert.equal(bytes.toString('latin1', 12, 16), 'IHDR');
    const width = bytes.readUInt32BE(16);
    const height = bytes.readUInt32BE(20);
    assert.equal(width, height, 'square');
    assert.ok(width >= 512, `${width}×${height} is at least 512×512`);
  });

  it('decodes: its image data holds every row of 8-bit RGBA pixels', () => {
    const bytes = readFileSync(iconPath);
    const width = bytes.readUInt32BE(16);
    const height = bytes.readUInt32BE(20);
    assert.equal(bytes.readUInt8(24), 8, 'bit depth');
    assert.equal(bytes.readUInt8(25), 6, 'colour type RGBA (transparent corners)');
    const imageData: Buffer[] = [];
    for (let offset = 8; offset < bytes.length;) {
      const length = bytes.readUInt32BE(offset);
      if (bytes.toString('latin1', offset + 4, offset + 8) === 'IDAT') imageData.push(bytes.subarray(offset + 8, offset + 8 + length));
      offset += 12 + length;
    }
    assert.equal(inflateSync(Buffer.concat(imageData)).length, height * (1 + width * 4));
  });
});
