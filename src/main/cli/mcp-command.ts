// `docwright mcp`: the MCP server over stdio for AI assistants, passing calls on to a running
// server's /mcp endpoint with the key (src/mcp/stdio-bridge.ts). stdout carries the protocol
// alone: every word for people goes to stderr.
import type { Command } from 'commander';
import { BridgeError, runStdioBridge } from '../../mcp/stdio-bridge.ts';
import { scrubSecrets } from '../../util/logger.ts';
import { DEFAULT_SERVER_URL } from './client-options.ts';
import { UsageError } from './usage-error.ts';

interface McpFlags {
  url?: string;
  key?: string;
}

export function registerMcpCommand(program: Command): void {
  program
    .command('mcp')
    .description(
      'MCP server over stdio for AI assistants (Claude, Cursor, VS Code), through a running server',
    )
    .option('--url <url>', `server URL (default: $DOCWRIGHT_URL, else ${DEFAULT_SERVER_URL})`)
    .option(
      '--key <key>',
      'API key (default: $DOCWRIGHT_API_KEY; prefer the variable: a flag shows in the process list)',
    )
    .addHelpText(
      'after',
      '\nThe tools act on the key’s project; a read key gets the read tools only.\n' +
        'Configuration snippets for Claude Desktop, Claude Code, Cursor and VS Code: docs/mcp.md\n\n' +
        'Example:\n  DOCWRIGHT_URL=https://docs-agent.example.com DOCWRIGHT_API_KEY=dw_... docwright mcp',
    )
    .action(async (flags: McpFlags) => {
      const { baseUrl, apiKey } = mcpSettings(flags, process.env);
      try {
        await runStdioBridge({ baseUrl, apiKey });
      } catch (error) {
        if (!(error instanceof BridgeError)) throw error;
        process.stderr.write(`error: ${scrubSecrets(error.message)}\n`);
        process.exitCode = 1;
      }
    });
}

export function mcpSettings(
  flags: McpFlags,
  env: Record<string, string | undefined>,
): { baseUrl: string; apiKey: string } {
  const pick = (flag: string | undefined, variable: string) => {
    const value = (flag ?? env[variable])?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const baseUrl = pick(flags.url, 'DOCWRIGHT_URL') ?? DEFAULT_SERVER_URL;
  const apiKey = pick(flags.key, 'DOCWRIGHT_API_KEY');
  if (apiKey === undefined) {
    throw new UsageError(
      'docwright mcp needs an API key: set DOCWRIGHT_API_KEY (or pass --key). Create one with: docwright keys create --project <projectId> (--scope read for read-only tools)',
    );
  }
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new UsageError('the server URL (DOCWRIGHT_URL or --url) is not a URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError('the server URL (DOCWRIGHT_URL or --url) must start with http:// or https://.');
  }
  if (url.username || url.password) {
    throw new UsageError('the server URL must not carry credentials; pass the key in DOCWRIGHT_API_KEY.');
  }
  return { baseUrl, apiKey };
}
