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

const sharedMessage =
  'shared/ runs in the main process and the renderer: keep it free of Node, Electron, React and SQLite.';
const rendererMessage =
  'src-renderer/ is a sandboxed web page: reach Node, Electron and the database only through window.loopscope.';

export default defineConfig([
  globalIgnores(['out/', 'bench-data/', 'test-results/', '.cache/', 'scratch/']),
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
