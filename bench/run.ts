// `npm run bench` runs the default sections; `node bench/run.ts startup http profile` runs
// the named ones. Each section returns rows and one table is printed at the end. A new bench
// is a file in bench/sections/ exporting a Section, listed below.
import { machine, printTable, type Row, type Section } from './lib.ts'
import { acp } from './sections/acp.ts'
import { bedrock } from './sections/bedrock.ts'
import { claude } from './sections/claude.ts'
import { context } from './sections/context.ts'
import { copilot } from './sections/copilot.ts'
import { http } from './sections/http.ts'
import { kernels } from './sections/kernels.ts'
import { mcp } from './sections/mcp.ts'
import { profile } from './sections/profile.ts'
import { prompt } from './sections/prompt.ts'
import { providers } from './sections/providers.ts'
import { quotaSection as quota } from './sections/quota.ts'
import { runs } from './sections/runs.ts'
import { sessions } from './sections/sessions.ts'
import { snapshots } from './sections/snapshots.ts'
import { startup } from './sections/startup.ts'
import { toolOutput } from './sections/tool-output.ts'
import { tools } from './sections/tools.ts'
import { toolsExec } from './sections/tools-exec.ts'
import { turn } from './sections/turn.ts'
import { web } from './sections/web.ts'

/** Run by default, in this order. */
const DEFAULT: readonly Section[] = [
  startup,
  http,
  sessions,
  runs,
  providers,
  claude,
  copilot,
  bedrock,
  kernels,
  tools,
  toolsExec,
  toolOutput,
  context,
  prompt,
  turn,
  quota,
  snapshots,
  acp,
  web,
]
/** Run only when named (slow, or diagnostic rather than a tracked figure). */
const ON_REQUEST: readonly Section[] = [profile, mcp]

const all = [...DEFAULT, ...ON_REQUEST]
const names = process.argv.slice(2)
const unknown = names.filter((n) => !all.some((s) => s.name === n))
if (unknown.length > 0) {
  console.error(`unknown bench section: ${unknown.join(', ')}`)
  for (const s of all) console.error(`  ${s.name.padEnd(8)} ${s.description}`)
  process.exit(2)
}
const chosen = names.length === 0 ? DEFAULT : names.map((n) => all.find((s) => s.name === n) as Section)

console.log(`hearth bench, ${new Date().toISOString()}, ${machine()}`)
const rows: Row[] = []
for (const s of chosen) {
  process.stderr.write(`running ${s.name}: ${s.description}…\n`)
  rows.push(...(await s.run()))
}
printTable(rows)
