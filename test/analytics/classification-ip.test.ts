import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { classifyRecord } from '../../src/modules/analytics/classification/pipeline.ts';
import type { ClassifiedView, RequestRecord } from '../../src/modules/analytics/classification/types.ts';
import { testContext } from './fixtures/context.ts';

const context = testContext();
const GPTBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.3; +https://openai.com/gptbot)';
const CCBOT = 'CCBot/2.0 (https://commoncrawl.org/faq/)';

async function view(record: RequestRecord): Promise<ClassifiedView> {
  const outcome = await classifyRecord({ path: '/guide', ...record }, context);
  assert.ok(!('drop' in outcome));
  return outcome;
}

describe('verification by published IP ranges', () => {
  // Addresses picked from the snapshot in data/ai-agents.json: GPTBot 132.196.86.0/24, CCBot
  // 2600:1f28:365:8000::/56 and 18.97.14.88/30.
  test('IPv4 inside the ranges → verified', async () => {
    const result = await view({ userAgent: GPTBOT, ip: '132.196.86.77' });
    assert.equal(result.verification, 'verified');
    assert.equal(result.evidence.ip, 'in_ranges');
  });

  test('IPv4 outside the ranges → unverified', async () => {
    const result = await view({ userAgent: GPTBOT, ip: '203.0.113.9' });
    assert.equal(result.class, 'ai');
    assert.equal(result.verification, 'unverified');
    assert.equal(result.evidence.ip, 'outside_ranges');
  });

  test('IPv6 inside and outside the ranges', async () => {
    assert.equal((await view({ userAgent: CCBOT, ip: '2600:1f28:365:80ff::1' })).verification, 'verified');
    assert.equal((await view({ userAgent: CCBOT, ip: '2600:1f28:365:9000::1' })).verification, 'unverified');
  });

  test('CIDR edges are exact', async () => {
    assert.equal((await view({ userAgent: CCBOT, ip: '18.97.14.91' })).verification, 'verified');
    assert.equal((await view({ userAgent: CCBOT, ip: '18.97.14.92' })).verification, 'unverified');
  });

  test('an IPv4 address written as IPv6-mapped is checked as IPv4', async () => {
    assert.equal((await view({ userAgent: GPTBOT, ip: '::ffff:132.196.86.1' })).verification, 'verified');
  });

  test("one operator's ranges do not verify another agent", async () => {
    // 132.196.86.0/24 is GPTBot's, not OAI-SearchBot's.
    const result = await view({ userAgent: 'OAI-SearchBot/1.3', ip: '132.196.86.77' });
    assert.equal(result.verification, 'unverified');
  });

  test('missing or invalid IPs and agents without published ranges stay unverified, with the reason', async () => {
    assert.equal((await view({ userAgent: GPTBOT })).evidence.ip, 'no_ip');
    assert.equal((await view({ userAgent: GPTBOT, ip: 'not-an-ip' })).evidence.ip, 'invalid_ip');
    const claude = await view({ userAgent: 'ClaudeBot/1.0', ip: '132.196.86.77' });
    assert.equal(claude.verification, 'unverified');
    assert.equal(claude.evidence.ip, 'no_ranges');
  });

  test('humans and bots are never verified by IP', async () => {
    const human = await view({
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
      ip: '132.196.86.77',
    });
    assert.equal(human.verification, '');
    const bot = await view({
      userAgent: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      ip: '132.196.86.77',
    });
    assert.equal(bot.verification, '');
  });
});
