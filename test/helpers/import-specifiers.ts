// The module specifiers a source file names, read as text: `import`/`export ... from '...'`, bare
// `import '...'`, and `import('...')`. For tests that hold a folder to what it may import.

export function importSpecifiers(code: string): string[] {
  const found: string[] = [];
  for (const m of code.matchAll(/(?:^|[\s;}])(?:import|export)\b[^'"]*?\bfrom\s*['"]([^'"]+)['"]/g))
    found.push(m[1]!);
  for (const m of code.matchAll(/(?:^|[\s;])import\s*['"]([^'"]+)['"]/g)) found.push(m[1]!);
  for (const m of code.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]/g)) found.push(m[1]!);
  return found;
}
