// `hearth login PROVIDER --manual` as a child process, with no browser: what the login tests
// of every provider drive the same way. It resolves once the authorize URL is printed; the
// test answers with a pasted `code#state` (`paste`) and waits for the exit (`exited`).
import { spawn } from 'node:child_process'
import { BIN } from '../helpers/daemon.ts'

export interface LoginChild {
  /** The authorize URL the command printed. */
  url: URL
  stdout(): string
  stderr(): string
  /** Writes a line to the command's stdin, as a person pasting it. */
  paste(line: string): void
  /** The exit code, once the command ended. */
  exited: Promise<number | null>
}

export async function startLogin(home: string, provider: string, urlPattern: RegExp): Promise<LoginChild> {
  const child = spawn(process.execPath, [BIN, 'login', provider, '--manual', '--home', home], {
    env: { ...process.env, HEARTH_NO_BROWSER: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stderr.on('data', (c) => {
    stderr += c
  })
  const exited = new Promise<number | null>((r) => child.once('exit', r))
  const url = await new Promise<URL>((resolve, reject) => {
    child.stdout.on('data', (c) => {
      stdout += c
      const m = urlPattern.exec(stdout)
      if (m) resolve(new URL(m[1]))
    })
    child.once('exit', () => reject(new Error(`exited early: ${stdout} ${stderr}`)))
  })
  return {
    url,
    stdout: () => stdout,
    stderr: () => stderr,
    paste: (line) => child.stdin.write(`${line}\n`),
    exited,
  }
}
