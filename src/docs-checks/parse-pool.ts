// Parses many pages at once: in this thread for a few, on worker threads for many, so that a
// 10,000-page repository is read in seconds and the server's event loop is not held meanwhile.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { type PageFacts, pageFacts } from './page-facts.ts';

export interface PageToParse {
  path: string;
  text: string;
}

/** Below this many pages, starting workers costs more than it saves. */
const INLINE_LIMIT = 400;
const MAX_WORKERS = 4;

export async function parsePages(
  pages: readonly PageToParse[],
  mdx: boolean,
): Promise<Map<string, PageFacts>> {
  const workers = Math.min(MAX_WORKERS, Math.max(1, availableParallelism()));
  if (pages.length < INLINE_LIMIT || workers < 2) return parseInline(pages, mdx);
  const size = Math.ceil(pages.length / workers);
  const batches = Array.from({ length: workers }, (_, i) => pages.slice(i * size, (i + 1) * size));
  const results = await Promise.all(batches.map((batch) => parseOnWorker(batch, mdx)));
  const facts = new Map<string, PageFacts>();
  for (const result of results) for (const [path, fact] of result) facts.set(path, fact);
  return facts;
}

export function parseInline(pages: readonly PageToParse[], mdx: boolean): Map<string, PageFacts> {
  const facts = new Map<string, PageFacts>();
  for (const page of pages) facts.set(page.path, pageFacts(page.path, page.text, { mdx }));
  return facts;
}

function parseOnWorker(pages: readonly PageToParse[], mdx: boolean): Promise<[string, PageFacts][]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./parse-worker.ts', import.meta.url), { workerData: { pages, mdx } });
    worker.once('message', (result: [string, PageFacts][]) => {
      resolve(result);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`The page parser worker stopped with exit code ${code}.`));
    });
  });
}
