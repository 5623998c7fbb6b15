// docs/problems.md, generated from the problem code registry so the two never disagree.
import { PROBLEM_TYPE_BASE, PROBLEMS, type ProblemCode } from '../schemas/problems.ts'

export function problemsMarkdown(): string {
  const rows = (Object.keys(PROBLEMS) as ProblemCode[])
    .map((code) => ({ code, ...PROBLEMS[code] }))
    .sort((a, b) => a.status - b.status) // stable: registry order within a status
    .map((p) => `| \`${p.code}\` | ${p.status} | ${p.title.replaceAll('|', '\\|')} |`)
  return [
    '# Problem codes',
    '',
    '<!-- Generated from src/schemas/problems.ts by `npm run openapi:write`; do not edit. -->',
    '',
    'Every error response of the hearth daemon is an `application/problem+json` body with',
    `\`type\` (\`${PROBLEM_TYPE_BASE}<code>\`), \`title\`, \`status\`, \`detail\` and \`code\`.`,
    '',
    'The `code` is the stable, machine-readable cause: clients branch on `code`, never on the',
    'status alone or on `title` or `detail`, which are for people and may change. A code is',
    'never renamed or reused for another meaning; new codes are added when a client would act',
    'differently. The OpenAPI document (`docs/openapi.json`, also served at `GET /openapi.json`)',
    'lists the codes each operation can answer under `x-problem-codes` on its problem responses.',
    '',
    '| Code | Status | Title |',
    '|---|---|---|',
    ...rows,
    '',
  ].join('\n')
}
