// The agent's tools on a real git checkout: what each answers when it works and when it refuses
// (the model reads these texts to correct itself), the events they report, and the toolset driven
// by the AI SDK through the scripted model server (OpenAI Chat Completions and Anthropic).
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, hasToolCall, stepCountIs } from 'ai';
import { createAgentTools, isFailedToolOutput } from '../../src/agent/tools/agent-tools.ts';
import { MAX_LISTED } from '../../src/agent/tools/list-files.ts';
import { MAX_MATCHES } from '../../src/agent/tools/search.ts';
import type { ToolEvent } from '../../src/agent/tools/tool-context.ts';
import { createCheckout, SAMPLE_DOCS } from '../stand-ins/git-http-server.ts';
import { reply, startScriptedLlmServer } from '../stand-ins/scripted-llm-server.ts';

let base: string;
let counter = 0;

before(async () => {
  base = await mkdtemp('/dev/shm/docwright-tools-');
});
after(async () => {
  await rm(base, { recursive: true, force: true });
});

/** A fresh checkout of the sample docs and a toolbox on it, for one test. */
async function setup(files: Record<string, string> = SAMPLE_DOCS) {
  const root = await createCheckout(join(base, `repo-${++counter}`), files);
  const events: ToolEvent[] = [];
  const toolbox = await createAgentTools({ root, onEvent: (event) => void events.push(event) });
  const file = (path: string) => readFile(join(root, path), 'utf8');
  return { root, toolbox, events, file };
}

describe('list_files', () => {
  test('lists every file sorted with a count; a pattern without "/" matches at any depth', async () => {
    const { toolbox } = await setup();
    const all = await toolbox.run('list_files', {});
    assert.equal(all.ok, true);
    assert.equal(
      all.text,
      ['AGENTS.md', 'README.md', 'docs/guide.md', 'docs/index.md', 'docs/reference/api.md', '(5 files)'].join(
        '\n',
      ),
    );
    const markdown = await toolbox.run('list_files', { pattern: '*.md' });
    assert.match(markdown.text, /docs\/reference\/api\.md/);
    const underDocs = await toolbox.run('list_files', { pattern: 'docs/*' });
    assert.equal(underDocs.text, 'docs/guide.md\ndocs/index.md\n(2 files)');
    const directory = await toolbox.run('list_files', { pattern: 'docs/reference' });
    assert.equal(directory.text, 'docs/reference/api.md\n(1 files)');
  });

  test('shows new files, hides deleted and ignored ones', async () => {
    const { toolbox, root } = await setup({ ...SAMPLE_DOCS, '.gitignore': 'build/\n' });
    await toolbox.run('create_file', { path: 'docs/new.md', content: '# New\n' });
    await toolbox.run('delete_file', { path: 'docs/index.md' });
    await mkdir(join(root, 'build'));
    await writeFile(join(root, 'build/out.md'), 'generated');
    const listed = await toolbox.run('list_files', { pattern: '**/*.md' });
    assert.match(listed.text, /^docs\/new\.md$/m);
    assert.doesNotMatch(listed.text, /docs\/index\.md/);
    assert.doesNotMatch(listed.text, /build\/out\.md/);
  });

  test('says when nothing matches, and caps long listings with a hint', async () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < MAX_LISTED + 20; i++) many[`pages/p${String(i).padStart(4, '0')}.md`] = `# ${i}\n`;
    const { toolbox } = await setup(many);
    const none = await toolbox.run('list_files', { pattern: '*.rst' });
    assert.equal(none.ok, true);
    assert.match(none.text, /No files match "\*\.rst"/);
    const capped = await toolbox.run('list_files', { pattern: 'pages/**' });
    const lines = capped.text.split('\n');
    assert.equal(lines.length, MAX_LISTED + 1);
    assert.equal(lines[0], 'pages/p0000.md');
    assert.match(lines.at(-1)!, /^\[20 more files not shown: narrow the pattern/);
  });
});

describe('read_file', () => {
  test('numbers the lines, reads a range, says how to read on', async () => {
    const lines = Array.from({ length: 2500 }, (_, i) => `line ${i + 1}`).join('\n');
    const { toolbox } = await setup({ ...SAMPLE_DOCS, 'long.md': `${lines}\n` });
    const guide = await toolbox.run('read_file', { path: 'docs/guide.md' });
    assert.equal(guide.ok, true);
    assert.equal(guide.text.split('\n')[0], 'docs/guide.md (lines 1-10 of 10)');
    assert.equal(guide.text.split('\n')[1], ' 1\t# Guide');
    assert.match(guide.text, /^10\tRestart the service\.$/m);
    const range = await toolbox.run('read_file', { path: 'docs/guide.md', start_line: 3, end_line: 5 });
    assert.equal(range.text, 'docs/guide.md (lines 3-5 of 10)\n3\t## Install\n4\t\n5\tRun the installer.');
    const long = await toolbox.run('read_file', { path: 'long.md' });
    assert.match(long.text, /^long\.md \(lines 1-2000 of 2500\)/);
    assert.match(long.text, /\[more lines follow: call read_file with start_line=2001 to continue\]$/);
    const rest = await toolbox.run('read_file', { path: 'long.md', start_line: 2001 });
    assert.match(rest.text, /^long\.md \(lines 2001-2500 of 2500\)\n2001\tline 2001\n/);
  });

  test('refuses missing files, directories and bad ranges with a reason', async () => {
    const { toolbox } = await setup({ ...SAMPLE_DOCS, 'empty.md': '' });
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ path: 'docs/missing.md' }, /There is no file "docs\/missing\.md"\. Use list_files/],
      [{ path: 'docs' }, /"docs" is a directory; use list_files with "docs\/\*\*"/],
      [{ path: 'docs/guide.md', start_line: 50 }, /has 10 lines; start_line 50 is past the end/],
      [{ path: 'docs/guide.md', start_line: 5, end_line: 2 }, /end_line \(2\) is before start_line \(5\)/],
      [{ path: 'docs/guide.md', start_line: 0 }, /"start_line" must be a whole number of 1 or more/],
      [{ path: 'docs/guide.md', start_line: '3' }, /"start_line" must be a whole number/],
      [{}, /"path" is required and must be a string/],
    ];
    for (const [input, reason] of cases) {
      const result = await toolbox.run('read_file', input);
      assert.equal(result.ok, false, JSON.stringify(input));
      assert.match(result.text, reason);
    }
    const empty = await toolbox.run('read_file', { path: 'empty.md' });
    assert.equal(empty.text, 'empty.md is empty (0 lines).');
  });
});

describe('search', () => {
  test('answers path:line: text, Perl syntax, case and path filters, new files included', async () => {
    const { toolbox } = await setup();
    await toolbox.run('create_file', { path: 'docs/new.md', content: 'Install version 42 today\n' });
    const found = await toolbox.run('search', { pattern: 'Install' });
    assert.equal(found.ok, true);
    assert.equal(
      found.text,
      'docs/guide.md:3: ## Install\ndocs/new.md:1: Install version 42 today\n(2 matching lines)',
    );
    const digits = await toolbox.run('search', { pattern: '\\bversion\\s\\d+' });
    assert.match(digits.text, /^docs\/new\.md:1: /);
    const insensitive = await toolbox.run('search', { pattern: 'restart', ignore_case: true });
    assert.match(insensitive.text, /docs\/guide\.md:10: Restart the service\./);
    const scoped = await toolbox.run('search', { pattern: '^# ', path_glob: 'docs/reference/**' });
    assert.equal(scoped.text, 'docs/reference/api.md:1: # API\n(1 matching lines)');
  });

  test('no matches, a broken regular expression, and a capped result each say so', async () => {
    const many: Record<string, string> = {
      'a.md': Array.from({ length: MAX_MATCHES + 5 }, () => 'hit').join('\n'),
    };
    const { toolbox } = await setup(many);
    const none = await toolbox.run('search', { pattern: 'absent-word' });
    assert.equal(none.ok, true);
    assert.match(none.text, /^No matches for \/absent-word\//);
    const broken = await toolbox.run('search', { pattern: 'unclosed(' });
    assert.equal(broken.ok, false);
    assert.match(broken.text, /The search failed; check the regular expression/);
    const capped = await toolbox.run('search', { pattern: 'hit' });
    assert.equal(capped.text.split('\n').length, MAX_MATCHES + 1);
    assert.match(capped.text, /\[more matches not shown: narrow the pattern or pass path_glob/);
    const dash = await toolbox.run('search', { pattern: '--version' });
    assert.match(dash.text, /No matches/);
  });
});

describe('create_file', () => {
  test('creates a file and its directories; never overwrites', async () => {
    const { toolbox, file } = await setup();
    const created = await toolbox.run('create_file', {
      path: 'docs/new/deep/page.md',
      content: '# Page\n\nText.\n',
    });
    assert.equal(created.ok, true);
    assert.equal(created.text, 'Created docs/new/deep/page.md (3 lines).');
    assert.equal(await file('docs/new/deep/page.md'), '# Page\n\nText.\n');
    const again = await toolbox.run('create_file', { path: 'docs/guide.md', content: 'replaced' });
    assert.equal(again.ok, false);
    assert.match(
      again.text,
      /"docs\/guide\.md" already exists; create_file never overwrites\. Use edit_file/,
    );
    assert.equal(await file('docs/guide.md'), SAMPLE_DOCS['docs/guide.md']);
    const underFile = await toolbox.run('create_file', { path: 'README.md/x.md', content: 'x' });
    assert.equal(underFile.ok, false);
    assert.match(underFile.text, /a file stands where a directory is needed/);
    const noContent = await toolbox.run('create_file', { path: 'x.md' });
    assert.match(noContent.text, /"content" is required/);
  });
});

describe('edit_file', () => {
  test('replaces the one exact match and shows the result', async () => {
    const { toolbox, file } = await setup();
    const result = await toolbox.run('edit_file', {
      path: 'docs/guide.md',
      old_text: 'Run the installer.',
      new_text: 'Run the installer.\nThen sign in.',
    });
    assert.equal(result.ok, true, result.text);
    assert.equal(
      result.text,
      'Edited docs/guide.md: line 5 replaced; now lines 5-6:\n5\tRun the installer.\n6\tThen sign in.',
    );
    assert.match(await file('docs/guide.md'), /Run the installer\.\nThen sign in\.\n\n## Configure/);
    const removed = await toolbox.run('edit_file', {
      path: 'docs/guide.md',
      old_text: 'Then sign in.\n',
      new_text: '',
    });
    assert.equal(removed.text, 'Edited docs/guide.md: removed line 6.');
    assert.equal(await file('docs/guide.md'), SAMPLE_DOCS['docs/guide.md']);
  });

  test('old text not found: shows the most similar lines, or says it differs only in whitespace', async () => {
    const { toolbox, file } = await setup();
    const typo = await toolbox.run('edit_file', {
      path: 'docs/guide.md',
      old_text: 'Edit the setting file.',
      new_text: 'Edit config.yml.',
    });
    assert.equal(typo.ok, false);
    assert.match(
      typo.text,
      /^old_text was not found in docs\/guide\.md\. Copy the exact current text from read_file/,
    );
    assert.match(typo.text, /The most similar lines are:\n(.*\n)* 9\tEdit the settings file\./);
    const spacing = await toolbox.run('edit_file', {
      path: 'docs/guide.md',
      old_text: 'Edit the settings file.  Restart the service.',
      new_text: 'x',
    });
    assert.match(spacing.text, /It matches when spaces and line breaks are ignored/);
    const unrelated = await toolbox.run('edit_file', {
      path: 'docs/guide.md',
      old_text: 'zzzz qqqq',
      new_text: 'x',
    });
    assert.match(unrelated.text, /Nothing similar was found; read the file first/);
    assert.equal(await file('docs/guide.md'), SAMPLE_DOCS['docs/guide.md']);
  });

  test('old text found more than once: says how often and where, asks for more context', async () => {
    const { toolbox, file } = await setup({ 'a.md': 'Note: one\ntext\nNote: two\nmore\nNote: three\n' });
    const result = await toolbox.run('edit_file', { path: 'a.md', old_text: 'Note:', new_text: 'Tip:' });
    assert.equal(result.ok, false);
    assert.equal(
      result.text,
      'old_text occurs 3 times in a.md (starting on lines 1, 3, 5). Include more surrounding lines in old_text so it matches exactly once.',
    );
    assert.equal(await file('a.md'), 'Note: one\ntext\nNote: two\nmore\nNote: three\n');
  });

  test('empty or unchanged text is refused; CRLF files are edited with their own line ends', async () => {
    const { toolbox, file } = await setup({ 'win.md': 'first\r\nsecond\r\nthird\r\n' });
    assert.match(
      (await toolbox.run('edit_file', { path: 'win.md', old_text: '', new_text: 'x' })).text,
      /old_text is empty/,
    );
    assert.match(
      (await toolbox.run('edit_file', { path: 'win.md', old_text: 'first', new_text: 'first' })).text,
      /nothing would change/,
    );
    const edited = await toolbox.run('edit_file', {
      path: 'win.md',
      old_text: 'first\nsecond',
      new_text: 'one\ntwo',
    });
    assert.equal(edited.ok, true, edited.text);
    assert.equal(await file('win.md'), 'one\r\ntwo\r\nthird\r\n');
  });
});

describe('delete_file and move_file', () => {
  test('delete removes one file; refuses missing files and directories', async () => {
    const { toolbox, root } = await setup();
    const deleted = await toolbox.run('delete_file', { path: 'docs/index.md' });
    assert.equal(deleted.text, 'Deleted docs/index.md.');
    await assert.rejects(stat(join(root, 'docs/index.md')), { code: 'ENOENT' });
    assert.match(
      (await toolbox.run('delete_file', { path: 'docs/index.md' })).text,
      /There is no file "docs\/index\.md" to delete/,
    );
    assert.match(
      (await toolbox.run('delete_file', { path: 'docs' })).text,
      /"docs" is a directory; delete the files in it one by one/,
    );
    assert.ok((await stat(join(root, 'docs/guide.md'))).isFile());
  });

  test('move renames a file, creating directories; never overwrites', async () => {
    const { toolbox, root, file } = await setup();
    const moved = await toolbox.run('move_file', { from: 'docs/guide.md', to: 'docs/guides/setup.md' });
    assert.equal(moved.text, 'Moved docs/guide.md to docs/guides/setup.md.');
    assert.equal(await file('docs/guides/setup.md'), SAMPLE_DOCS['docs/guide.md']);
    await assert.rejects(stat(join(root, 'docs/guide.md')), { code: 'ENOENT' });
    const onto = await toolbox.run('move_file', { from: 'README.md', to: 'AGENTS.md' });
    assert.match(onto.text, /"AGENTS\.md" already exists; move_file never overwrites/);
    assert.equal(await file('AGENTS.md'), SAMPLE_DOCS['AGENTS.md']);
    assert.match(
      (await toolbox.run('move_file', { from: 'nope.md', to: 'x.md' })).text,
      /There is no file "nope\.md" to move/,
    );
    assert.match(
      (await toolbox.run('move_file', { from: 'docs', to: 'pages' })).text,
      /is a directory; move the files/,
    );
    assert.match((await toolbox.run('move_file', { from: 'README.md' })).text, /"to" is required/);
  });
});

describe('finish and events', () => {
  test('finish records title and summary; refuses empty or oversized ones', async () => {
    const { toolbox } = await setup();
    assert.equal(toolbox.finished(), null);
    assert.match((await toolbox.run('finish', { title: '  ', summary: 'x' })).text, /title is empty/);
    assert.match(
      (await toolbox.run('finish', { title: 'x'.repeat(201), summary: 'x' })).text,
      /keep it under 200/,
    );
    assert.match((await toolbox.run('finish', { title: 'Fix', summary: '' })).text, /summary is empty/);
    assert.equal(toolbox.finished(), null);
    const done = await toolbox.run('finish', { title: 'Fix the\ninstall   guide', summary: 'Fixed a typo.' });
    assert.equal(done.ok, true);
    assert.deepEqual(toolbox.finished(), { title: 'Fix the install guide', summary: 'Fixed a typo.' });
  });

  test('every call reports tool, path and outcome, never file contents; unknown tools and bad input are answers', async () => {
    const { toolbox, events } = await setup();
    await toolbox.run('read_file', { path: 'docs/guide.md' });
    await toolbox.run('edit_file', {
      path: './docs//guide.md',
      old_text: 'Run the installer.',
      new_text: 'Run setup.',
    });
    await toolbox.run('move_file', { from: 'docs/index.md', to: 'docs/start.md' });
    await toolbox.run('read_file', { path: '../outside.md' });
    const unknown = await toolbox.run('run_shell', { command: 'rm -rf /' });
    assert.equal(unknown.ok, false);
    assert.match(unknown.text, /There is no tool named "run_shell"/);
    const notObject = await toolbox.run('read_file', 'docs/guide.md');
    assert.match(notObject.text, /must be a JSON object/);
    assert.deepEqual(events.slice(0, 4), [
      { tool: 'read_file', ok: true, path: 'docs/guide.md' },
      { tool: 'edit_file', ok: true, path: 'docs/guide.md' },
      { tool: 'move_file', ok: true, path: 'docs/index.md', to: 'docs/start.md' },
      {
        tool: 'read_file',
        ok: false,
        path: '../outside.md',
        error: 'The path "../outside.md" leads outside the repository; only files inside it can be used.',
      },
    ]);
    assert.doesNotMatch(JSON.stringify(events), /Run setup|# Guide/);
  });

  test('changedPaths lists what the write tools changed, through links to the real file', async () => {
    const { toolbox, root } = await setup();
    await symlink('guide.md', join(root, 'docs/alias.md'));
    await toolbox.run('read_file', { path: 'README.md' });
    await toolbox.run('edit_file', {
      path: 'docs/alias.md',
      old_text: 'Run the installer.',
      new_text: 'Run it.',
    });
    await toolbox.run('create_file', { path: 'new.md', content: 'x' });
    await toolbox.run('move_file', { from: 'AGENTS.md', to: '.docwright/AGENTS.md' });
    await toolbox.run('delete_file', { path: 'docs/index.md' });
    await toolbox.run('create_file', { path: 'README.md', content: 'refused' });
    assert.deepEqual(toolbox.changedPaths(), [
      '.docwright/AGENTS.md',
      'AGENTS.md',
      'docs/guide.md',
      'docs/index.md',
      'new.md',
    ]);
  });

  test('calls made at the same time run one after another', async () => {
    const { toolbox, file } = await setup({ 'a.md': 'x\n' });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        toolbox.run('edit_file', { path: 'a.md', old_text: 'x\n', new_text: `x\nline ${i}\n` }),
      ),
    );
    assert.ok(results.every((r) => r.ok));
    assert.equal((await file('a.md')).split('\n').length, 12);
  });
});

describe('as AI SDK tools, driven by a model', () => {
  for (const protocol of ['openai', 'anthropic'] as const) {
    test(`${protocol}: the model reads, fails an edit, corrects it, finishes; refusals reach it as errors`, async () => {
      const llm = await startScriptedLlmServer();
      try {
        const { toolbox, file } = await setup();
        llm.enqueue(
          reply.toolCall('read_file', { path: 'docs/guide.md', start_line: 7, end_line: 9 }),
          reply.toolCall('edit_file', {
            path: 'docs/guide.md',
            old_text: 'Edit the setting file.',
            new_text: 'x',
          }),
          reply.toolCall('edit_file', {
            path: 'docs/guide.md',
            old_text: 'Edit the settings file.',
            new_text: 'Edit `settings.yml`.',
          }),
          reply.toolCall('finish', {
            title: 'Name the settings file',
            summary: 'The guide names settings.yml.',
          }),
        );
        const model =
          protocol === 'openai'
            ? createOpenAI({ baseURL: llm.baseURL, apiKey: 'sk-test-000000' }).chat('gpt-4.1')
            : createAnthropic({ baseURL: llm.baseURL, apiKey: 'sk-ant-test-000000' })('claude-sonnet-4-5');
        const result = await generateText({
          model,
          prompt: 'Name the settings file in the guide.',
          tools: toolbox.tools,
          stopWhen: [hasToolCall('finish'), stepCountIs(10)],
          maxRetries: 0,
        });
        assert.equal(result.steps.length, 4);
        assert.equal(
          await file('docs/guide.md'),
          SAMPLE_DOCS['docs/guide.md']!.replace('Edit the settings file.', 'Edit `settings.yml`.'),
        );
        assert.deepEqual(toolbox.finished(), {
          title: 'Name the settings file',
          summary: 'The guide names settings.yml.',
        });
        assert.deepEqual([...new Set(llm.requests[0]!.toolNames)].sort(), [
          'create_file',
          'delete_file',
          'edit_file',
          'finish',
          'list_files',
          'move_file',
          'read_file',
          'search',
        ]);
        const seen = llm.requests[3]!.toolResults;
        assert.equal(
          seen[0]!.output,
          'docs/guide.md (lines 7-9 of 10)\n7\t## Configure\n8\t\n9\tEdit the settings file.',
        );
        assert.match(seen[1]!.output, /old_text was not found in docs\/guide\.md/);
        assert.match(seen[2]!.output, /^Edited docs\/guide\.md: line 9 replaced/);
        if (protocol === 'anthropic')
          assert.deepEqual(
            seen.map((r) => r.isError),
            [false, true, false],
          );
        const failed = result.steps.flatMap((step) =>
          step.toolResults.map((r) => isFailedToolOutput(r.toolName, r.output)),
        );
        assert.deepEqual(failed, [false, true, false, false]);
      } finally {
        await llm.close();
      }
    });
  }
});
