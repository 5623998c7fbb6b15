// `/work` in the terminal client: the open session's workspace's work items as an outline,
// or one change: `add TITLE`, `start ID`, `done ID`, `cancel ID` (an ID may be its start).
import type { HearthClient } from '../client/client.ts'
import { changeWork, resolveWorkId, shortId, workItems, workOutline } from '../client/work-view.ts'
import type { WorkItem } from '../schemas/work.ts'

const STATUS_OF: Record<string, WorkItem['status']> = {
  start: 'in_progress',
  done: 'done',
  cancel: 'cancelled',
}

/** What `/work ARGS` says in the transcript; `warn` for a usage or a lookup that failed. */
export async function workText(
  client: HearthClient,
  workspace: string,
  args: string,
): Promise<{ text: string; warn?: boolean }> {
  const [verb = '', ...rest] = args.split(/\s+/).filter(Boolean)
  const arg = rest.join(' ')
  if (verb === '') return { text: workOutline(await workItems(client, workspace), workspace) }
  if (verb === 'add') {
    if (!arg) return { text: 'usage: /work add TITLE', warn: true }
    const { body } = await client.call('work.create', { query: { workspace }, body: { title: arg } })
    return { text: `added ${shortId(body.resource.value.id)}  ${arg}` }
  }
  const status = STATUS_OF[verb]
  if (!status || !arg)
    return { text: 'usage: /work [add TITLE | start ID | done ID | cancel ID]', warn: true }
  const found = await resolveWorkId(client, workspace, arg)
  if ('error' in found) return { text: found.error, warn: true }
  const item = await changeWork(client, workspace, found.id, { status })
  return { text: `${shortId(item.id)} ${item.status}: ${item.title}` }
}
