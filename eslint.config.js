// @ts-check
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/**
 * Bare Node builtins (`fs`, `path`, `fs/promises`, …); the `node:` prefix is caught by a pattern.
 * @param {string} message
 */
const nodeBuiltinPaths = (message) => builtinModules.map((name) => ({ name, message }));

const sharedMessage = 'shared/ runs in the main process and the renderer: keep it free of Node, Electron, React and SQLite.';
const rendererMessage = 'src-renderer/ is a sandboxed web page: reach Node, Electron and the database only through window.loopscope.';

/**
 * The engine's layers, lowest first. A folder may import the layers before its own and nothing
 * else of the engine: not the other folder of its own layer, no later layer, not the engine's
 * entry (engine.ts, index.ts). Adapters turn bytes into events and know nothing of the store;
 * ingest drives adapters into the store, derive runs the analyses over the store, and neither
 * knows the other; report reads what derive stored; pipeline, workers and the entry put the
 * stages together.
 */
const engineLayers = [['bytes'], ['adapters', 'store'], ['ingest', 'derive'], ['report'], ['pipeline'], ['workers']];

/** The process entry points and transports, each allowed to import only those after it in this list. */
// mcp is a transport like server (the MCP tools over stdio, src-main/mcp/): started by cli, it carries the api.
const appFolders = ['cli', 'electron', 'server', 'mcp', 'htmlReport', 'api'];

/**
 * An import pattern for a sibling folder reached by relative path (`../store/x`, `../../api`);
 * anchored on the `../` run so `shared/analysis` or a file named like a folder does not match.
 * @param {readonly string[]} folders
 * @param {string} message
 */
const foldersPattern = (folders, message) => ({ regex: `^(\\.\\./)+(${folders.join('|')})(/|$)`, message });

/**
 * The engine's entry seen from one of its folders: `..`, `../engine`, `../index`.
 * @param {string} message
 */
const engineEntryPattern = (message) => ({ regex: '^\\.\\.(/\\.\\.)*/?$|^(\\.\\./)+(engine|index)$', message });

const engineOutwardMessage = 'The engine is imported by api/, cli/, electron/ and server/, never the other way round.';
/** Every engine file: no application folder, no Electron. */
const engineOutward = [foldersPattern(appFolders, engineOutwardMessage), { regex: '^electron(/|$)', message: engineOutwardMessage }];

/**
 * Tests and scripts share their helpers (trace generators, the traces the UI tests and screenshots
 * open, the browser driver, the trace schema builder) through devkit/, never by importing each
 * other: devkit/ imports neither, test/ never imports scripts/, scripts/ never imports test/.
 */
const devkitMessage = 'test/ and scripts/ share code through devkit/, never by importing each other.';
const devkitConfigs = [
  { files: ['test/**'], forbidden: ['scripts'] },
  { files: ['scripts/**'], forbidden: ['test'] },
  { files: ['devkit/**'], forbidden: ['scripts', 'test'] },
].map(({ files, forbidden }) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns: [foldersPattern(forbidden, devkitMessage)] }] },
}));

/** @param {number} layer */
const engineLayerConfig = (layer) => {
  const later = engineLayers.slice(layer).flat();
  return engineLayers[layer].map((folder) => {
    const forbidden = later.filter((other) => other !== folder);
    const message = `src-main/engine/${folder}/ may import only the engine layers before it (${engineLayers.slice(0, layer).flat().join(', ') || 'none'}): see engineLayers in eslint.config.js.`;
    return {
      files: [`src-main/engine/${folder}/**`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [...engineOutward, foldersPattern(forbidden, message), engineEntryPattern(message)],
          },
        ],
      },
    };
  });
};

/** @param {number} index */
const appFolderConfig = (index) => {
  const folder = appFolders[index];
  const forbidden = appFolders.slice(0, index);
  const earlierFolders =
    forbidden.length === 0
      ? []
      : [
          foldersPattern(
            forbidden,
            `src-main/${folder}/ may not import ${forbidden.map((name) => `${name}/`).join(', ')}: cli starts the shells, electron and server carry the api, the api serves the engine.`,
          ),
        ];
  return {
    files: [`src-main/${folder}/**`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...earlierFolders,
            // The engine's folders are its own business: what the rest may use is what index.ts exports.
            { regex: '^(\\.\\./)+engine/.', message: `src-main/${folder}/ imports the engine through its entry ('../engine'), never a file inside it.` },
          ],
        },
      ],
    },
  };
};

export default defineConfig([
  globalIgnores(['out/', 'release/', 'bench-data/', 'test-results/', '.cache/', 'scratch/']),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['**/*.{js,mjs,cjs,ts,mts,cts}'],
    ignores: ['shared/**', 'src-renderer/**'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['shared/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltinPaths(sharedMessage),
          patterns: [
            { regex: '^node:', message: sharedMessage },
            { regex: '^(electron|react|react-dom|better-sqlite3)(/|$)', message: sharedMessage },
            {
              regex: '(^|/)(src-main|src-renderer)(/|$)',
              message: 'shared/ may not depend on src-main/ or src-renderer/.',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        ...['window', 'document', 'navigator', 'localStorage', 'sessionStorage'].map((name) => ({
          name,
          message: `${sharedMessage} (${name} is a DOM global)`,
        })),
        ...['process', 'Buffer', 'global', 'require', '__dirname', '__filename'].map((name) => ({
          name,
          message: `${sharedMessage} (${name} is a Node global)`,
        })),
      ],
    },
  },
  {
    files: ['src-renderer/**'],
    languageOptions: { globals: globals.browser },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltinPaths(rendererMessage),
          patterns: [
            { regex: '^node:', message: rendererMessage },
            { regex: '^(electron|better-sqlite3)(/|$)', message: rendererMessage },
            { regex: '(^|/)src-main(/|$)', message: 'src-renderer/ may not import from src-main/.' },
          ],
        },
      ],
    },
  },
  ...appFolders.map((_, index) => appFolderConfig(index)),
  {
    files: ['src-main/engine/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: engineOutward }] },
  },
  ...engineLayers.flatMap((_, layer) => engineLayerConfig(layer)),
  ...devkitConfigs,
  {
    // The two core hooks rules only: the React Compiler rules of the plugin's presets judge code
    // written for the compiler, which this renderer does not use.
    files: ['src-renderer/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
]);
