// HOME/daemon.json: how clients find a running daemon. Written atomically once listening,
// removed on clean exit; a file left by a killed daemon is replaced by the next start.
import { readFileSync, rmSync } from 'node:fs'
import writeFileAtomic from 'write-file-atomic'

export interface RuntimeInfo {
  url: string
  pid: number
  instance_id: string
  protocol: 3
  started_at: string
}

/**
 * Atomic (a reader sees the old file or the whole new one) but not synced to disk: the file
 * describes this process, which a power cut ends as well, and the next start replaces a file
 * a dead daemon left. The sync cost start-up about a millisecond.
 */
export function writeRuntimeInfo(path: string, info: RuntimeInfo): void {
  writeFileAtomic.sync(path, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600, fsync: false })
}

export function readRuntimeInfo(path: string): RuntimeInfo | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as RuntimeInfo
  } catch {
    return undefined
  }
}

export function removeRuntimeInfo(path: string, instanceId?: string): void {
  // Only remove our own file: never one a newer daemon wrote.
  if (instanceId !== undefined && readRuntimeInfo(path)?.instance_id !== instanceId) return
  rmSync(path, { force: true })
}
