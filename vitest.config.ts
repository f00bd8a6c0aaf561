import { defineConfig } from 'vitest/config';

/**
 * The browser suites drive the web app, which is the same whatever store the server uses: they run
 * on the embedded default, and on PostgreSQL + Redis only with BROWSER_TESTS=always. The second
 * pass runs every server, protocol and multi-process suite (those are where the stores differ);
 * running the browsers twice would take CI past its time budget for no case the first run misses.
 */
const browserSuitesOnce = process.env.DATABASE_URL && process.env.BROWSER_TESTS !== 'always' ? ['tests/web.*.e2e.test.ts'] : [];

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
          exclude: ['tests/bench/**', '**/node_modules/**', ...browserSuitesOnce],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
