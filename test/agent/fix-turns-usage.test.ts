// What a fix turn adds to the run's outcome: its tokens, cache tokens and cost on top of the first
// run's, cost unknown once either part had no price, and the spending bound that stopped it.
// Unit test of checkAndFix's logic: the checks and the model turn are in-process stand-ins.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkAndFix } from '../../src/agent/checks/fix-turns.ts';
import type { JobDocsChecks } from '../../src/agent/checks/job-checks.ts';
import { DEFAULT_AGENT_LIMITS } from '../../src/agent/limits.ts';
import type { AgentOutcome, AgentUsage } from '../../src/agent/loop.ts';
import type { DocsCheckResult } from '../../src/docs-checks/index.ts';

const BROKEN_LINK = {
  code: 'link_broken',
  file: 'guide.md',
  line: 3,
  message: 'The link "./missing" goes to no page.',
  hint: 'Point it at an existing page.',
  subject: './missing',
} as unknown as DocsCheckResult['introduced'][number];

function result(introduced: DocsCheckResult['introduced']): DocsCheckResult {
  return {
    framework: 'markdown',
    introduced,
    preexisting: 0,
    scope: null,
    pagesChecked: 1,
    durationMs: 1,
  } as DocsCheckResult;
}

/** Checks that find the broken link until the first fix turn has run. */
function checksFixedAfterOneTurn(): { checks: JobDocsChecks; turnDone: () => void } {
  let fixed = false;
  const checks = {
    run: async () => result(fixed ? [] : [BROKEN_LINK]),
  } as unknown as JobDocsChecks;
  return { checks, turnDone: () => (fixed = true) };
}

function outcome(usage: Partial<AgentUsage>, extra: Partial<AgentOutcome> = {}): AgentOutcome {
  return {
    stoppedBy: 'finish',
    usage: {
      inputTokens: 0,
      outputTokens: 0,
      steps: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costUsd: 0,
      ...usage,
    },
    model: 'anthropic:claude-test',
    responseMessages: [],
    ...extra,
  };
}

const first = outcome({
  inputTokens: 1000,
  outputTokens: 100,
  steps: 3,
  cacheReadTokens: 600,
  cacheWriteTokens: 200,
  costUsd: 0.012,
});
const instructions = { system: 'system', messages: [] };

test('a fix turn adds its tokens, cache tokens and cost to the first run', async () => {
  const { checks, turnDone } = checksFixedAfterOneTurn();
  const fixed = await checkAndFix({
    checks,
    instructions,
    limits: DEFAULT_AGENT_LIMITS,
    startedAt: Date.now(),
    outcome: first,
    turn: async () => {
      turnDone();
      return outcome({
        inputTokens: 400,
        outputTokens: 50,
        steps: 2,
        cacheReadTokens: 300,
        cacheWriteTokens: 0,
        costUsd: 0.003,
      });
    },
    log: (error) => assert.fail(String(error)),
  });
  assert.deepEqual(fixed.result?.introduced, []);
  assert.equal(fixed.outcome.usage.inputTokens, 1400);
  assert.equal(fixed.outcome.usage.outputTokens, 150);
  assert.equal(fixed.outcome.usage.steps, 5);
  assert.equal(fixed.outcome.usage.cacheReadTokens, 900);
  assert.equal(fixed.outcome.usage.cacheWriteTokens, 200);
  assert.ok(Math.abs((fixed.outcome.usage.costUsd ?? Number.NaN) - 0.015) < 1e-12);
  assert.equal(fixed.outcome.stopMessage, undefined);
});

test('a fix turn with an unpriced step makes the cost unknown; its spending stop is kept', async () => {
  const { checks, turnDone } = checksFixedAfterOneTurn();
  const fixed = await checkAndFix({
    checks,
    instructions,
    limits: DEFAULT_AGENT_LIMITS,
    startedAt: Date.now(),
    outcome: first,
    turn: async () => {
      turnDone();
      return outcome(
        { inputTokens: 10, outputTokens: 1, steps: 1, costUsd: null },
        { stoppedBy: 'cost_cap', stopMessage: 'The job reached its cost cap of $0.01.' },
      );
    },
    log: (error) => assert.fail(String(error)),
  });
  assert.equal(fixed.outcome.usage.costUsd, null);
  assert.equal(fixed.outcome.stoppedBy, 'cost_cap');
  assert.equal(fixed.outcome.stopMessage, 'The job reached its cost cap of $0.01.');
});
