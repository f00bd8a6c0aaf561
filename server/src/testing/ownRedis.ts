import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './serverProcess.ts';

/**
 * A throwaway redis-server of a test's own (no persistence) on a spare port, so the test can take
 * it down and bring it back empty on the same port. Never the shared Redis of REDIS_URL.
 */
export interface OwnRedis {
  url: string;
  port: number;
  /** The running redis-server (replaced by `restart`). */
  readonly child: ChildProcess;
  /** SIGKILL: connections drop at once, nothing is saved. */
  kill(): Promise<void>;
  /** A fresh, empty redis-server on the same port. */
  restart(): Promise<void>;
}

const READY_TIMEOUT_MS = 15_000;

function spawnRedis(port: number): Promise<{ child: ChildProcess; exited: Promise<void> }> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`redis-server on ${port} not ready in time:\n${output}`));
    }, READY_TIMEOUT_MS);
    const onOutput = (chunk: Buffer) => {
      output += chunk;
      if (!/Ready to accept connections/.test(output)) return;
      clearTimeout(timer);
      resolve({ child, exited });
    };
    child.stdout!.on('data', onOutput);
    child.stderr!.on('data', onOutput);
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`redis-server on ${port} exited:\n${output}`));
    });
  });
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let running = await spawnRedis(port);
  const kill = async () => {
    if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGKILL');
    await running.exited;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get child() {
      return running.child;
    },
    kill,
    restart: async () => {
      await kill();
      running = await spawnRedis(port);
    },
  };
}
