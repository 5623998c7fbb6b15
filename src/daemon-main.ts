// Bundle entry of dist/daemon.mjs: `hearth daemon …`, which bin/hearth.mjs starts from
// here rather than from dist/hearth.mjs. One bundle of its own loads as a few files instead
// of the fifteen chunks it shared with the other commands (~0.25 ms each), and without the
// code of those commands.
import { daemonCommand } from './cli/daemon.ts'
import { reported, runEntry, stdout } from './cli/errors.ts'

runEntry(() => reported(() => daemonCommand(process.argv.slice(3), stdout)))
