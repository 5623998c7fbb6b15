// Bundle entry of dist/daemon.mjs: `hearth daemon …`, which bin/hearth.mjs starts from
// here rather than from dist/hearth.mjs. One bundle of its own loads as a few files instead
// of the fifteen chunks it shared with the other commands (~0.25 ms each), and without the
// code of those commands.
import { daemonCommand } from './cli/daemon.ts'
import { takeGlobalOptions } from './command-line/args.ts'
import { reported, runEntry, stdout } from './command-line/errors.ts'

// The launcher passes `daemon` through, perhaps after global options (`hearth --home DIR
// daemon`); `node dist/daemon.mjs --port 0` works as well.
runEntry(() =>
  reported(() => {
    const argv = process.argv.slice(2)
    const { command, rest } = takeGlobalOptions(argv)
    return daemonCommand(command === 'daemon' ? rest : argv, stdout)
  }),
)
