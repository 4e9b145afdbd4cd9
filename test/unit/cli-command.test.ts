// The banner's name for the docwright command: the plain name only where a shell would find it.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cliCommand } from '../../src/main/cli-command.ts';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

test('with no docwright on PATH, the banner names the checkout bin/docwright', () => {
  const empty = mkdtempSync(join(tmpdir(), 'dw-path-'));
  try {
    assert.equal(cliCommand(empty, ROOT), './bin/docwright');
    assert.equal(cliCommand(empty, join(ROOT, 'docs')), join(ROOT, 'bin/docwright'));
  } finally {
    rmSync(empty, { recursive: true });
  }
});

test('with an executable docwright on PATH (npm link), the banner says docwright', () => {
  const bin = mkdtempSync(join(tmpdir(), 'dw-path-'));
  try {
    writeFileSync(join(bin, 'docwright'), '#!/bin/sh\n');
    assert.equal(cliCommand(`/nonexistent${delimiter}${bin}`, ROOT), './bin/docwright', 'not executable');
    chmodSync(join(bin, 'docwright'), 0o755);
    assert.equal(cliCommand(`/nonexistent${delimiter}${bin}`, ROOT), 'docwright');
  } finally {
    rmSync(bin, { recursive: true });
  }
});
