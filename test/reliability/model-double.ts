// The OpenAI-compatible test double in its own process (test/helpers/openai-test-server-main.ts), so
// that its CPU work does not count against the service under test.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface ModelDouble {
  baseURL: string;
  stop(): Promise<void>;
}

export async function startModelDouble(script = 'grade'): Promise<ModelDouble> {
  const main = new URL('../helpers/openai-test-server-main.ts', import.meta.url).pathname;
  const child = spawn(process.execPath, ['--import', 'tsx', main, `--script=${script}`], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const baseURL = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the model double exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', resolve);
  });
  return {
    baseURL,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
