// Steps the snapshot tests share: the changes of a run, restores by PUT, polling, and a run
// whose scripted model calls the write, edit and shell tools.
import { setTimeout as sleep } from 'node:timers/promises'
import { v7 as uuidv7 } from 'uuid'
import type { RawResponse, TestDaemon } from '../helpers/daemon.ts'
import { type AgentSetup, getSession, runMessage } from '../tools/agent-helpers.ts'

export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  ms = 15_000,
): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const v = await probe()
    if (v) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(25)
  }
}

export async function getJson(d: TestDaemon, path: string): Promise<any> {
  const r = await d.request({ path })
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.text()}`)
  return r.json()
}

export function putRestore(d: TestDaemon, sid: string, body: unknown, id = uuidv7()): Promise<RawResponse> {
  return d.request({
    method: 'PUT',
    path: `/sessions/${sid}/restores/${id}`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

/** Runs a message, then waits for the run's after snapshot (its `workspace.changed` is async). */
export async function runAndRecord(s: AgentSetup, sid: string, text: string): Promise<string> {
  const done = await runMessage(s, sid, text)
  const runId = done.latest_answer.run_id as string
  await waitFor('the run’s changes', async () => {
    const c = await getJson(s.d, `/sessions/${sid}/runs/${runId}/changes`)
    return c.state !== 'running' ? c : undefined
  })
  return runId
}

export async function changesOf(d: TestDaemon, sid: string, runId: string): Promise<any> {
  return getJson(d, `/sessions/${sid}/runs/${runId}/changes`)
}

export { getSession }
