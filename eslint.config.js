// ESLint for the extension and the JS tests: the recommended rules, with the globals
// each context really has (browser + WebExtension APIs, or Node for tests and benches).
import js from '@eslint/js';
import globals from 'globals';

export default [
  // firefox-prefs.js is a Firefox prefs file (user_pref(...) lines), not a script.
  { ignores: ['node_modules/**', 'target/**', 'fuzz/**', 'dist/**', 'examples/workloads/dist/**', 'host/src/launch/firefox-prefs.js',
    // Third-party code as its authors ship it (extension/lib/vendor/*/README.md).
    'extension/lib/vendor/**'] },
  js.configs.recommended,
  {
    files: ['extension/**/*.js'],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { ...globals.browser, ...globals.webextensions },
    },
  },
  {
    // Workload modules run in the benchmark page: browser globals, ES modules.
    files: ['examples/workloads/**/*.mjs', 'host/tests/workloads/**/*.mjs'],
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: { ...globals.browser } },
  },
  {
    files: ['extension/content/**/*.js'],
    languageOptions: { sourceType: 'script' },
  },
  {
    files: ['extension/tests/**/*.js', 'tests/**/*.js', 'tests/**/*.mjs', 'scripts/**/*.mjs', 'bench/**/*.mjs', 'eslint.config.js'],
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: { ...globals.node } },
  },
  {
    rules: {
      // `const { source, ...message } = data` drops a field on purpose.
      'no-unused-vars': ['error', { ignoreRestSiblings: true }],
    },
  },
];
