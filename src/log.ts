// The daemon log: JSON lines under HOME/logs/, with every secret-bearing path redacted.
// Secrets must never reach the log even at debug level, so redaction is by field name
// wherever the field sits, not by call site.
import { mkdirSync, openSync } from 'node:fs'
import { join } from 'node:path'
import pino, { type Logger } from 'pino'
import { LogFile } from './log-file.ts'

export const REDACT_PATHS = [
  'authorization',
  'cookie',
  'token',
  'api_key',
  'apiKey',
  'access',
  'refresh',
  'access_token',
  'refresh_token',
  'id_token',
  'code',
  'code_verifier',
  'verifier',
  'state',
  'bearerToken',
  'password',
  'secret',
  'client_secret',
  'headers.authorization',
  'headers.cookie',
  '*.authorization',
  '*.cookie',
  '*.token',
  '*.api_key',
  '*.apiKey',
  '*.access',
  '*.refresh',
  '*.access_token',
  '*.refresh_token',
  '*.id_token',
  '*.code_verifier',
  '*.verifier',
  '*.bearerToken',
  '*.password',
  '*.secret',
  '*.client_secret',
  '*.headers.authorization',
  '*.headers.cookie',
]

export function openLog(home: string, level = process.env.HEARTH_LOG_LEVEL ?? 'info'): Logger {
  const dir = join(home, 'logs')
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  // The file is opened here, synchronously, so an exit right after start (a signal) can
  // still write the queued lines.
  const fd = openSync(join(dir, 'hearth.log'), 'a', 0o600)
  // Not pino.destination: its writer blocks the event loop on a full disk (see log-file.ts).
  const dest = new LogFile(fd)
  return pino(
    { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { pid: process.pid } },
    dest,
  )
}

export type { Logger }
