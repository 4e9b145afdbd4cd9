// One worker thread of parse-pool.ts: parses each batch of pages it is sent and posts their facts
// back, in the batch's order, until the pool terminates it.
import { parentPort, workerData } from 'node:worker_threads';
import { pageFacts } from './page-facts.ts';
import type { PageToParse } from './parse-pool.ts';

const { mdx } = workerData as { mdx: boolean };
parentPort?.on('message', ({ id, pages }: { id: number; pages: PageToParse[] }) => {
  parentPort?.postMessage({ id, facts: pages.map((page) => pageFacts(page.path, page.text, { mdx })) });
});
