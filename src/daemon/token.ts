// The bearer token: 32 random bytes, base64url, in HOME/token (0600). Created on first
// start and reused after, so clients keep working across restarts.
import { randomBytes } from 'node:crypto'
import { chmodSync, readFileSync } from 'node:fs'
import writeFileAtomic from 'write-file-atomic'

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/

export function loadOrCreateToken(path: string): string {
  let existing: string | undefined
  try {
    existing = readFileSync(path, 'utf8').trim()
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
  if (existing !== undefined && TOKEN_SHAPE.test(existing)) {
    chmodSync(path, 0o600)
    return existing
  }
  const token = randomBytes(32).toString('base64url')
  writeFileAtomic.sync(path, `${token}\n`, { mode: 0o600, fsync: true })
  return token
}
