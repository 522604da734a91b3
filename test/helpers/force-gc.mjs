// Preloaded into a service process with `--expose-gc --import` by tests of deadlines: forces a major
// garbage collection every FORCE_GC_MS (default 50) ms, so that any wait whose timer only a weak
// reference keeps (Node 20: an AbortSignal.timeout held only by AbortSignal.any, nodejs/node#57736) is
// collected before it fires. Logs the count once a second as a JSON line (the tests check it grew).
if (typeof globalThis.gc !== 'function') throw new Error('force-gc.mjs needs node --expose-gc');
const every = Number(process.env.FORCE_GC_MS ?? 50);
let count = 0;
setInterval(() => {
  globalThis.gc({ type: 'major', execution: 'sync' });
  count += 1;
}, every).unref();
setInterval(() => process.stdout.write(`${JSON.stringify({ msg: 'forced gc', count })}\n`), 1000).unref();
