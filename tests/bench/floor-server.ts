/**
 * The floor of the step-save benchmark: a minimal `node:http` server that does only the
 * single-row PostgreSQL UPDATE a save ends in, with a pool the size of the app's (20). No
 * framework, sessions, access checks, rate limiter, lock or revision read: what any server must
 * at least spend on this machine to take the same request and write the same row.
 *
 * Run as a child process: `DATABASE_URL=... node floor-server.ts`; it reports its port over IPC.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BUNDLED_BANK } from '@csp/shared/bank';
import { pg } from './postgres.ts';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL!, max: 20 });
pool.on('error', () => {});
const stepKeys = BUNDLED_BANK.steps.map((step) => step.key);
const PATH = /^\/api\/forms\/([0-9a-f]{24})\/step\/(\d{1,3})$/;
const UPDATE = 'UPDATE plan_steps SET data = data || $1::jsonb, revision_count = revision_count + 1 WHERE form_id = $2 AND step_key = $3';

const server = http.createServer((req, res) => {
  const match = PATH.exec(req.url ?? '');
  const stepKey = match ? stepKeys[Number(match[2]) - 1] : undefined;
  if (req.method !== 'PUT' || !match || !stepKey) {
    res.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    let data: unknown;
    try {
      data = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { stepData: { data: unknown } }).stepData.data;
    } catch {
      res.writeHead(400).end();
      return;
    }
    pool.query(UPDATE, [JSON.stringify(data), match[1], stepKey]).then(
      (result) => {
        res.writeHead(result.rowCount === 1 ? 200 : 404, { 'content-type': 'application/json' }).end('{"success":true}');
      },
      () => res.writeHead(500).end(),
    );
  });
});

server.listen(0, '127.0.0.1', () => {
  process.send?.({ type: 'listening', port: (server.address() as AddressInfo).port });
});
process.on('disconnect', () => {
  server.close();
  void pool.end().finally(() => process.exit(0));
});
process.on('SIGTERM', () => process.exit(0));
