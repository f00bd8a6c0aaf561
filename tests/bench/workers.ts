/** Worker processes (load generators, client fleets): the same Node binary, IPC with structured clone. */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { BENCH_DIR } from './config.ts';

export function forkWorker(file: string, options: { args?: string[]; execArgv?: string[]; env?: Record<string, string> } = {}): ChildProcess {
  return fork(path.resolve(BENCH_DIR, file), options.args ?? [], {
    execPath: process.execPath,
    execArgv: options.execArgv ?? [],
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, ...options.env },
  });
}

/** Resolves with the first IPC message of `type` a child sends (e.g. a server's `listening`). */
export function nextMessage<T>(child: ChildProcess, type: string, timeoutMs = 60_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${type} message from ${child.pid} in ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (message: { type?: string }) => {
      if (message?.type !== type) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(message as T);
    };
    child.on('message', onMessage);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`process ${child.pid} exited (${code}) before ${type}`));
    });
  });
}

export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Sends a request to a worker and resolves with its reply of the same `id`. */
export function ask<T>(worker: ChildProcess, message: Record<string, unknown>, timeoutMs = 600_000): Promise<T> {
  const id = randomBytes(6).toString('hex');
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`worker ${worker.pid} did not answer ${String(message.type)} in ${timeoutMs} ms`));
    }, timeoutMs);
    const onMessage = (reply: { id?: string; error?: string; result?: T }) => {
      if (reply?.id !== id) return;
      cleanup();
      if (reply.error) reject(new Error(reply.error));
      else resolve(reply.result as T);
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`worker ${worker.pid} exited (${code}) during ${String(message.type)}`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('exit', onExit);
    };
    worker.on('message', onMessage);
    worker.once('exit', onExit);
    worker.send({ ...message, id });
  });
}

/** Worker side of `ask`: answers each request with its handler's result (or error). */
export function serveRequests(handlers: Record<string, (message: any) => Promise<unknown>>): void {
  process.on('message', (message: { id: string; type: string }) => {
    const handler = handlers[message.type];
    if (!handler) return void process.send!({ id: message.id, error: `unknown request ${message.type}` });
    handler(message).then(
      (result) => process.send!({ id: message.id, result }),
      (error: unknown) => process.send!({ id: message.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
    );
  });
  // The parent's end is ours: never outlive it.
  process.on('disconnect', () => process.exit(0));
}

/** The last line of a crash's output that names the error (e.g. `TypeError: ...`). */
export function lastErrorLine(output: string): string {
  const lines = output.split('\n').filter((line) => /\b\w*Error\b[:\s]/.test(line) && !/^\s+at /.test(line));
  return (lines.at(-1) ?? output.split('\n').filter(Boolean).at(-1) ?? '').trim().slice(0, 300);
}
