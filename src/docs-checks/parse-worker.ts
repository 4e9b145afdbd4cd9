// One worker thread of parse-pool.ts: parses the pages it is given and posts their facts back.
import { parentPort, workerData } from 'node:worker_threads';
import { type PageToParse, parseInline } from './parse-pool.ts';

const { pages, mdx } = workerData as { pages: PageToParse[]; mdx: boolean };
parentPort?.postMessage([...parseInline(pages, mdx)]);
