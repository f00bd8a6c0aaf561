/**
 * The floor of the co-editing benchmark: a bare `@hocuspocus/server` with no extensions and no
 * hooks (no authentication, persistence, Redis or live-editor tracking) and the library's
 * defaults, which the app keeps (store debounce, unload on the last disconnect). What relaying
 * the same edits to the same peers costs with the library alone on this machine.
 *
 * Run as a child process: `node coedit-floor-server.ts`; it reports its port over IPC.
 */
import { Server } from '@hocuspocus/server';

// Port 0: a free port, as floor-server.ts takes. The parent stops it (IPC disconnect, SIGTERM).
const server = new Server({ port: 0, address: '127.0.0.1', quiet: true, stopOnSignals: false });

await server.listen();
process.send?.({ type: 'listening', port: server.address.port });
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
