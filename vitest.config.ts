import { defineConfig } from 'vitest/config';

/**
 * The browser suites drive the web app, which is the same whatever store the server uses: they run
 * on the embedded default, and on PostgreSQL + Redis only with BROWSER_TESTS=always. The second
 * pass runs every server, protocol and multi-process suite (those are where the stores differ);
 * running the browsers twice would take CI past its time budget for no case the first run misses.
 */
const browserSuitesOnce = process.env.DATABASE_URL && process.env.BROWSER_TESTS !== 'always' ? ['tests/web*.e2e.test.ts'] : [];

/**
 * Most suites wait more than they compute (a server starting, sockets, timers), so more files run
 * at once than the machine has cores: Vitest's default on two cores is one.
 */
const UNIT_WORKERS = 3;
/** Browser suites two at a time on the embedded pass; the multi-process suites (second pass) one at a time. */
const SYSTEM_WORKERS = process.env.DATABASE_URL ? 1 : 2;

export default defineConfig({
  test: {
    maxWorkers: UNIT_WORKERS,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['shared/src/**/*.test.ts', 'server/src/**/*.test.ts', 'web/src/**/*.test.ts'],
          sequence: { groupOrder: 0 },
          maxWorkers: UNIT_WORKERS,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'system',
          include: ['tests/**/*.test.ts'],
          // Whole server processes, browsers and client fleets: after the unit suites, few at a time.
          sequence: { groupOrder: 1 },
          fileParallelism: SYSTEM_WORKERS > 1,
          maxWorkers: SYSTEM_WORKERS,
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
