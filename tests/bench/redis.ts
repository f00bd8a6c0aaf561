/** The benchmarks' Redis keys: a prefix of each benchmark's own, deleted afterwards. */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { REDIS_URL, RUN_ID } from './config.ts';

export function redisPrefix(label: string): string {
  return `csp-bench-${RUN_ID}-${label}-${randomBytes(3).toString('hex')}:`;
}

/** Deletes a benchmark's Redis keys (SCAN + UNLINK through redis-cli, which ships with Redis). */
export function clearRedisPrefix(prefix: string): void {
  try {
    const url = new URL(REDIS_URL);
    const args = ['-h', url.hostname, '-p', url.port || '6379'];
    const keys = execFileSync('redis-cli', [...args, '--scan', '--pattern', `${prefix}*`], { encoding: 'utf8', maxBuffer: 256 << 20 })
      .split('\n')
      .filter(Boolean);
    for (let start = 0; start < keys.length; start += 500) execFileSync('redis-cli', [...args, 'unlink', ...keys.slice(start, start + 500)]);
  } catch {
    // Best effort: the keys are prefixed by run and expire with their TTLs.
  }
}
