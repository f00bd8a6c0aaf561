// Builds the SPA (vite build) only when web/build/index.html is missing or older than its sources.
// Run by `pnpm --filter @csp/web run build:if-missing` on Node 24 (type stripping: erasable syntax only).
// Pass --force (or set CSP_WEB_FORCE_BUILD=1) to build regardless.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outputFile = path.join(webDir, 'build', 'index.html');

/** Sources whose change means the build is stale. */
const inputs = ['src', 'static', 'vite.config.ts', 'tsconfig.json', 'package.json'].map((entry) => path.join(webDir, entry));

function mtimeOf(file: string): number | null {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return null;
  }
}

/** Newest modification time of a file, or of any file below a folder (0 when absent). */
function newestMtime(entry: string): number {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(entry);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;

  let newest = stat.mtimeMs; // a deleted file changes its folder's mtime
  for (const child of fs.readdirSync(entry, { withFileTypes: true })) {
    if (child.name === '.DS_Store') continue;
    newest = Math.max(newest, newestMtime(path.join(entry, child.name)));
  }
  return newest;
}

function staleReason(): string | null {
  const built = mtimeOf(outputFile);
  if (built === null) return 'build/index.html is missing';
  for (const input of inputs) {
    const newest = newestMtime(input);
    if (newest > built) return `${path.relative(webDir, input)} changed since the last build`;
  }
  return null;
}

function viteBin(): string {
  // vite's JS entry, resolved from web/node_modules (never the shell shim in .bin)
  const pkgFile = path.join(webDir, 'node_modules', 'vite', 'package.json');
  const pkg = JSON.parse(fs.readFileSync(pkgFile, 'utf8')) as { bin?: string | Record<string, string> };
  const bin = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin?.['vite'];
  if (!bin) throw new Error(`${pkgFile} declares no vite bin`);
  return path.join(path.dirname(pkgFile), bin);
}

const force = process.argv.includes('--force') || process.env['CSP_WEB_FORCE_BUILD'] === '1';
const reason = force ? 'forced' : staleReason();

if (reason === null) {
  console.log('[web] build/ is up to date; skipping vite build');
  process.exit(0);
}

console.log(`[web] building the web app (${reason})`);
const started = performance.now();
const child = spawn(process.execPath, [viteBin(), 'build'], { cwd: webDir, stdio: 'inherit' });

const forward = (signal: NodeJS.Signals) => {
  if (child.exitCode === null) child.kill(signal);
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, forward);

child.on('error', (error) => {
  console.error(`[web] could not start vite: ${error.message}`);
  process.exit(1);
});

child.on('exit', (code, signal) => {
  if (code === 0) {
    console.log(`[web] built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    process.exit(0);
  }
  console.error(`[web] vite build failed (${signal ? `signal ${signal}` : `exit code ${code}`})`);
  process.exit(code ?? 1);
});
