// Classifies the client from its user agent (cached verdict) and the record's Markdown signals.
// Order, first rule that applies wins:
//  1. a token from the agent list, as a whole word → ai, claimed (verification step may verify);
//  2. a Markdown fetch by a client that is not a browser → ai, agent `markdown-client`. A fetch
//     is a Markdown fetch when the path ended in `.md` or the Accept header prefers Markdown over
//     HTML. A `.md` path counts only from a non-browser user agent (people click `.md` links);
//     an Accept header that prefers Markdown counts whatever the user agent says, since no
//     browser sends one (coding agents that present a browser user agent do). Named crawlers
//     that isbot knows (Googlebot fetching a `.md`) stay bots;
//  3. no user agent at all → bot `no-user-agent`;
//  4. isbot recognises it (search engines, monitors, SEO tools, link previews, HTTP libraries)
//     → bot;
//  5. everything else → human.

import { prefersMarkdown } from '../accept-header.ts';
import type { ClassifiedView } from '../types.ts';
import type { Step } from './step.ts';

export const MARKDOWN_CLIENT = 'markdown-client';
export const NO_USER_AGENT = 'no-user-agent';

export const userAgentStep: Step = {
  name: 'user_agent',
  run({ record, path, markdown }, context) {
    const verdict = context.userAgents.classify(record.userAgent);
    const base = { path: path ?? '/', markdown: markdown ?? false };

    if (verdict.agent !== null) {
      const agent = verdict.agent;
      const view: ClassifiedView = {
        ...base,
        class: 'ai',
        agent: agent.name,
        operator: agent.operator,
        category: agent.category,
        verification: 'unverified',
        evidence: { rule: 'agent_token', token: verdict.token ?? agent.name },
      };
      return { verdict, agentEntry: agent, view };
    }

    const namedCrawler = verdict.bot !== null && !verdict.genericClient;
    const markdownReason = prefersMarkdown(record.accept)
      ? 'accept'
      : markdown && !verdict.browser
        ? 'md_path'
        : undefined;
    if (markdownReason !== undefined && !namedCrawler) {
      const view: ClassifiedView = {
        ...base,
        class: 'ai',
        agent: MARKDOWN_CLIENT,
        category: 'other_ai',
        verification: 'unverified',
        evidence: { rule: 'markdown_client', markdown: markdownReason },
      };
      return { verdict, agentEntry: null, view };
    }

    if (verdict.empty) {
      const view: ClassifiedView = {
        ...base,
        class: 'bot',
        agent: NO_USER_AGENT,
        verification: '',
        evidence: { rule: 'no_user_agent' },
      };
      return { verdict, agentEntry: null, view };
    }

    if (verdict.bot !== null) {
      const view: ClassifiedView = {
        ...base,
        class: 'bot',
        agent: verdict.bot,
        verification: '',
        evidence: { rule: 'bot' },
      };
      return { verdict, agentEntry: null, view };
    }

    const view: ClassifiedView = {
      ...base,
      class: 'human',
      agent: '',
      verification: '',
      evidence: { rule: 'human_default' },
    };
    return { verdict, agentEntry: null, view };
  },
};
