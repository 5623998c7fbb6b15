// The fake `credential_process` program (credential-process.mjs beside this file) and the
// command line that runs it with this test's Node, quoted as a config file would hold it.
import { join } from 'node:path'
import { join as joinWords } from 'shlex'

export const FAKE_PROCESS = join(import.meta.dirname, 'credential-process.mjs')

export function fakeProcessCommand(args: string[] = []): string {
  return joinWords([process.execPath, FAKE_PROCESS, ...args])
}
