// The client commands' text for people: counts agree with their nouns, and a project without a
// model does not claim a server default the CLI cannot see.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderAgents, renderViews } from '../../src/main/cli/client-render.ts';
import { renderProject } from '../../src/main/cli/render.ts';

const range = { from: '2026-01-01T00:00:00.000Z', to: '2026-02-01T00:00:00.000Z' };
const view = (path: string) => ({ path, human: 1, ai: 1, total: 2 });
const agent = (name: string) => ({
  agent: name,
  operator: null,
  category: null,
  verified: 1,
  unverified: 0,
  total: 1,
});

test('one page, one agent: singular; two of each: plural', () => {
  const views = (n: number) => ({
    totals: { human: n, ai: n, total: 2 * n },
    views: ['/a', '/b'].slice(0, n).map(view),
    range,
  });
  assert.match(renderViews(views(1)).split('\n')[0]!, / on 1 page$/);
  assert.match(renderViews(views(2)).split('\n')[0]!, / on 2 pages$/);
  const agents = (n: number) => ({
    totals: { verified: n, unverified: 0, total: n },
    agents: ['GPTBot', 'ClaudeBot'].slice(0, n).map(agent),
    range,
  });
  assert.match(renderAgents(agents(1)).split('\n')[0]!, / by 1 agent$/);
  assert.match(renderAgents(agents(2)).split('\n')[0]!, / by 2 agents$/);
});

test('a project without a model says so, not "(server default)"', () => {
  const text = renderProject('Created', {
    id: 'prj_x',
    name: 'Docs',
    repositoryUrl: 'https://github.com/acme/docs',
    ref: 'main',
    codeHost: { kind: 'github', baseUrl: null, apiUrl: null },
    model: null,
    settings: {},
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  });
  assert.doesNotMatch(text, /\(server default\)/);
  assert.match(text, /model: +\(none: the server's DOCWRIGHT_MODEL, if it has one\)/);
});
