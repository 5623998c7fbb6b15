// docs/problems.md, generated from the problem code registry so the two never disagree.
import {
  PROBLEM_TYPE_BASE,
  PROBLEMS,
  type ProblemCode,
  RELOAD_FAILURE_CODES,
  RUN_FAILURE_CODES,
  UPGRADE_FAILURE_CODES,
} from '../schemas/problems.ts'

export function problemsMarkdown(): string {
  const row = (p: { code: string; status: number; title: string }) =>
    `| \`${p.code}\` | ${p.status} | ${p.title.replaceAll('|', '\\|')} |`
  const failures = [...RUN_FAILURE_CODES].map((code) => row({ code, ...PROBLEMS[code] }))
  const reloads = [...RELOAD_FAILURE_CODES].map((code) => row({ code, ...PROBLEMS[code] }))
  const upgrades = [...UPGRADE_FAILURE_CODES].map((code) => row({ code, ...PROBLEMS[code] }))
  const rows = (Object.keys(PROBLEMS) as ProblemCode[])
    .filter(
      (code) =>
        !RUN_FAILURE_CODES.has(code) && !RELOAD_FAILURE_CODES.has(code) && !UPGRADE_FAILURE_CODES.has(code),
    )
    .map((code) => ({ code, ...PROBLEMS[code] }))
    .sort((a, b) => a.status - b.status) // stable: registry order within a status
    .map(row)
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
    '## Run failures',
    '',
    'These codes are never an HTTP answer. They say why a run failed, in the `problem` of the',
    '`run.ended` event and of the history `error` entry (see docs/inputs.md).',
    '',
    '| Code | Status | Title |',
    '|---|---|---|',
    ...failures,
    '',
    '## Reload failures',
    '',
    'These codes are never an HTTP answer either. They say why one target of',
    '`POST /sessions/{id}/reload` failed, in that target\'s `problem` (see docs/sessions.md, "Reload").',
    '',
    '| Code | Status | Title |',
    '|---|---|---|',
    ...reloads,
    '',
    '## Kernel upgrade failures',
    '',
    'Never an HTTP answer either: why `POST /sessions/{id}/kernel/upgrade` failed, in its',
    '`problem` (see docs/kernels.md).',
    '',
    '| Code | Status | Title |',
    '|---|---|---|',
    ...upgrades,
    '',
  ].join('\n')
}
