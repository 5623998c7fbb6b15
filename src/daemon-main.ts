// Bundle entry of dist/daemon.mjs: `hearth daemon …`, which bin/hearth.mjs starts from
// here rather than from dist/hearth.mjs. One bundle of its own loads as a few files instead
// of the fifteen chunks it shared with the other commands (~0.25 ms each), and without the
// code of those commands.
import { daemonCommand } from './cli/daemon.ts'
import { reported, runEntry, stdout } from './cli/errors.ts'

// The launcher passes `daemon` through; `node dist/daemon.mjs --port 0` works as well.
const args = process.argv.slice(2)
if (args[0] === 'daemon') args.shift()
runEntry(() => reported(() => daemonCommand(args, stdout)))
