// `docwright agents list`: which AI agents classification recognises, and how each is verified.
import type { Command } from 'commander';
import { ConfigError, readExtraAgentLists } from '../../config/config.ts';
import { type AgentListing, classificationWithExtraLists, listAgents } from '../commands/agents-list.ts';
import { print, printJson, table } from './output.ts';

function verification(row: AgentListing['agents'][number]): string {
  const ways: string[] = [];
  if (row.ipRangesPublished) ways.push(`IP ranges (${row.ipPrefixes} prefixes, ${row.rangesPublishedAt})`);
  if (row.verifiedBy.includes('web_bot_auth')) ways.push('Web Bot Auth');
  return ways.length > 0 ? ways.join(' + ') : 'claim only (no published ranges)';
}

export function renderAgents(listing: AgentListing): string {
  const lines = [
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

export function registerAgentsCommands(program: Command): void {
  const agents = program
    .command('agents')
    .description('the AI agents that page-view classification recognises');
  agents
    .command('list')
    .description('list the AI-agent list in use: curated, plus DOCWRIGHT_EXTRA_AGENT_LISTS')
    .option('--json', 'print {"agents": [...], "skipped": [...]} as one JSON document')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  docwright agents list\n' +
        "  DOCWRIGHT_EXTRA_AGENT_LISTS=./robots.json docwright agents list --json | jq '.agents[].name'",
    )
    .action((options: { json?: boolean }) => {
      const lists = readExtraAgentLists();
      if (lists.problems.length > 0) throw new ConfigError(lists.problems);
      const listing = listAgents(classificationWithExtraLists(lists.paths, { webBotAuth: false }));
      if (options.json) printJson(listing);
      else print(renderAgents(listing));
    });
}
