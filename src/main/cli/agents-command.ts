// `docwright agents list | sync`: which AI agents classification recognises and how each is
// verified; syncing the list from ai.robots.txt's robots.json or a list in docwright's format.
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { ConfigError, loadConfig, readDatabaseLocation, readExtraAgentLists } from '../../config/config.ts';
import { withSecretKey } from '../../config/secret-key-file.ts';
import type { SyncResult, UnrecognizedAgentReport } from '../../modules/analytics/index.ts';
import {
  AgentSyncRefused,
  AI_ROBOTS_TXT_URL,
  analyticsErrors,
  readAgentListSource,
  useSyncedAgents,
} from '../../modules/analytics/index.ts';
import { type AgentListing, classificationWithExtraLists, listAgents } from '../commands/agents-list.ts';
import { agentsStored, agentsSync, agentsUnrecognized } from '../commands/agents-sync.ts';
import { referrersSync } from '../commands/referrers-sync.ts';
import { runAdminCommand } from '../control/run-admin-command.ts';
import { print, printJson, table } from './output.ts';
import { UsageError } from './usage-error.ts';

function verification(row: AgentListing['agents'][number]): string {
  const ways: string[] = [];
  if (row.ipRangesPublished) ways.push(`IP ranges (${row.ipPrefixes} prefixes, ${row.rangesPublishedAt})`);
  if (row.verifiedBy.includes('web_bot_auth')) ways.push('Web Bot Auth');
  return ways.length > 0 ? ways.join(' + ') : 'claim only (no published ranges)';
}

export function renderAgents(listing: AgentListing): string {
  const synced = listing.list;
  const lines = [
    synced === null
      ? 'Synced list: none (curated list only; `docwright agents sync` adds ai.robots.txt).'
      : `Synced list: version ${synced.version} from ${synced.source}, synced ${synced.syncedAt} (${synced.entries} entries after the curated ones).`,
    '',
    table(
      ['NAME', 'OPERATOR', 'CATEGORY', 'VERIFIED BY', 'SOURCE'],
      listing.agents.map((a) => [
        a.robotsOnly ? `${a.name} (robots.txt only)` : a.name,
        a.operator,
        a.category,
        verification(a),
        a.source,
      ]),
    ),
    '',
    `${listing.agents.length} agents. Other bots (search engines, monitors, previews) are recognised by isbot and counted as bot, not ai.`,
  ];
  if (listing.skipped.length > 0) {
    lines.push(`Skipped entries of extra lists (not matched):`);
    for (const s of listing.skipped) lines.push(`  ${s.token}: ${s.reason}`);
  }
  return lines.join('\n');
}

export function renderSync(result: SyncResult, refreshSeconds: number): string {
  if (!result.changed) {
    return `Unchanged: version ${result.version} already holds this list (${result.entries} entries from ${result.source}).`;
  }
  const lines = [
    `Synced version ${result.version} from ${result.source} (${result.format}): ${result.entries} entries after the curated ones.`,
    `Added: ${result.added.length > 0 ? result.added.join(', ') : 'none'}`,
    `Removed: ${result.removed.length > 0 ? result.removed.join(', ') : 'none'}`,
    `Skipped: ${result.skipped.length} (covered by the curated list, or generic words).`,
    `Running servers switch to it within ${refreshSeconds} s (DOCWRIGHT_AGENT_LIST_REFRESH_SECONDS), without a restart.`,
  ];
  return lines.join('\n');
}

export function renderUnrecognized(report: UnrecognizedAgentReport): string {
  if (report.agents.length === 0) return 'No unrecognized automated user agents so far.';
  return [
    table(
      ['PRODUCT', 'COUNTED AS', 'WHY', 'VIEWS', 'LAST SEEN', 'EXAMPLE'],
      report.agents.map((a) => [
        a.product,
        a.class,
        a.reason,
        String(a.views),
        a.lastSeen.slice(0, 16),
        a.example,
      ]),
    ),
    '',
    'Automated-looking user agents that no AI-agent list entry names. An AI agent among them is counted',
    'as AI once a synced list names it: docwright agents sync --from <list>.',
  ].join('\n');
}

/**
 * Whether a database to read a synced list from exists: DATABASE_URL, or an embedded database
 * already created. `agents list` must not create a data directory just to find it empty. A bad
 * DATABASE_URL counts as one, so that opening it reports the problem.
 */
function databaseExists(): boolean {
  const location = readDatabaseLocation();
  if (location.problems.length > 0 || location.databaseUrl !== null) return true;
  return existsSync(join(location.dataDir, 'pgdata'));
}

function percent(raw: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n > 100) throw new InvalidArgumentError('use a whole number from 0 to 100.');
  return n;
}

export function registerAgentsCommands(program: Command): void {
  const agents = program
    .command('agents')
    .description('the AI agents that page-view classification recognises');
  agents
    .command('list')
    .description(
      'list the AI-agent list in use: curated, DOCWRIGHT_EXTRA_AGENT_LISTS, then the synced version (with its version, source and date)',
    )
    .option('--json', 'print {"list": {...}|null, "agents": [...], "skipped": [...]} as one JSON document')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  docwright agents list\n' +
        "  DOCWRIGHT_EXTRA_AGENT_LISTS=./robots.json docwright agents list --json | jq '.agents[].name'",
    )
    .action(async (options: { json?: boolean }) => {
      const lists = readExtraAgentLists();
      if (lists.problems.length > 0) throw new ConfigError(lists.problems);
      const context = classificationWithExtraLists(lists.paths, { webBotAuth: false });
      if (databaseExists()) {
        const stored = await runAdminCommand(withSecretKey(loadConfig()), agentsStored, {});
        if (stored !== null) useSyncedAgents(context, { ...stored, syncedAt: new Date(stored.syncedAt) });
      }
      const listing = listAgents(context);
      if (options.json) printJson(listing);
      else print(renderAgents(listing));
    });
  agents
    .command('unrecognized')
    .description("automated-looking user agents the AI-agent list does not know, in a project's views")
    .requiredOption('--project <projectId>', 'the project (prj_...)')
    .option('--limit <n>', 'rows, most views first (default 50, at most 1000)', (raw) => {
      const n = Number(raw);
      if (!/^\d+$/.test(raw) || n < 1 || n > 1000)
        throw new InvalidArgumentError('use a whole number from 1 to 1000.');
      return n;
    })
    .option(
      '--json',
      'print {"agents": [{product, class, reason, views, firstSeen, lastSeen, example}], "hasMore"}',
    )
    .addHelpText('after', '\nExample:\n  docwright agents unrecognized --project prj_123')
    .action(async (options: { project: string; limit?: number; json?: boolean }) => {
      const report = await runAdminCommand(withSecretKey(loadConfig()), agentsUnrecognized, {
        projectId: options.project,
        limit: options.limit ?? 50,
      });
      if (options.json) printJson(report);
      else print(renderUnrecognized(report));
    });
  agents
    .command('sync')
    .description(
      'store a new version of the synced AI-agent list, from ai.robots.txt (robots.json) or a list in docwright format; servers pick it up without a restart',
    )
    .option(
      '--from <file-or-url>',
      `a file or http(s) URL (default: DOCWRIGHT_AGENT_LIST_SYNC_URL, else ${AI_ROBOTS_TXT_URL})`,
    )
    .option(
      '--max-drop-percent <n>',
      'refuse when more than this share of the synced entries would go (default: DOCWRIGHT_AGENT_LIST_MAX_DROP_PERCENT, 20)',
      percent,
    )
    .option(
      '--referrers',
      "sync the AI-referrer list instead (assistants whose answers send readers, in data/ai-referrers.json's format; default --from: DOCWRIGHT_REFERRER_LIST_SYNC_URL)",
    )
    .option('--json', 'print the result as one JSON document')
    .addHelpText(
      'after',
      '\nA list that does not parse, or that would drop too many entries, is refused (exit 1) and\n' +
        'changes nothing. Curated entries (data/ai-agents.json, data/ai-referrers.json) always win.\n\n' +
        'Examples:\n' +
        '  docwright agents sync\n' +
        '  docwright agents sync --from ./robots.json\n' +
        '  docwright agents sync --from https://example.com/our-agents.json --max-drop-percent 50\n' +
        '  docwright agents sync --referrers --from ./our-referrers.json',
    )
    .action(
      async (options: { from?: string; maxDropPercent?: number; referrers?: boolean; json?: boolean }) => {
        const config = withSecretKey(loadConfig());
        const from = options.referrers
          ? (options.from ?? config.agentList.referrerSyncUrl ?? null)
          : (options.from ?? config.agentList.syncUrl ?? AI_ROBOTS_TXT_URL);
        if (from === null) {
          // No public list of assistants to default to, as ai.robots.txt is for agents.
          throw new UsageError('--referrers needs --from <file-or-url> or DOCWRIGHT_REFERRER_LIST_SYNC_URL.');
        }
        const source = /^https?:\/\//i.test(from) || isAbsolute(from) ? from : resolve(from);
        let text: string;
        try {
          text = await readAgentListSource(source);
        } catch (error) {
          if (error instanceof AgentSyncRefused) throw analyticsErrors.agent_list_refused(error.message);
          throw error;
        }
        const input = {
          text,
          source,
          maxDropPercent: options.maxDropPercent ?? Math.round(config.agentList.maxDropShare * 100),
        };
        const result = await runAdminCommand(config, options.referrers ? referrersSync : agentsSync, input);
        if (options.json) printJson(result);
        else print(renderSync(result, config.agentList.refreshMs / 1000));
      },
    );
}
