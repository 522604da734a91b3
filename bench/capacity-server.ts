// Child process of bench/capacity.bench.ts: the real service (one replica) on a loopback port, with the
// configuration the parent passes in CAPACITY_ENV (JSON). It reports its port and a token over IPC, and
// answers `usage` messages with its CPU time and memory, after a full GC, so that the parent can count CPU
// seconds per search and bytes per warm project of this process alone.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { benchConfig, startBenchService } from './bench-service.js';

// A full GC before each memory reading. Not `--expose-gc` on the command line: the encoder's worker
// threads inherit execArgv, and Node refuses that flag for workers.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const env = JSON.parse(process.env.CAPACITY_ENV ?? '{}') as Record<string, string>;
const service = await startBenchService(benchConfig(env));

const tokens = new Map<string, string>();
const tokenFor = (projectId: string): string => {
  let token = tokens.get(projectId);
  if (token === undefined) {
    token = service.app.jwt.sign({ projectId, sub: 'capacity' }, { expiresIn: '1h' });
    tokens.set(projectId, token);
  }
  return token;
};

process.on('message', (message: { type: string; id: number; projectId?: string }) => {
  if (message.type === 'token') {
    process.send!({ id: message.id, token: tokenFor(message.projectId!) });
  } else if (message.type === 'usage') {
    // Two collections: the first may only schedule finalisers.
    gc();
    gc();
    const cpu = process.cpuUsage();
    const memory = process.memoryUsage();
    process.send!({
      id: message.id,
      cpuMs: (cpu.user + cpu.system) / 1000,
      heapUsed: memory.heapUsed,
      rss: memory.rss,
      external: memory.external,
    });
  }
});
process.send!({ port: service.port });
process.on('disconnect', () => process.exit(0));
