// A home on a file system that fills up: writes that cannot commit answer 507
// insufficient_storage, reads keep answering, the log drops lines instead of blocking, and
// once space returns the daemon serves writes again by itself. Nothing acknowledged is lost.
// The home is a small tmpfs mounted for the test (root only; skipped with a reason otherwise).
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { v7 as uuidv7 } from 'uuid'
import { type RawResponse, startDaemon, type TestDaemon, until } from '../helpers/daemon.ts'

/** Mounts a tmpfs of `size` at a new directory; the reason it cannot, or the directory. */
function mountSmallFs(size: string): { dir: string } | { skip: string } {
  if (process.platform !== 'linux') return { skip: 'needs Linux (tmpfs)' }
  if (process.getuid?.() !== 0) return { skip: 'needs root to mount a small tmpfs' }
  const dir = mkdtempSync(join(tmpdir(), 'hearth-fullfs-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: 'pipe' })
  } catch (err) {
    rmSync(dir, { recursive: true, force: true })
    return { skip: `cannot mount a tmpfs here: ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}` }
  }
  return { dir }
}

/** Writes zeros until the file system refuses (ENOSPC). */
function fill(path: string): void {
  const fd = openSync(path, 'w')
  const chunk = Buffer.alloc(64 * 1024)
  try {
    for (;;) writeSync(fd, chunk)
  } catch (err) {
    assert.equal((err as NodeJS.ErrnoException).code, 'ENOSPC')
  } finally {
    closeSync(fd)
  }
}

const json = (body: unknown, headers: Record<string, string> = {}) => ({
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
})

describe('a full disk', () => {
  const mounted = mountSmallFs('6m')
  const skip = 'skip' in mounted ? mounted.skip : undefined
  let d: TestDaemon | undefined
  const ws = mkdtempSync(join(tmpdir(), 'hearth-ws-'))

  /** Unmounts once, whichever comes first: the after hook or the test process exiting. */
  let unmounted = false
  const unmount = () => {
    if (unmounted || !('dir' in mounted)) return
    unmounted = true
    d?.proc.kill('SIGKILL') // a daemon still on the mount would keep it busy
    // Lazy: detached now, gone once the last open file on it closes.
    execFileSync('umount', ['-l', mounted.dir], { stdio: 'pipe' })
    rmSync(mounted.dir, { recursive: true, force: true })
  }
  process.once('exit', unmount)

  before(() => {
    if (skip) process.stderr.write(`full-disk test skipped: ${skip}\n`)
  })

  after(async () => {
    await d?.stop('SIGKILL')
    unmount()
    rmSync(ws, { recursive: true, force: true })
  })

  const create = (name: string): Promise<RawResponse> =>
    d!.request({
      method: 'PUT',
      path: `/sessions/${uuidv7()}`,
      ...json({ kind: 'new', workspace: ws, name }, { 'if-none-match': '*' }),
    })

  it('refuses writes with 507, keeps reading, and writes again once space returns', {
    skip,
    timeout: 90_000,
  }, async () => {
    const dir = (mounted as { dir: string }).dir
    const home = join(dir, 'home')
    mkdirSync(home, { mode: 0o700 })
    d = await startDaemon({ home })
    const acknowledged: string[] = []
    const first = await create('before')
    assert.equal(first.status, 201, first.text())
    acknowledged.push(first.json().id)
    // The log file is open (it opens 250 ms after ready) and holds its first lines before
    // the disk fills.
    const logFile = join(home, 'logs', 'hearth.log')
    await until(
      'the log written',
      () => existsSync(logFile) && readFileSync(logFile, 'utf8').includes('"listening"}\n'),
    )

    const filler = join(dir, 'filler')
    fill(filler)
    const refused: RawResponse[] = []
    const inputs: string[] = []
    for (let i = 0; i < 40; i++) {
      const res = await create(`full-${i}`)
      if (res.status === 201) acknowledged.push(res.json().id)
      else refused.push(res)
      // An input too (its run then fails at once: the session names no configured profile).
      const inputId = uuidv7()
      const input = await d.request({
        method: 'PUT',
        path: `/sessions/${acknowledged[0]}/inputs/${inputId}`,
        ...json({ kind: 'message', text: `while full ${i}`, client_id: 'draft-1' }),
      })
      if (input.status === 202) inputs.push(inputId)
      else refused.push(input)
      // Reads answer all along: the event loop is never held by the log or the store.
      const server = await d.request({ path: '/server' })
      assert.equal(server.status, 200, server.text())
      const list = await d.request({ path: '/sessions' })
      assert.equal(list.status, 200, list.text())
    }
    assert.ok(refused.length > 0, 'the disk filled up, so some writes must be refused')
    for (const res of refused) {
      assert.equal(res.status, 507, res.text())
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/)
      assert.equal(res.json().code, 'insufficient_storage')
    }
    assert.equal(d.proc.exitCode, null, 'the daemon is still running')

    rmSync(filler)
    // Space is back: the next writes commit, without a restart.
    let again: RawResponse | undefined
    const deadline = Date.now() + 30_000
    for (let i = 0; Date.now() < deadline; i++) {
      again = await create(`after-${i}`)
      if (again.status === 201) break
      await sleep(20)
    }
    assert.equal(again?.status, 201, again?.text())
    acknowledged.push(again!.json().id)
    assert.equal(d.proc.exitCode, null, 'the daemon is still running')

    // The log says how many lines it dropped while the disk was full, once it can write
    // again (the drain's lines are the next ones), after a line the full disk cut short.
    assert.equal(await d.stop(), 0)
    const log = readFileSync(join(home, 'logs', 'hearth.log'), 'utf8')
    assert.match(log, /\n\{"level":40,[^\n]*"msg":"log lines dropped","dropped":[1-9]/)
    assert.match(log, /"msg":"stopped"/)

    // Nothing acknowledged is lost.
    d = await startDaemon({ home })
    for (const id of acknowledged) {
      const res = await d.request({ path: `/sessions/${id}` })
      assert.equal(res.status, 200, `${id}: ${res.text()}`)
    }
    for (const id of inputs) {
      const res = await d.request({ path: `/sessions/${acknowledged[0]}/inputs/${id}` })
      assert.equal(res.status, 200, `input ${id}: ${res.text()}`)
    }
    assert.equal(await d.stop(), 0)
    d = undefined
  })
})
