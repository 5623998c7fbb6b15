// Bundle entry of dist/hearth.mjs: the `hearth` command with the process arguments.
import { runEntry } from './command-line/errors.ts'
import { main } from './cli/main.ts'

runEntry(() => main(process.argv.slice(2)))
