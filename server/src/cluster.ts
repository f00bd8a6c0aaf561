import cluster, { type Worker } from 'node:cluster';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';
import { openStorage } from './storage/database.ts';
import { prepareStorage } from './server.ts';

const RESTART_FIRST_DELAY_MS = 1_000;
const RESTART_MAX_DELAY_MS = 30_000;
/** A worker that served this long before it died was not crash-looping: its replacement waits the least. */
const STABLE_AFTER_MS = 60_000;
/** Each worker forces its own exit 10 s after a stop signal; past this, one is hung and is killed. */
const STOP_GRACE_MS = 15_000;

export interface RunningWorkers {
  /** Stops every worker (each finishes what is in flight); rejects when one did not stop cleanly. */
  stop(): Promise<void>;
}

interface Exit {
  pid: number | undefined;
  code: number | null;
  signal: string | null;
}

/**
 * The primary process when WORKERS > 1: it migrates and prepares the database once, then forks the
 * workers, whole servers sharing the port through node:cluster (which hands each new connection
 * to one of them). A worker that dies is replaced, after a delay that doubles while replacements
 * keep dying, so a crash loop does not spin.
 */
export async function startWorkers(config: Config, logger: Logger): Promise<RunningWorkers> {
  const storage = await openStorage({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await prepareStorage(storage, config, logger);
  } finally {
    await storage.close();
  }

  let stopping = false;
  const restarts = new Set<NodeJS.Timeout>();
  const start = (slot: { failures: number }) => {
    const worker = cluster.fork();
    const startedAt = Date.now();
    logger.info({ worker: worker.process.pid }, 'worker started');
    // A signal or message that cannot reach the worker is reported here; unheard, it would end the primary.
    worker.on('error', (error) => logger.warn({ err: error, worker: worker.process.pid }, 'worker unreachable'));
    worker.once('exit', (code, signal) => {
      if (stopping) return;
      if (Date.now() - startedAt >= STABLE_AFTER_MS) slot.failures = 0;
      const restartInMs = Math.min(RESTART_FIRST_DELAY_MS * 2 ** slot.failures, RESTART_MAX_DELAY_MS);
      slot.failures++;
      logger.error({ worker: worker.process.pid, code, signal, restartInMs }, 'worker exited unexpectedly; starting another');
      const timer = setTimeout(() => {
        restarts.delete(timer);
        start(slot);
      }, restartInMs);
      restarts.add(timer);
    });
  };
  logger.info({ workers: config.workers }, 'starting workers');
  for (let i = 0; i < config.workers; i++) start({ failures: 0 });

  const stopWorker = (worker: Worker) =>
    new Promise<Exit>((resolve) => {
      const hung = setTimeout(() => worker.process.kill('SIGKILL'), STOP_GRACE_MS);
      worker.once('exit', (code, signal) => {
        clearTimeout(hung);
        resolve({ pid: worker.process.pid, code, signal });
      });
      worker.process.kill('SIGTERM');
    });

  return {
    stop: async () => {
      stopping = true;
      for (const timer of restarts) clearTimeout(timer);
      const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => !!worker && !worker.isDead());
      const unclean = (await Promise.all(workers.map(stopWorker))).filter((exit) => exit.code !== 0);
      if (unclean.length) throw new Error(`workers did not stop cleanly: ${JSON.stringify(unclean)}`);
    },
  };
}
