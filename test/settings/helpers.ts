// Steps the settings tests share: reads with their ETag, merge-patch PATCHes, file reads.
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { RawResponse, TestDaemon } from '../helpers/daemon.ts'

export async function readGroup(d: TestDaemon, group: string): Promise<{ etag: string; settings: any }> {
  const r = await d.request({ path: `/settings?group=${group}` })
  if (r.status !== 200) throw new Error(`GET ${group}: ${r.status} ${r.text()}`)
  return { etag: String(r.headers.etag), settings: r.json().settings }
}

export function patchGroup(
  d: TestDaemon,
  group: string,
  body: unknown,
  etag: string | undefined,
): Promise<RawResponse> {
  const headers: Record<string, string> = { 'content-type': 'application/merge-patch+json' }
  if (etag !== undefined) headers['if-match'] = etag
  return d.request({
    method: 'PATCH',
    path: `/settings?group=${group}`,
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

/** Patches with a freshly read ETag, reading again while another write got in first (412). */
export async function patchFresh(d: TestDaemon, group: string, body: unknown): Promise<RawResponse> {
  for (;;) {
    const { etag } = await readGroup(d, group)
    const r = await patchGroup(d, group, body, etag)
    if (r.status !== 412) return r
  }
}

/** Reads, patches with the fresh ETag, and asserts 200. */
export async function change(d: TestDaemon, group: string, body: unknown): Promise<any> {
  const { etag } = await readGroup(d, group)
  const r = await patchGroup(d, group, body, etag)
  if (r.status !== 200) throw new Error(`PATCH ${group}: ${r.status} ${r.text()}`)
  return r.json()
}

export const fileJson = (home: string, name: string) => JSON.parse(readFileSync(join(home, name), 'utf8'))
export const modeOf = (home: string, name: string) => statSync(join(home, name)).mode & 0o777
