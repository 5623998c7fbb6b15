// Bundle entry: run the CLI with the process arguments.
import { main } from './cli/main.ts'

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code
  },
  (err) => {
    process.stderr.write(`hearth: ${(err as Error).stack ?? err}\n`)
    process.exitCode = 1
  },
)
