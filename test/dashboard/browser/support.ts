// What the dashboard's browser tests share: Debian's Chromium driven by playwright-core (never a
// downloaded browser), the real `docwright serve` on a fresh embedded database with its console
// output captured, and checks every page must pass (labelled fields, no console errors, no
// sideways scrolling at phone width) with screenshots at both widths under test-artifacts/.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, ConsoleMessage, Page } from 'playwright-core';
import { loadConfig } from '../../../src/config/config.ts';
import { withSecretKey } from '../../../src/config/secret-key-file.ts';
import { type RunningServer, serve } from '../../../src/main/serve.ts';
import type { ServeExtension } from '../../../src/main/serve-extension.ts';
import { createLogger } from '../../../src/util/logger.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
export const WIDE = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };
export const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), '../../../test-artifacts/dashboard');

/** Why the browser tests cannot run here, or null. In CI a missing browser fails the run instead. */
export function browserMissing(): string | null {
  if (existsSync(CHROMIUM)) return null;
  const why = `no Chromium at ${CHROMIUM} (install Debian's package "chromium", or set CHROMIUM_PATH)`;
  if (process.env.CI === 'true') throw new Error(`${why}; CI requires it (.ci/run installs it)`);
  return why;
}

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

export interface TestServer {
  server: RunningServer;
  baseUrl: string;
  /** Everything serve printed for people (the banner, the setup link). */
  printed(): string;
  close(): Promise<void>;
}

/** `docwright serve` on a new data directory (PGlite), port chosen by the system. */
export async function startServe(
  extensions: readonly ServeExtension[],
  env: Record<string, string> = {},
): Promise<TestServer> {
  const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const root = mkdtempSync(join(base, 'dw-dashboard-'));
  const config = withSecretKey(
    loadConfig({
      DOCWRIGHT_DATA_DIR: join(root, 'data'),
      PORT: '0',
      LOG_LEVEL: 'silent',
      ...env,
    }),
  );
  let printed = '';
  const server = await serve(config, {
    logger: createLogger('silent'),
    terminal: true, // the tests read the setup link from what is printed
    print: (text) => {
      printed += text;
    },
    extensions,
  });
  return {
    server,
    baseUrl: server.baseUrl,
    printed: () => printed,
    async close() {
      await server.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** A page that records console errors and uncaught exceptions. */
export async function openPage(
  context: BrowserContext,
): Promise<{ page: Page; problems: string[]; allow(pattern: RegExp): void }> {
  const page = await context.newPage();
  const problems: string[] = [];
  const allowed: RegExp[] = [];
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() !== 'error') return;
    const text = `${message.text()} @ ${message.location().url}`;
    if (!allowed.some((p) => p.test(text))) problems.push(text);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  return { page, problems, allow: (pattern) => allowed.push(pattern) };
}

/** Every visible form control has a label (a <label for>, a wrapping label or aria-label). */
export async function assertLabelled(page: Page): Promise<void> {
  // Runs in the page (a string: the project's type check has no DOM library).
  const unlabelled = (await page.evaluate(`[...document.querySelectorAll('input, select, textarea')]
    .filter((el) => el.type !== 'hidden')
    .filter((el) => (el.labels ? el.labels.length : 0) === 0 && !el.getAttribute('aria-label'))
    .map((el) => el.outerHTML.slice(0, 120))`)) as string[];
  assert.deepEqual(unlabelled, [], `unlabelled fields on ${page.url()}`);
}

/** The page does not scroll sideways (wide tables scroll inside their own box). */
export async function assertFitsWidth(page: Page): Promise<void> {
  const { scroll, width, culprits } = (await page.evaluate(`(() => {
    const inScrollBox = (el) => el.closest('.table-wrap, pre') !== null;
    // The innermost elements that stick out, to say what to fix.
    const out = [...document.body.querySelectorAll('*')].filter(
      (el) => el.getBoundingClientRect().right > window.innerWidth + 1 && !inScrollBox(el),
    );
    const innermost = out.filter((el) => !out.some((other) => other !== el && el.contains(other)));
    return {
      scroll: document.documentElement.scrollWidth,
      width: window.innerWidth,
      culprits: innermost.slice(0, 5).map((el) => el.tagName.toLowerCase() + '.' + el.className + ': ' + el.outerHTML.slice(0, 100)),
    };
  })()`)) as { scroll: number; width: number; culprits: string[] };
  assert.ok(
    scroll <= width,
    `${page.url()} is ${scroll} px wide in a ${width} px window; sticking out:\n${culprits.join('\n')}`,
  );
}

/**
 * Screenshots of the page at 1280 px and at 390 px (full height), checking labels and width at
 * both; leaves the page at the wide size.
 */
export async function capture(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await assertLabelled(page);
  for (const size of [PHONE, WIDE]) {
    await page.setViewportSize(size);
    // Let resize observers (the chart) redraw for the new width: two animation frames.
    await page.evaluate('new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))');
    await assertFitsWidth(page);
    await page.screenshot({ path: join(ARTIFACTS, `${name}-${size.width}.png`), fullPage: true });
  }
}

export function cleanArtifacts(): void {
  rmSync(ARTIFACTS, { recursive: true, force: true });
}

/** Evaluates an expression in the page (written as a string: the type check has no DOM library). */
export async function inPage<T>(page: Page, expression: string): Promise<T> {
  return (await page.evaluate(expression)) as T;
}

/** The text of each cell of the rows matching rowSelector, thousands separators removed. */
export function tableCells(page: Page, rowSelector: string): Promise<string[][]> {
  return inPage(
    page,
    `[...document.querySelectorAll(${JSON.stringify(rowSelector)})].map((tr) =>
      [...tr.querySelectorAll('td')].map((td) => td.textContent.trim().replaceAll(',', '')))`,
  );
}
