// `npm test` lints before it tests, so the lint must look only at the project's own sources: a
// file a user writes into the clone while following the README (a job saved with curl, say) must
// not fail the suite. And the README's examples must not write into the clone in the first place.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIOME = join(ROOT, 'node_modules/@biomejs/biome/bin/biome');

function biomeCheck(dir: string): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [BIOME, 'check', '.'], { cwd: dir, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

test("biome checks the project's sources and nothing a user leaves in the clone", (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'docwright-lint-scope-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  copyFileSync(join(ROOT, 'biome.json'), join(dir, 'biome.json'));
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src/ok.ts'), "export const ok = 'ok';\n");
  // What `curl ... | tee job.json` leaves: one unformatted line of JSON, and a stray script.
  writeFileSync(join(dir, 'job.json'), '{"id":"job_1","status":"failed",   "prLink":null}');
  writeFileSync(join(dir, 'scratch.ts'), 'const   x = 1\n');

  const clean = biomeCheck(dir);
  assert.equal(clean.status, 0, clean.output);

  // The same check still fails on a badly formatted source file, so the pass above means something.
  writeFileSync(join(dir, 'src/bad.ts'), 'export const   bad = 1\n');
  const dirty = biomeCheck(dir);
  assert.notEqual(dirty.status, 0, dirty.output);
  assert.match(dirty.output, /src\/bad\.ts/);
});

test("the README's and getting-started's shell examples write no file into the clone", () => {
  const offenders: string[] = [];
  for (const page of ['README.md', 'docs/getting-started.md']) {
    const text = readFileSync(join(ROOT, page), 'utf8');
    for (const block of text.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)) {
      // `tee FILE`, `> FILE`, `>> FILE` and `-o FILE` whose target is a relative path (`<name>`
      // placeholders and `2>&1` are not redirections into a file).
      for (const m of block[1]!.matchAll(
        /(?:\btee\s+(?:-a\s+)?|(?<![\w<>-])>>?\s*|\s-o\s+)(["']?)([^\s"'|;&]+)\1/g,
      )) {
        const target = m[2]!;
        if (target.startsWith('/') || target.startsWith('$') || target.startsWith('&')) continue;
        offenders.push(`${page}: ${m[0].trim()}`);
      }
    }
  }
  assert.deepEqual(offenders, []);
});
