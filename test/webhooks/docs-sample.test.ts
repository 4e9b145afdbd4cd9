// The verification code in docs/webhooks.md, run as published (the JavaScript sample imported
// from the page, the Python one through python3 when it is installed) against signed requests
// sent by docwright's own delivery code to a local receiver.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { postWebhook } from '../../src/modules/webhooks/send.ts';
import { signatureHeader } from '../../src/modules/webhooks/signature.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../stand-ins/webhook-receiver.ts';

const page = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');
const section = page.slice(page.indexOf('## Verifying the signature'));
const codeBlock = (language: string) => {
  const match = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(section);
  assert.ok(match, `docs/webhooks.md has a ${language} sample under "Verifying the signature"`);
  return match[1]!;
};

type Verify = (secret: string, header: string | undefined, body: string, tolerance?: number) => boolean;
let verify: Verify;
let receiver: WebhookReceiver;
const dir = mkdtempSync(join(tmpdir(), 'dw-docs-sample-'));
const secret = randomBytes(32).toString('hex');

before(async () => {
  const file = join(dir, 'verify.mjs');
  writeFileSync(file, codeBlock('js'));
  verify = (await import(pathToFileURL(file).href)).verifyDocwrightSignature;
  receiver = await startWebhookReceiver();
});
after(async () => {
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
});

async function deliver(timestamp: number, signWith = secret) {
  const body = JSON.stringify({
    id: `whd_${randomBytes(16).toString('hex')}`,
    type: 'job.completed',
    note: 'Übersicht ✓',
  });
  const result = await postWebhook(
    `${receiver.origin}/hook`,
    { 'content-type': 'application/json', 'docwright-signature': signatureHeader(signWith, timestamp, body) },
    body,
    { timeoutMs: 5000, allowPrivateAddresses: true },
  );
  assert.equal(result.ok, true);
  const received = receiver.received.at(-1)!;
  return { header: received.headers['docwright-signature'] as string, body: received.body };
}

const now = () => Math.floor(Date.now() / 1000);

test('the JavaScript sample accepts a fresh delivery and refuses tampered, stale, and wrongly keyed ones', async () => {
  const fresh = await deliver(now());
  assert.equal(verify(secret, fresh.header, fresh.body), true);
  assert.equal(verify(secret, fresh.header, fresh.body.replace('completed', 'failed')), false);
  assert.equal(verify(`${secret}0`, fresh.header, fresh.body), false);
  assert.equal(verify(secret, undefined, fresh.body), false);
  const stale = await deliver(now() - 600);
  assert.equal(verify(secret, stale.header, stale.body), false, 'older than 5 minutes');
  assert.equal(verify(secret, stale.header, stale.body, 3600), true, 'within a longer tolerance');
  const forged = await deliver(now(), 'another secret');
  assert.equal(verify(secret, forged.header, forged.body), false);
});

const python = spawnSync('python3', ['--version']).status === 0;
test('the Python sample agrees', { skip: python ? false : 'python3 is not installed' }, async () => {
  const fresh = await deliver(now());
  const stale = await deliver(now() - 600);
  const script = `${codeBlock('python')}
import json, sys
cases = json.load(sys.stdin)
print(json.dumps([verify_docwright_signature(c["secret"], c["header"], c["body"].encode()) for c in cases]))
`;
  const cases = [
    { secret, ...fresh },
    { secret, header: fresh.header, body: `${fresh.body} ` },
    { secret: 'wrong', ...fresh },
    { secret, ...stale },
  ];
  const out = execFileSync('python3', ['-c', script], { input: JSON.stringify(cases) }).toString();
  assert.deepEqual(JSON.parse(out), [true, false, false, false]);
});
