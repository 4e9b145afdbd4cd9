// Scripts for the scripted model shared by the end-to-end tests: what a model would answer, step
// by step, to do a small documentation change with the real tools.
import { reply, type ScriptedLlmServer } from '../stand-ins/scripted-llm-server.ts';

export const GUIDE_EDIT = {
  path: 'docs/guide.md',
  old_text: 'Run the installer.',
  new_text: 'Run the installer with `--yes` to accept the defaults.',
};

/** list → read → edit docs/guide.md → finish. */
export function scriptDocsEdit(
  llm: ScriptedLlmServer,
  title = 'Document the --yes flag',
  summary = 'Explained the --yes flag in the install section.',
): void {
  llm.enqueue(
    reply.toolCall('list_files', { pattern: 'docs/**' }),
    reply.toolCall('read_file', { path: 'docs/guide.md' }),
    reply.toolCall('edit_file', GUIDE_EDIT),
    reply.toolCall('finish', { title, summary }),
  );
}

/** Resolves once the condition holds, checking every 20 ms; fails after timeoutMs. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
