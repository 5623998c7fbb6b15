// What the page shows the way the terminal client and the CLI do, from src/client's modules
// that import no Node builtin (the web build fails on one): the wording of a tool call and of
// "always", the quota trails, the work items' outline. The page imports src/client through
// this file only (docs/architecture.md, Layers).
export { type Args, alwaysCovers, parseArgs, sharedEnds, str } from '../../../client/approval-words.ts'
export { isStale, readTrail, resetsOf, spanText, type Trail } from '../../../client/quota-trail.ts'
export { outlineRows, WORK_MARK, WORK_STATUSES, workItems } from '../../../client/work-view.ts'
