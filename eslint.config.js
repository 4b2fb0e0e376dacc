// Lint rules. The layering rule keeps common/ pure (no Node, DOM or Electron), as VS Code's
// `code-layering` rule does: a wrong import fails here instead of in review.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const NODE_BUILTINS = ['fs', 'path', 'os', 'child_process', 'worker_threads', 'net', 'http', 'https', 'crypto', 'stream', 'url', 'util', 'events', 'zlib', 'readline'];
const nodeImports = NODE_BUILTINS.flatMap((m) => [m, `node:${m}`, `node:${m}/*`, `${m}/*`]);

export default tseslint.config(
  { ignores: ['.device/**', '.gl/**', '.whl/**', 'node_modules/**', 'out/**', 'build/**', 'dist/**', 'runs/**', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['common/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'electron', message: 'common/ is shared by every layer: it must not import electron (layering: common <- renderer, preload, main).' }],
        patterns: [
          { group: nodeImports, message: 'common/ is pure TypeScript: no Node built-ins (layering: common <- renderer, preload, main).' },
          { group: ['react', 'react-dom', '../main/*', '../renderer/*', '../preload/*', '../native/*'], message: 'common/ may import only common/ and pure libraries such as zod.' },
        ],
      }],
      'no-restricted-globals': ['error',
        { name: 'window', message: 'common/ must not touch the DOM.' },
        { name: 'document', message: 'common/ must not touch the DOM.' },
        { name: 'process', message: 'common/ must not use Node globals.' },
        { name: 'Buffer', message: 'common/ must not use Node globals.' },
      ],
    },
  },
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.tsx'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'electron', message: 'renderer/ is sandboxed web code: it reaches Electron only through the preload API (window.dqn) behind renderer/transport/.' }],
        patterns: [
          { group: nodeImports, message: 'renderer/ runs in the browser: no Node built-ins (layering: common <- renderer).' },
          { group: ['../main/*', '../../main/*', '../preload/*', '../../preload/*', '../native/*', '../../native/*'], message: 'renderer/ may import only renderer/, common/ and browser libraries (layering: common <- renderer).' },
        ],
      }],
      'no-restricted-globals': ['error', { name: 'process', message: 'renderer/ has no Node globals.' }, { name: 'Buffer', message: 'renderer/ has no Node globals.' }, { name: 'require', message: 'renderer/ has no require.' }],
    },
  },
  {
    files: ['preload/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'electron', allowImportNames: ['contextBridge', 'ipcRenderer'], message: 'the preload may use only contextBridge and ipcRenderer: it exposes narrow typed functions, never raw IPC.' }],
        patterns: [
          { group: nodeImports, message: 'the preload is sandboxed: no Node built-ins.' },
          { group: ['../main/*', '../renderer/*', '../native/*'], message: 'the preload may import only common/ and pure libraries such as zod.' },
        ],
      }],
    },
  },
  {
    files: ['main/trainer/**/*.ts', 'main/cli/**/*.ts', 'main/serve/**/*.ts', 'main/host-supervisor*.ts', 'main/presets-store*.ts', 'main/app-protocol*.ts', 'main/contents-guard*.ts', 'main/static-files*.ts', 'native/**/*.ts', 'bench/**/*.ts', 'e2e/**/*.ts', 'scripts/**/*.ts', 'main/**/*.test.ts', 'main/testing/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'The trainer host, CLI, browser-mode server, supervisor, addon wrapper, benchmarks and tests run under plain Node: they must not import electron (only main/index.ts does).' }] }],
    },
  },
);
