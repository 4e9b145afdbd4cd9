// GET /v2/agent/{projectId}/job/{id}/checks: the job's last docs check before publishing (or the
// last run of the check_docs tool while the job runs), as stored in its docs_checks event.
import { Type } from 'typebox';

export const DOCS_PROBLEM_CODES = [
  'markdown_syntax',
  'frontmatter_yaml',
  'frontmatter_field',
  'link_broken',
  'link_anchor',
  'file_missing',
  'nav_config',
  'nav_page_missing',
  'page_unreachable',
] as const;

export const DocsProblemSchema = Type.Object(
  {
    code: Type.String({ description: `The rule: ${DOCS_PROBLEM_CODES.join(', ')} (docs/docs-checks.md).` }),
    file: Type.String({ description: 'Repository-relative path of the file the problem is in.' }),
    line: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
    message: Type.String(),
    hint: Type.String({ description: 'One line saying how to fix it.' }),
  },
  { title: 'Docs problem' },
);

export const JobChecksSchema = Type.Object(
  {
    framework: Type.String({
      description:
        'mintlify, docusaurus, mkdocs, vitepress, starlight or markdown (detected, or the project setting).',
    }),
    mode: Type.Union([Type.Literal('warn'), Type.Literal('block')], {
      description: "The project's checks setting.",
    }),
    trigger: Type.Union([Type.Literal('tool'), Type.Literal('publish'), Type.Literal('after_fix')], {
      description:
        'What ran the check: the check_docs tool, the check before publishing, or the one after a fix turn.',
    }),
    passed: Type.Boolean({ description: 'True when the job introduced no problem.' }),
    introducedCount: Type.Integer({ minimum: 0 }),
    introduced: Type.Array(DocsProblemSchema, {
      description:
        'The problems the job introduced (present on its branch, absent at its base), at most 100.',
    }),
    preexisting: Type.Integer({
      minimum: 0,
      description: 'Problems of the checked files that were there before the job (not its to fix).',
    }),
    pagesChecked: Type.Integer({ minimum: 0 }),
    durationMs: Type.Integer({ minimum: 0 }),
    checkedAt: Type.String({ format: 'date-time' }),
  },
  { title: 'Job docs checks' },
);
