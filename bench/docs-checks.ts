// Docs checks on a generated 10,000-page Mintlify site (docs.json naming every page; each page
// with front matter, headings, links with anchors to its neighbours and an image), against
// reading the same files in the same run:
// - full: every page read, parsed (on worker threads) and checked, base and branch alike, in a
//   process that has parsed none of these pages (the facts cache cleared first); also its CPU
//   time over all threads (full_cpu), which a loaded machine changes less than the wall time;
// - full repeat: the same on a fresh snapshot in a process that parsed these blobs before (the
//   process-wide facts cache keyed by blob id): reading, hashing and the rules;
// - incremental: after a job changed a few files (three pages edited, one created and added to
//   docs.json, one deleted), on the snapshot the full run left: only changed pages and the
//   pages naming them are parsed; the rest of the base's link graph is reused;
// - first job: the same change on a base that was only read, never parsed (what a job on a new
//   repository pays before publishing).
// Targets: full ≤ 5000 ms, incremental ≤ 300 ms.
//
// Run: node bench/docs-checks.ts [--pages 10000] [--runs 5]   (npm run bench:checks)
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  checkSnapshots,
  clearFactsCache,
  DocsSnapshot,
  directorySource,
  listDirectory,
  overlaySource,
} from '../src/docs-checks/index.ts';
import { figureLine, percentile, timed } from './lib/stats.ts';

const { values } = parseArgs({
  options: { pages: { type: 'string', default: '10000' }, runs: { type: 'string', default: '5' } },
});
const PAGES = Number(values.pages);
const RUNS = Number(values.runs);
const DIRS = Math.max(1, Math.round(PAGES / 100));

const pagePath = (i: number) => `section-${i % DIRS}/page-${i}.mdx`;
const ref = (i: number) => pagePath(i).replace(/\.mdx$/, '');

function page(i: number): string {
  const next = (i + DIRS) % PAGES;
  const other = (i * 7 + 3) % PAGES;
  return `---
title: Page ${i}
description: What page ${i} covers
---

Intro to page ${i}, with a [link to the next page](./page-${next}#usage) and one to
[another section](/${ref(other)}#setup). Read **carefully**.

## Setup

1. Install the tool.
2. Configure it with \`option-${i}\`.

<Note>Only on version ${i % 9}.</Note>

\`\`\`bash
tool run --page ${i}
\`\`\`

![diagram](/images/diagram-${i % 50}.png)

## Usage

More prose about page ${i}, see [setup](#setup) above and the [API](/${ref((i + 1) % PAGES)}).

| option | default |
| --- | --- |
| size | ${i} |
`;
}

async function generate(root: string): Promise<void> {
  await mkdir(join(root, 'images'), { recursive: true });
  for (let d = 0; d < DIRS; d++) await mkdir(join(root, `section-${d}`), { recursive: true });
  const groups = Array.from({ length: DIRS }, (_, d) => ({
    group: `Section ${d}`,
    pages: Array.from({ length: PAGES }, (_, i) => i)
      .filter((i) => i % DIRS === d)
      .map(ref),
  }));
  await writeFile(
    join(root, 'docs.json'),
    JSON.stringify(
      { theme: 'mint', name: 'Bench', colors: { primary: '#000' }, navigation: { groups } },
      null,
      2,
    ),
  );
  for (let i = 0; i < 50; i++) await writeFile(join(root, `images/diagram-${i}.png`), 'png');
  const batch = 200;
  for (let i = 0; i < PAGES; i += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, PAGES - i) }, (_, k) =>
        writeFile(join(root, pagePath(i + k)), page(i + k)),
      ),
    );
  }
}

/** A job's change: three pages edited (one gains a broken link), one created and listed, one deleted (three pages link to it). */
async function jobChange(root: string): Promise<Map<string, string | null>> {
  const changes = new Map<string, string | null>();
  for (const i of [11, 222, 3333 % PAGES]) {
    const text = await readFile(join(root, pagePath(i)), 'utf8');
    changes.set(
      pagePath(i),
      text.replace('Read **carefully**.', 'Read [the new page](/section-0/new-page) carefully.'),
    );
  }
  changes.set(pagePath(11), `${changes.get(pagePath(11))}\nSee [missing](./no-such-page).\n`);
  changes.set('section-0/new-page.mdx', '---\ntitle: New page\n---\n\n## Start\n\nNew.\n');
  const config = await readFile(join(root, 'docs.json'), 'utf8');
  changes.set(
    'docs.json',
    config.replace('"section-0/page-0"', '"section-0/page-0",\n        "section-0/new-page"'),
  );
  changes.set(pagePath(4444 % PAGES), null);
  return changes;
}

const root = join(
  process.platform === 'linux' ? '/dev/shm' : tmpdir(),
  `docwright-bench-checks-${process.pid}`,
);
try {
  const setup = await timed(() => generate(root));
  const files = await listDirectory(root);
  console.log(`setup: ${PAGES} pages generated in ${Math.round(setup)} ms`);
  const source = directorySource(root, files);
  const changes = await jobChange(root);
  const branchSource = overlaySource(source, changes);

  const reads: number[] = [];
  const fulls: number[] = [];
  const fullCpus: number[] = [];
  const repeats: number[] = [];
  const incrementals: number[] = [];
  const firstJobs: number[] = [];
  let introduced = 0;
  for (let run = 0; run < RUNS; run++) {
    reads.push(await timed(() => Promise.all(files.map((f) => readFile(join(root, f), 'utf8')))));
    let base: DocsSnapshot | null = null;
    clearFactsCache();
    const cpu = process.cpuUsage();
    fulls.push(
      await timed(async () => {
        base = await DocsSnapshot.build(source);
        await checkSnapshots(base, base, { changed: [], full: true });
      }),
    );
    const used = process.cpuUsage(cpu);
    fullCpus.push((used.user + used.system) / 1000);
    incrementals.push(
      await timed(async () => {
        const branch = await base!.withChanges(branchSource, changes.keys());
        const result = await checkSnapshots(base!, branch, { changed: changes.keys() });
        introduced = result.introduced.length;
      }),
    );
    repeats.push(
      await timed(async () => {
        const again = await DocsSnapshot.build(source);
        await checkSnapshots(again, again, { changed: [], full: true });
      }),
    );
    clearFactsCache();
    firstJobs.push(
      await timed(async () => {
        const fresh = await DocsSnapshot.build(source);
        const branch = await fresh.withChanges(branchSource, changes.keys());
        await checkSnapshots(fresh, branch, { changed: changes.keys() });
      }),
    );
  }
  const read = percentile(reads, 50);
  console.log(
    `profile: introduced problems found by the incremental run: ${introduced} (expected 5: the dead link, three links to the deleted page, and its entry in docs.json)`,
  );
  console.log(figureLine('docs_checks_full_p50', percentile(fulls, 50), 'ms', read));
  // All threads' CPU (the parse workers' too): what the machine's load does not change much.
  console.log(figureLine('docs_checks_full_cpu_p50', percentile(fullCpus, 50), 'ms', null));
  console.log(figureLine('docs_checks_full_repeat_p50', percentile(repeats, 50), 'ms', read));
  console.log(figureLine('docs_checks_incremental_p50', percentile(incrementals, 50), 'ms', read));
  console.log(figureLine('docs_checks_first_job_p50', percentile(firstJobs, 50), 'ms', read));
} finally {
  await rm(root, { recursive: true, force: true });
}
