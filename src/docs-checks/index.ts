// Docs checks: framework detection and the rules that tell whether a docs repository still
// builds (pages parse, front matter, links and anchors, referenced files, navigation), run
// in-process on the files, never by running the framework's own tools. Self-contained: it
// imports nothing else of docwright, so the agent, tests and the benchmark use it alike.
export { type CheckOptions, checkSnapshots, type DocsCheckResult, prepareBase } from './check.ts';
export { clearFactsCache } from './facts-cache.ts';
export { DOCS_FRAMEWORKS, type DocsFramework, detectFramework, type FrameworkInfo } from './frameworks.ts';
export { isPage, PAGE_EXTENSIONS } from './page-facts.ts';
export { DOCS_CHECK_CODES, type DocsCheckCode, type DocsProblem } from './problems.ts';
export { DocsSnapshot, type DocsSource, type SnapshotOptions } from './snapshot.ts';
export { directorySource, listDirectory, overlaySource } from './sources.ts';
