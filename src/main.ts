// Bundle entry of dist/hearth.mjs: the `hearth` command with the process arguments.
import { main } from './cli/main.ts'
import { runEntry } from './command-line/errors.ts'

runEntry(() => main(process.argv.slice(2)))
