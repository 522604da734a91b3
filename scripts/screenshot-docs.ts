// Screenshots one element of a page in headless Chromium (Debian's `chromium` package), e.g. the
// search operation in the API reference:
//   node --experimental-websocket --import tsx scripts/screenshot-docs.ts \
//     http://127.0.0.1:8080/docs/ api-1/tag/search/POST/v1/catalog/search /tmp/docs.png
// (Node 22+ needs no flag.) It drives Chromium over the DevTools protocol because --screenshot
// cannot scroll to an element. Hosts other than 127.0.0.1 do not resolve, so a page that needed
// the network would render broken.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const [url, elementId, out] = process.argv.slice(2) as [string, string, string];
if (!url || !elementId || !out) throw new Error('usage: screenshot-docs.ts URL ELEMENT_ID OUT.png');
const port = 9333;
const chrome = spawn(
  'chromium',
  [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-dev-shm-usage',
    '--hide-scrollbars',
    '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
    `--user-data-dir=${mkdtempSync(join(tmpdir(), 'chr-'))}`,
    `--remote-debugging-port=${port}`,
    '--window-size=1400,1000',
    'about:blank',
  ],
  { stdio: 'ignore' },
);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
type Target = { type: string; webSocketDebuggerUrl: string };
let targets: Target[] = [];
for (let attempt = 0; attempt < 50 && targets.length === 0; attempt++) {
  try {
    targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Target[];
  } catch {
    await sleep(200); // Chromium is still starting
  }
}
const page = targets.find((target) => target.type === 'page');
if (page === undefined) throw new Error('Chromium did not start');
const ws = new WebSocket(page.webSocketDebuggerUrl);
await new Promise((resolve) => ws.addEventListener('open', resolve));
let id = 0;
const pending = new Map<number, (message: any) => void>();
ws.addEventListener('message', (event) => {
  const message = JSON.parse(String(event.data));
  pending.get(message.id)?.(message);
  pending.delete(message.id);
});
const send = (method: string, params: object = {}) =>
  new Promise<any>((resolve) => {
    id += 1;
    pending.set(id, resolve);
    ws.send(JSON.stringify({ id, method, params }));
  });
await send('Emulation.setDeviceMetricsOverride', { width: 1400, height: 1000, deviceScaleFactor: 1, mobile: false });
await send('Page.navigate', { url });
// The reference renders client-side: wait for the element to exist.
for (let attempt = 0; attempt < 60; attempt++) {
  const found = await send('Runtime.evaluate', {
    expression: `!!document.getElementById(${JSON.stringify(elementId)})`,
    returnByValue: true,
  });
  if (found.result?.result?.value === true) break;
  await sleep(500);
}
await send('Runtime.evaluate', {
  expression: `document.getElementById(${JSON.stringify(elementId)}).scrollIntoView({ block: 'start' })`,
});
await sleep(2000);
const shot = await send('Page.captureScreenshot', { format: 'png' });
writeFileSync(out, Buffer.from(shot.result.data, 'base64'));
console.log(`wrote ${out}`);
ws.close();
chrome.kill();
