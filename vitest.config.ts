import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['shared/src/**/*.test.ts', 'server/src/**/*.test.ts', 'web/src/**/*.test.ts'],
          sequence: { groupOrder: 0 },
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'system',
          include: ['tests/**/*.test.ts'],
          // Whole server processes, browsers and client fleets: after the unit suites, one file at a time.
          sequence: { groupOrder: 1 },
          fileParallelism: false,
          // Browser tests fail on any Content-Security-Policy violation a page reported (tests/support/policyProblems.ts).
          setupFiles: ['tests/support/setup.ts'],
          exclude: ['tests/bench/**', '**/node_modules/**'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
