// One lint configuration for the whole workspace: TypeScript everywhere, Svelte in web/.
// Formatting is Prettier's job (eslint-config-prettier turns off the rules that overlap).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/', '**/build/', '**/.svelte-kit/', '.data/', 'tests/bench/results/', 'server/drizzle/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...svelte.configs.recommended,
  prettier,
  ...svelte.configs.prettier,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  {
    // Test helpers read arbitrary JSON answers; typing each one would only restate the assertions.
    files: ['**/*.test.ts', '**/testing/**', 'tests/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Test support (server/src/testing/, tests/) is for tests, the benchmarks and test tools only.
    files: ['server/src/**/*.ts', 'shared/**/*.ts', 'web/src/**/*.{ts,svelte}'],
    ignores: ['**/*.test.ts', 'server/src/testing/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '(^|/)(testing|tests)/', message: 'Test support is for tests: production code must not import it.' }] },
      ],
    },
  },
  {
    files: ['web/**/*.{ts,svelte}', 'web/**/*.svelte.ts'],
    languageOptions: { globals: { ...globals.browser } },
    // The app is served at the site root (no `paths.base`), so plain hrefs are already resolved.
    rules: { 'svelte/no-navigation-without-resolve': 'off' },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: { parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.svelte'] } },
  },
);
