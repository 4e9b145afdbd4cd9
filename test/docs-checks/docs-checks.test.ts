// The docs checks on a small, realistic site per framework (test/docs-checks/fixtures): each is
// detected, passes clean, and each deliberate breakage is reported as introduced, with its code,
// file and line, while problems already at the base are counted apart.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  checkSnapshots,
  type DocsFramework,
  DocsSnapshot,
  directorySource,
  listDirectory,
  overlaySource,
  prepareBase,
} from '../../src/docs-checks/index.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures');

async function site(name: string) {
  const root = join(FIXTURES, name);
  const source = directorySource(root, await listDirectory(root));
  const base = await DocsSnapshot.build(source);
  /** The check after `changes` (path → new text, null deletes). */
  const after = async (changes: Record<string, string | null>, scope?: string[]) => {
    const map = new Map(Object.entries(changes));
    const branch = await base.withChanges(overlaySource(source, map), map.keys());
    const changed = [...map.keys()];
    const result = await checkSnapshots(base, branch, { changed, scope: scope ?? null });
    if (!scope) {
      // What a run over the affected pages finds is what a run over every page finds.
      const full = await checkSnapshots(base, branch, { changed, full: true });
      assert.deepEqual(result.introduced, full.introduced);
    }
    return result;
  };
  const read = async (path: string) => (await source.read(path)) ?? '';
  return { base, after, read };
}

const codes = (result: { introduced: { code: string; file: string }[] }) =>
  result.introduced.map((p) => `${p.code} ${p.file}`).sort();

const SITES: [string, DocsFramework, string][] = [
  ['mintlify', 'mintlify', 'docs.json'],
  ['docusaurus', 'docusaurus', 'docusaurus.config.js'],
  ['docusaurus-ts', 'docusaurus', 'docusaurus.config.ts'],
  ['mkdocs', 'mkdocs', 'mkdocs.yml'],
  ['vitepress', 'vitepress', 'docs/.vitepress/config.mjs'],
  ['starlight', 'starlight', 'astro.config.mjs'],
  ['markdown', 'markdown', ''],
];

describe('framework detection and clean sites', () => {
  for (const [name, framework, config] of SITES) {
    test(`${name}: detected, and its clean site has no problems`, async () => {
      const { base, after } = await site(name);
      assert.equal(base.info.framework, framework);
      assert.equal(base.info.configPath ?? '', config);
      const result = await after({});
      assert.deepEqual(result.introduced, []);
      assert.equal(result.preexisting, 0, 'the fixture itself is clean');
    });
  }

  test('a forced framework wins over the detected one', async () => {
    const root = join(FIXTURES, 'mkdocs');
    const snapshot = await DocsSnapshot.build(directorySource(root, await listDirectory(root)), {
      framework: 'markdown',
    });
    assert.equal(snapshot.info.framework, 'markdown');
  });
});

describe('breakage is reported as introduced', () => {
  test('mintlify: a broken MDX tag, a missing title, a dead link and a missing image', async () => {
    const { after, read } = await site('mintlify');
    const quickstart = await read('quickstart.mdx');
    const result = await after({
      'quickstart.mdx': quickstart.replace('</Steps>', ''),
      'setup/install.mdx': (await read('setup/install.mdx')).replace(
        'title: Install\n',
        'sidebarTitle: Install\n',
      ),
      'setup/configure.mdx': (await read('setup/configure.mdx'))
        .replace('/api/overview', '/api/overveiw')
        .concat('\n![chart](/images/chart.png)\n'),
    });
    assert.deepEqual(codes(result), [
      'file_missing setup/configure.mdx',
      'frontmatter_field setup/install.mdx',
      'link_broken setup/configure.mdx',
      'markdown_syntax quickstart.mdx',
    ]);
    const link = result.introduced.find((p) => p.code === 'link_broken')!;
    assert.equal(link.line, 11);
    assert.match(link.hint, /existing page/);
  });

  test('mintlify: a page named in docs.json that does not exist, and a new page left out of it', async () => {
    const { after, read } = await site('mintlify');
    const config = (await read('docs.json')).replace('"api/overview"', '"api/overview", "api/errors"');
    const result = await after({
      'docs.json': config,
      'setup/upgrade.mdx': '---\ntitle: Upgrade\n---\n\nSteps.\n',
    });
    assert.deepEqual(codes(result), ['nav_page_missing docs.json', 'page_unreachable setup/upgrade.mdx']);
    // Linked from a page in the navigation, the new page is reachable.
    const linked = await after({
      'setup/upgrade.mdx': '---\ntitle: Upgrade\n---\n\nSteps.\n',
      'setup/install.mdx': `${await read('setup/install.mdx')}\nTo upgrade, see [Upgrade](upgrade).\n`,
    });
    assert.deepEqual(codes(linked), []);
  });

  test('mintlify: a docs.json larger than a page (a big site) is still read', async () => {
    const { after, read } = await site('mintlify');
    const config = JSON.parse(await read('docs.json'));
    config.description = 'x'.repeat(300 * 1024);
    config.navigation.tabs[1].groups[0].pages.push('api/errors');
    const result = await after({ 'docs.json': JSON.stringify(config, null, 2) });
    assert.deepEqual(
      result.introduced.map((p) => `${p.code} ${p.file}:${p.line} ${p.subject}`),
      ['nav_page_missing docs.json:36 api/errors'],
    );
  });

  test('mintlify: invalid JSON in docs.json', async () => {
    const { after, read } = await site('mintlify');
    const result = await after({ 'docs.json': (await read('docs.json')).replace('"theme"', 'theme') });
    assert.deepEqual(codes(result), ['nav_config docs.json']);
  });

  test('mintlify: docs.json against its documented shape, each with its line and a hint', async () => {
    const { after, read } = await site('mintlify');
    const config = await read('docs.json');
    const wrong = await after({
      'docs.json': config.replace('"#0D9373"', '"teal"').replace('"name": "Acme"', '"name": 7'),
      // The navigation was still read: a new page left out of it is still reported.
      'setup/upgrade.mdx': '---\ntitle: Upgrade\n---\n\nSteps.\n',
    });
    assert.deepEqual(
      wrong.introduced.map((p) => `${p.code} ${p.line} ${p.message}`),
      [
        'nav_config 4 "name" in docs.json must be a string.',
        'nav_config 5 "colors.primary" in docs.json is not a hex color: "teal".',
        'page_unreachable null The new page setup/upgrade.mdx is not in the navigation and no page in it links here.',
      ],
    );
    assert.match(wrong.introduced[1]!.hint, /hex code beginning with #/);
    const missing = await after({ 'docs.json': config.replace('"colors": { "primary": "#0D9373" },', '') });
    assert.deepEqual(
      missing.introduced.map((p) => `${p.code} ${p.message} ${p.hint}`),
      [
        'nav_config docs.json lacks the required field "colors.primary". Add "colors": { "primary": "#0D9373" } to docs.json (Mintlify requires name, theme, colors.primary and navigation).',
      ],
    );
    const list = await after({
      'docs.json': JSON.stringify({ ...JSON.parse(config), navigation: ['index'] }),
    });
    assert.deepEqual(
      list.introduced.map((p) => p.message),
      ['"navigation" in docs.json must be an object (groups, tabs, anchors or pages).'],
    );
  });

  test('docusaurus: a missing anchor, .md read as MDX, and a sidebar id without a page', async () => {
    const { after, read } = await site('docusaurus');
    const result = await after({
      'docs/intro.md': (await read('docs/intro.md')).replace('#prerequisites', '#requirements'),
      'docs/guides/install.md': `${await read('docs/guides/install.md')}\nUse <b>bold.\n`,
      'sidebars.json': (await read('sidebars.json')).replace('"intro"', '"intro", "faq"'),
    });
    assert.deepEqual(codes(result), [
      'link_anchor docs/intro.md',
      'markdown_syntax docs/guides/install.md',
      'nav_page_missing sidebars.json',
    ]);
    const anchor = result.introduced.find((p) => p.code === 'link_anchor')!;
    assert.match(anchor.hint, /#prerequisites/);
  });

  test('docusaurus: an explicit heading id is an anchor', async () => {
    const { after, read } = await site('docusaurus');
    const deploy = await read('docs/guides/deploy.mdx');
    assert.deepEqual(
      codes(
        await after({ 'docs/guides/deploy.mdx': deploy.replace('#install-package', '#install-the-package') }),
      ),
      ['link_anchor docs/guides/deploy.mdx'],
    );
  });

  test('mkdocs: a deleted page breaks the links and the nav that named it', async () => {
    const { after } = await site('mkdocs');
    const result = await after({ 'docs/user-guide/config.md': null });
    assert.deepEqual(codes(result), [
      'link_broken docs/index.md',
      'link_broken docs/user-guide/install.md',
      'nav_page_missing mkdocs.yml',
    ]);
  });

  test('mkdocs: invalid YAML front matter and invalid mkdocs.yml', async () => {
    const { after, read } = await site('mkdocs');
    const result = await after({
      'docs/index.md': `---\ntitle: [unclosed\n---\n${await read('docs/index.md')}`,
      'mkdocs.yml': (await read('mkdocs.yml')).replace('nav:\n', 'nav:\n  - [broken\n'),
    });
    assert.deepEqual(codes(result), ['frontmatter_yaml docs/index.md', 'nav_config mkdocs.yml']);
  });

  test('vitepress: an image missing from public/ and a sidebar link without a page', async () => {
    const { after, read } = await site('vitepress');
    const result = await after({
      'docs/guide/getting-started.md': (await read('docs/guide/getting-started.md')).replace(
        '/logo.svg',
        '/logo.png',
      ),
      'docs/.vitepress/config.mjs': (await read('docs/.vitepress/config.mjs')).replace(
        "link: '/guide/markdown' },",
        "link: '/guide/markdown' },\n          { text: 'Deploy', link: '/guide/deploy' },",
      ),
    });
    assert.deepEqual(codes(result), [
      'file_missing docs/guide/getting-started.md',
      'nav_page_missing docs/.vitepress/config.mjs',
    ]);
  });

  test('starlight: a page without a title; a new page under an autogenerated directory is reachable', async () => {
    const { after } = await site('starlight');
    const result = await after({
      'src/content/docs/reference/cli.md': '---\ntitle: CLI\n---\n\nCommands.\n',
      'src/content/docs/guides/orphan.md': '---\ndescription: no title\n---\n\nText.\n',
    });
    assert.deepEqual(codes(result), [
      'frontmatter_field src/content/docs/guides/orphan.md',
      'page_unreachable src/content/docs/guides/orphan.md',
    ]);
  });

  test('markdown: problems already at the base are not introduced', async () => {
    const { base, after, read } = await site('markdown');
    const usage = (await read('docs/usage.md')).replace('images/screen.png', 'images/missing.png');
    const broken = await base.withChanges(
      overlaySource(
        directorySource(join(FIXTURES, 'markdown'), [...base.files]),
        new Map([['docs/usage.md', usage]]),
      ),
      ['docs/usage.md'],
    );
    // The broken image is at the "base" now; the job adds a dead link only.
    const result = await checkSnapshots(
      broken,
      await broken.withChanges(
        overlaySource(
          directorySource(join(FIXTURES, 'markdown'), [...base.files]),
          new Map([['docs/usage.md', `${usage}\n[gone](gone.md)\n`]]),
        ),
        ['docs/usage.md'],
      ),
      { changed: ['docs/usage.md'] },
    );
    assert.deepEqual(codes(result), ['link_broken docs/usage.md']);
    assert.equal(result.preexisting, 1);
    void after;
  });

  test("prepareBase does the base's part of a run ahead; the run then asks the base for nothing and finds the same", async () => {
    const root = join(FIXTURES, 'mkdocs');
    const files = await listDirectory(root);
    const counted = () => {
      const asked: string[] = [];
      const plain = directorySource(root, files);
      const source = {
        files,
        read: (path: string) => {
          asked.push(`read ${path}`);
          return plain.read(path);
        },
        // As git grep answers: the files whose content contains the text.
        search: async (text: string) => {
          asked.push(`search ${text}`);
          const texts = await Promise.all(files.map(async (path) => [path, await plain.read(path)] as const));
          return texts.filter(([, content]) => content?.includes(text)).map(([path]) => path);
        },
      };
      return { source, asked };
    };
    const changes = new Map<string, string | null>([
      ['docs/user-guide/config.md', '# Config\n\nSee [install](install.md#missing).\n'],
      ['docs/user-guide/install.md', null],
    ]);
    const check = async (prepared: boolean) => {
      const { source, asked } = counted();
      const base = await DocsSnapshot.build(source);
      if (prepared) await prepareBase(base, [...changes.keys()]);
      const ahead = asked.length;
      const branch = await base.withChanges(overlaySource(source, changes), changes.keys());
      const result = await checkSnapshots(base, branch, { changed: [...changes.keys()] });
      return { result, ahead, during: asked.slice(ahead) };
    };
    const plain = await check(false);
    const prepared = await check(true);
    assert.ok(prepared.ahead > 0 && plain.during.some((a) => a.startsWith('search ')));
    assert.deepEqual(prepared.during, [], 'the run found the base part done');
    assert.deepEqual(codes(prepared.result), codes(plain.result));
    assert.deepEqual(prepared.result.introduced, plain.result.introduced);
    assert.equal(prepared.result.pagesChecked, plain.result.pagesChecked);
    assert.ok(prepared.result.introduced.length > 0);
  });

  test('a scope limits the report to the paths asked for', async () => {
    const { after } = await site('mkdocs');
    const result = await after({ 'docs/user-guide/config.md': null }, ['docs/index.md']);
    assert.deepEqual(codes(result), ['link_broken docs/index.md']);
  });

  test('hostile input: NUL bytes, deep nesting and a huge line do not throw', async () => {
    const { after } = await site('markdown');
    const result = await after({
      'docs/nul.md': `# A\u0000B\n\n[x](\u0000.md)\n`,
      'docs/deep.md': `${'> '.repeat(300)}deep\n\n${'- '.repeat(2000)}x\n`,
      'docs/long.md': `# L\n\n${'[a](#l)'.repeat(2000)}\n`,
    });
    // long.md's 2000 links all point at its own heading: fine.
    assert.deepEqual(codes(result), ['link_broken docs/nul.md', 'markdown_syntax docs/deep.md']);
  });
});
