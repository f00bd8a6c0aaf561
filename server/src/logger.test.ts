import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The log's format follows where it goes: a real terminal (a pseudo-terminal from util-linux's
 * `script`) gets pino-pretty's readable lines outside production; a pipe, and production anywhere,
 * get JSON lines.
 */
const loggerModule = path.join(import.meta.dirname, 'logger.ts');
const program = `import { createLogger } from ${JSON.stringify(loggerModule)};
createLogger('info', { isProduction: process.env.AS_PRODUCTION === '1' }).info({ method: 'GET', path: '/api/health', status: 200, ms: 1.5 }, 'request');`;

function logOf(options: { terminal: boolean; production: boolean }): string {
  const env = { ...process.env, AS_PRODUCTION: options.production ? '1' : '0', NO_COLOR: '1' };
  const node = [process.execPath, '--input-type=module', '-e', program];
  const output = options.terminal
    ? execFileSync('script', ['-qec', node.map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(' '), '/dev/null'], { env, encoding: 'utf8' })
    : execFileSync(node[0]!, node.slice(1), { env, encoding: 'utf8' });
  return output.replaceAll('\r', '').trim();
}

describe('logger', () => {
  it('writes one readable line per request to a terminal outside production', () => {
    const line = logOf({ terminal: true, production: false });
    expect(line).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: request GET \/api\/health 200 1\.5 ms$/);
  });

  it('writes JSON lines to a pipe, and in production also to a terminal', () => {
    for (const [terminal, production] of [
      [false, false],
      [false, true],
      [true, true],
    ]) {
      const entry = JSON.parse(logOf({ terminal: terminal!, production: production! }));
      expect(entry).toMatchObject({ level: 30, msg: 'request', method: 'GET', path: '/api/health', status: 200, ms: 1.5 });
    }
  });
});
