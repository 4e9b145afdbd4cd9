import assert from 'node:assert/strict';
import dns from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';
import { after, before, describe, mock, test } from 'node:test';
import { loadAgentList, toAgents } from '../../src/modules/analytics/classification/agent-list.ts';
import { createClassificationContext } from '../../src/modules/analytics/classification/context.ts';
import { classifyBatch, classifyRecord } from '../../src/modules/analytics/classification/pipeline.ts';
import type { ClassifiedView, RequestRecord } from '../../src/modules/analytics/classification/types.ts';
import { KeyDirectoryCache } from '../../src/modules/analytics/classification/web-bot-auth/key-directory.ts';
import { WebBotAuthVerifier } from '../../src/modules/analytics/classification/web-bot-auth/verifier.ts';
import {
  type BotKeyDirectory,
  generateBotKey,
  type SignOptions,
  signRequest,
  startBotKeyDirectory,
} from '../stand-ins/bot-key-directory.ts';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36';
const NOW = 1_790_000_000; // seconds; the records' own time
const LOCAL = { requireHttps: false, blockPrivateAddresses: false } as const;

const agentKey = generateBotKey();
const strangerKey = generateBotKey();
let directory: BotKeyDirectory;

before(async () => {
  directory = await startBotKeyDirectory([agentKey]);
});
after(async () => {
  await directory.close();
});

function contextFor(verifier: WebBotAuthVerifier, origin = directory.origin) {
  const testAgent = toAgents(
    [
      {
        name: 'Test Agent',
        tokens: [],
        signatureAgents: [origin],
        operator: 'Test Co',
        category: 'assistant',
        docs: 'https://test.example/agent',
        sources: ['https://test.example/agent'],
      },
    ],
    'test',
  );
  return createClassificationContext({ agents: [...testAgent, ...loadAgentList()], webBotAuth: verifier });
}

function signed(overrides: Partial<SignOptions> = {}, record: Partial<RequestRecord> = {}): RequestRecord {
  const headers = signRequest({
    key: agentKey,
    authority: 'docs.example',
    agentOrigin: directory.origin,
    created: NOW - 10,
    expires: NOW + 300,
    ...overrides,
  });
  return {
    url: 'https://docs.example/guide',
    userAgent: CHROME,
    timestamp: new Date(NOW * 1000).toISOString(),
    headers,
    ...record,
  };
}

async function view(record: RequestRecord, context: ReturnType<typeof contextFor>): Promise<ClassifiedView> {
  const outcome = await classifyRecord(record, context);
  assert.ok(!('drop' in outcome));
  return outcome;
}

describe('Web Bot Auth against a local key directory', () => {
  test('valid: a browser user agent becomes ai, verified, named by its Signature-Agent', async () => {
    const context = contextFor(new WebBotAuthVerifier(LOCAL));
    const result = await view(signed(), context);
    assert.equal(result.class, 'ai');
    assert.equal(result.agent, 'Test Agent');
    assert.equal(result.operator, 'Test Co');
    assert.equal(result.category, 'assistant');
    assert.equal(result.verification, 'verified');
    assert.equal(result.evidence.rule, 'web_bot_auth');
    assert.deepEqual(result.evidence.webBotAuth, {
      outcome: 'valid',
      signatureAgent: directory.origin,
      keyid: agentKey.keyid,
    });
  });

  test('valid, expired, wrong key and tampered are four distinct outcomes', async () => {
    const context = contextFor(new WebBotAuthVerifier(LOCAL));
    const valid = await view(signed(), context);
    const expired = await view(signed({ created: NOW - 7200, expires: NOW - 3600 }), context);
    const wrongKey = await view(signed({ key: strangerKey }), context);
    // Signed for docs.example, replayed against another host.
    const tampered = await view(signed({}, { url: 'https://other.example/guide' }), context);
    // Signed for one path, delivered with another.
    const tamperedPath = await view(
      signed({ method: 'GET', path: '/guide' }, { url: 'https://docs.example/admin' }),
      context,
    );

    const outcomes = [valid, expired, wrongKey, tampered, tamperedPath].map(
      (v) => v.evidence.webBotAuth?.outcome,
    );
    assert.deepEqual(outcomes, ['valid', 'expired', 'unknown_key', 'bad_signature', 'bad_signature']);
    for (const failed of [expired, wrongKey, tampered, tamperedPath]) {
      // Still a claim to be an automated agent: counted as ai, but unverified.
      assert.equal(failed.class, 'ai');
      assert.equal(failed.agent, 'Test Agent');
      assert.equal(failed.verification, 'unverified');
      assert.ok(failed.evidence.webBotAuth?.detail);
    }
  });

  test('a signature covering @method and @path verifies when the request matches', async () => {
    const context = contextFor(new WebBotAuthVerifier(LOCAL));
    const result = await view(signed({ method: 'GET', path: '/guide' }), context);
    assert.equal(result.evidence.webBotAuth?.outcome, 'valid');
  });

  test('a signature created in the future is not yet valid', async () => {
    const context = contextFor(new WebBotAuthVerifier(LOCAL));
    const result = await view(signed({ created: NOW + 3600, expires: NOW + 7200 }), context);
    assert.equal(result.evidence.webBotAuth?.outcome, 'not_yet_valid');
  });

  test('an unknown signer is verified under its own host, category other_ai', async () => {
    const context = createClassificationContext({
      agents: loadAgentList(),
      webBotAuth: new WebBotAuthVerifier(LOCAL),
    });
    const result = await view(signed(), context);
    assert.equal(result.class, 'ai');
    assert.equal(result.agent, new URL(directory.origin).host);
    assert.equal(result.category, 'other_ai');
    assert.equal(result.verification, 'verified');
  });

  test('a signed request from a named non-AI bot stays a bot, verified', async () => {
    const context = createClassificationContext({
      agents: loadAgentList(),
      webBotAuth: new WebBotAuthVerifier(LOCAL),
    });
    const result = await view(
      signed({}, { userAgent: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' }),
      context,
    );
    assert.equal(result.class, 'bot');
    assert.equal(result.verification, 'verified');
  });

  test('the directory is fetched once for many records, concurrent ones included', async () => {
    const local = await startBotKeyDirectory([agentKey], { delayMs: 100 });
    try {
      const context = contextFor(new WebBotAuthVerifier(LOCAL), local.origin);
      const records = Array.from({ length: 20 }, () => signed({ agentOrigin: local.origin }));
      const first = await classifyBatch(records, context);
      const second = await classifyBatch(records, context);
      for (const { view } of [...first.views, ...second.views])
        assert.equal(view.evidence.webBotAuth?.outcome, 'valid');
      assert.equal(local.requests, 1);
    } finally {
      await local.close();
    }
  });

  test('malformed signature headers are reported; signatures for other purposes are ignored', async () => {
    const context = contextFor(new WebBotAuthVerifier(LOCAL));
    const broken = await view(
      {
        path: '/x',
        userAgent: 'GPTBot/1.3',
        headers: { 'Signature-Input': 'sig1=("@authority"', Signature: 'sig1=:AA==:' },
      },
      context,
    );
    assert.equal(broken.evidence.webBotAuth?.outcome, 'malformed');
    assert.equal(broken.agent, 'GPTBot');
    const otherTag = signRequest({
      key: agentKey,
      authority: 'docs.example',
      agentOrigin: directory.origin,
      created: NOW,
      expires: NOW + 60,
    });
    otherTag['Signature-Input'] = otherTag['Signature-Input']!.replace('web-bot-auth', 'something-else');
    const ignored = await view(
      { url: 'https://docs.example/guide', userAgent: CHROME, headers: otherTag },
      context,
    );
    assert.equal(ignored.class, 'human');
    assert.equal(ignored.evidence.webBotAuth, undefined);
  });
});

describe('bounded directory fetches', () => {
  test('a slow directory does not hold records back: pending now, valid once it answers', async () => {
    const slow = await startBotKeyDirectory([agentKey], { delayMs: 1500 });
    try {
      const verifier = new WebBotAuthVerifier({ ...LOCAL, waitMs: 100, timeoutMs: 5000 });
      const context = contextFor(verifier, slow.origin);
      const batch = await classifyBatch(
        [signed({ agentOrigin: slow.origin }), { path: '/plain', userAgent: CHROME }],
        context,
      );
      assert.equal(batch.views[0]!.view.evidence.webBotAuth?.outcome, 'directory_pending');
      assert.equal(batch.views[0]!.view.verification, 'unverified');
      assert.equal(batch.views[1]!.view.class, 'human');
      // The fetch went on in the background; once it lands, later records verify from cache.
      await verifier.directory.load(slow.origin);
      const later = await view(signed({ agentOrigin: slow.origin }), context);
      assert.equal(later.evidence.webBotAuth?.outcome, 'valid');
      assert.equal(slow.requests, 1);
    } finally {
      await slow.close();
    }
  });

  test('a directory that never answers times out, and the failure is cached for a while', async () => {
    const stuck = await startBotKeyDirectory([agentKey], { delayMs: 3000 });
    try {
      const context = contextFor(
        new WebBotAuthVerifier({ ...LOCAL, timeoutMs: 150, waitMs: 5000 }),
        stuck.origin,
      );
      const first = await view(signed({ agentOrigin: stuck.origin }), context);
      assert.equal(first.evidence.webBotAuth?.outcome, 'directory_unavailable');
      assert.match(first.evidence.webBotAuth?.detail ?? '', /within 150 ms/);
      const second = await view(signed({ agentOrigin: stuck.origin }), context);
      assert.equal(second.evidence.webBotAuth?.outcome, 'directory_unavailable');
      assert.equal(stuck.requests, 1);
    } finally {
      await stuck.close();
    }
  });

  test('an oversized directory, an error status and a redirect are refused', async () => {
    for (const behaviour of [
      { body: JSON.stringify({ keys: [], pad: 'x'.repeat(200_000) }) },
      { status: 500 },
      { status: 302 },
    ]) {
      const bad = await startBotKeyDirectory([agentKey], behaviour);
      try {
        const context = contextFor(new WebBotAuthVerifier({ ...LOCAL, maxBytes: 64 * 1024 }), bad.origin);
        const result = await view(signed({ agentOrigin: bad.origin }), context);
        assert.equal(
          result.evidence.webBotAuth?.outcome,
          'directory_unavailable',
          JSON.stringify(behaviour).slice(0, 40),
        );
      } finally {
        await bad.close();
      }
    }
  });

  test('by default only https directories on public addresses are fetched', async () => {
    const before = directory.requests;
    const verifier = new WebBotAuthVerifier();
    const plainHttp = await view(signed(), contextFor(verifier));
    assert.equal(plainHttp.evidence.webBotAuth?.outcome, 'agent_url_refused');
    const port = new URL(directory.origin).port;
    for (const origin of [
      `https://127.0.0.1:${port}`,
      'https://localhost',
      'https://10.1.2.3',
      'https://[::1]',
    ]) {
      const result = await view(signed({ agentOrigin: origin }), contextFor(verifier, origin));
      assert.equal(result.evidence.webBotAuth?.outcome, 'agent_url_refused', origin);
    }
    assert.equal(directory.requests, before);
  });

  test('special-purpose ranges beyond the private ones are refused too (NAT64, benchmarking, IETF, site-local)', async () => {
    const verifier = new WebBotAuthVerifier({ timeoutMs: 300, waitMs: 5000 });
    for (const origin of [
      'https://[64:ff9b::7f00:1]',
      'https://[64:ff9b:1::a00:1]',
      'https://198.18.0.1',
      'https://192.0.0.8',
      'https://[fec0::1]',
    ]) {
      const result = await view(signed({ agentOrigin: origin }), contextFor(verifier, origin));
      assert.equal(result.evidence.webBotAuth?.outcome, 'agent_url_refused', origin);
    }
  });

  test('the address connected to is the one checked: a name whose answer turns from public to loopback is refused', async () => {
    // DNS rebinding: the name's answer changes between a check and the connection. Here every
    // answer through dns.promises (where a check made before connecting asks) is public, every
    // answer through dns.lookup (what a socket connects through) is the local directory.
    const port = new URL(directory.origin).port;
    const origin = `http://rebinding.test:${port}`;
    const publicAnswer = [{ address: '2606:4700::1111', family: 6 }];
    const loopback = [{ address: '127.0.0.1', family: 4 }];
    const callbackLookup = mock.method(dns, 'lookup', ((
      _host: string,
      options: { all?: boolean } | ((...args: unknown[]) => void),
      callback?: (...args: unknown[]) => void,
    ) => {
      const done = (typeof options === 'function' ? options : callback)!;
      const all = typeof options === 'object' && options.all === true;
      const list = loopback;
      process.nextTick(() => (all ? done(null, list) : done(null, list[0]!.address, list[0]!.family)));
    }) as never);
    const promiseLookup = mock.method(dns.promises, 'lookup', (async (
      _host: string,
      options?: { all?: boolean },
    ) => {
      const list = publicAnswer;
      return options?.all ? list : list[0];
    }) as never);
    syncBuiltinESMExports();
    const before = directory.requests;
    try {
      const verifier = new WebBotAuthVerifier({ requireHttps: false, timeoutMs: 2000, waitMs: 5000 });
      const result = await view(signed({ agentOrigin: origin }), contextFor(verifier, origin));
      assert.equal(
        result.evidence.webBotAuth?.outcome,
        'agent_url_refused',
        JSON.stringify(result.evidence.webBotAuth),
      );
      assert.equal(directory.requests, before, 'nothing reached the local directory');
    } finally {
      callbackLookup.mock.restore();
      promiseLookup.mock.restore();
      syncBuiltinESMExports();
    }
  });

  test('a failed refresh keeps the keys already held', async () => {
    const flaky = await startBotKeyDirectory([agentKey], { cacheControl: 'max-age=60' });
    try {
      let now = 1_000_000;
      const cache = new KeyDirectoryCache({ ...LOCAL, now: () => now });
      assert.equal((await cache.load(flaky.origin)).status, 'ready');
      now += 61_000; // stale
      flaky.behaviour.status = 503;
      const state = await cache.load(flaky.origin);
      assert.equal(state.status, 'ready');
      assert.equal(flaky.requests, 2);
    } finally {
      await flaky.close();
    }
  });
});

describe('test vectors from the Web Bot Auth protocol draft (Ed25519, RFC 9421 B.1.4 key)', () => {
  // draft-ietf-webbotauth-httpsig-protocol, "Test Vectors", section "EdDSA Using Curve edwards25519".
  const RFC_KEY_X = 'JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs';
  const KEYID = 'poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U';
  // The vectors name https://signature-agent.test; the injected fetch answers for it locally.
  const vectorRequest = async (url: URL) => {
    assert.equal(url.href, 'https://signature-agent.test/.well-known/http-message-signatures-directory');
    const body = JSON.stringify({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: RFC_KEY_X }] });
    return { status: 200, headers: {}, body: Buffer.from(body), truncated: false };
  };
  const verifier = () => new WebBotAuthVerifier({ request: vectorRequest, blockPrivateAddresses: false });
  const record = (headers: Record<string, string>, url = 'https://example.com/'): RequestRecord => ({
    url,
    userAgent: CHROME,
    timestamp: '2025-01-01T00:00:10Z',
    headers,
  });
  const dictionaryForm = {
    'Signature-Agent': 'agent2="https://signature-agent.test"',
    'Signature-Input': `sig2=("@authority" "signature-agent";key="agent2");created=1735689600;keyid="${KEYID}";alg="ed25519";expires=4889289600;nonce="n9p433xm+NJ3ph3upfBIGmsuwHw387YV7Q/F+6BSpGCVjYCqQw6rznNA8PVVLySrAWsv0hQtFioQb6E1YsauiA==";tag="web-bot-auth"`,
    Signature:
      'sig2=:RdNFx5Bj6au3YgAMQL/RzmUlZE8QZLIaXGRpw985hWnwPfMxT228NMk6ehRS1PSl4e8PhbNZACSanGdhEwYCCg==:',
  };
  const legacyForm = {
    'Signature-Agent': '"https://signature-agent.test"',
    'Signature-Input': `sig2=("@authority" "signature-agent");created=1735689600;keyid="${KEYID}";alg="ed25519";expires=1735693200;nonce="e8N7S2MFd/qrd6T2R3tdfAuuANngKI7LFtKYI/vowzk4lAZYadIX6wW25MwG7DCT9RUKAJ0qVkU0mEeLElW1qg==";tag="web-bot-auth"`,
    Signature:
      'sig2=:jdq0SqOwHdyHr9+r5jw3iYZH6aNGKijYp/EstF4RQTQdi5N5YYKrD+mCT1HA1nZDsi6nJKuHxUi/5Syp3rLWBA==:',
  };

  test('the dictionary form verifies', async () => {
    const evidence = await verifier().verify(record(dictionaryForm), 1735689610);
    assert.deepEqual(evidence, {
      outcome: 'valid',
      signatureAgent: 'https://signature-agent.test',
      keyid: KEYID,
    });
  });

  test('the legacy String form verifies', async () => {
    const evidence = await verifier().verify(record(legacyForm), 1735689610);
    assert.equal(evidence?.outcome, 'valid');
  });

  test('the same vector sent to another authority fails as tampered', async () => {
    const evidence = await verifier().verify(record(dictionaryForm, 'https://example.org/'), 1735689610);
    assert.equal(evidence?.outcome, 'bad_signature');
  });

  test('the legacy vector is expired an hour after it was made', async () => {
    const evidence = await verifier().verify(record(legacyForm), 1735693200 + 3600);
    assert.equal(evidence?.outcome, 'expired');
  });
});
