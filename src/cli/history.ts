// `hearth session show ID --history`: the conversation, oldest first, one block per entry
// (`you:`, `assistant:`, `error:`); --json prints each entry as the daemon sends it, one
// per line. A text the page cut short is read whole from the entry.
import type { HearthClient } from '../client/client.ts'
import { ProblemError } from '../client/client.ts'
import type { Out } from '../command-line/errors.ts'
import { problemText } from '../command-line/errors.ts'
import type { Problem } from '../schemas/problems.ts'

interface Entry {
  id: string
  kind: string
  content: Record<string, unknown>
}

const PAGE = 200

/** The entry's whole text: the page's, or every piece of it when the page cut it. */
async function wholeText(client: HearthClient, sessionId: string, e: Entry): Promise<string> {
  if (e.content.truncated !== true) return String(e.content.text ?? '')
  let text = ''
  let next: string | undefined
  do {
    const { body } = await client.call('history.entry', {
      params: { session_id: sessionId, entry_id: e.id },
      query: { next },
    })
    text += body.text
    next = body.next ?? undefined
  } while (next !== undefined)
  return text
}

async function entryText(client: HearthClient, sessionId: string, e: Entry): Promise<string | undefined> {
  switch (e.kind) {
    case 'user':
      return `you: ${await wholeText(client, sessionId, e)}`
    case 'assistant': {
      const status = e.content.status && e.content.status !== 'complete' ? ` (${e.content.status})` : ''
      return `assistant${status}: ${await wholeText(client, sessionId, e)}`
    }
    case 'note':
      return `note: ${String(e.content.text ?? '')}`
    case 'error':
      return `error: ${problemText(new ProblemError(e.content.problem as Problem))}`
    default:
      return undefined // reasoning and what a later daemon adds: not part of the conversation
  }
}

export async function printHistory(client: HearthClient, sessionId: string, json: boolean, out: Out) {
  let after: number | undefined = 0
  let next: string | undefined
  let printed = 0
  do {
    const { body } = await client.call('history.list', {
      params: { session_id: sessionId },
      query: next === undefined ? { after, limit: PAGE } : { next, limit: PAGE },
    })
    for (const item of body.items as Entry[]) {
      if (json) {
        out.write(`${JSON.stringify(item)}\n`)
        continue
      }
      const text = await entryText(client, sessionId, item)
      if (text === undefined) continue
      out.write(`${printed > 0 ? '\n' : ''}${text}\n`)
      printed++
    }
    after = undefined
    next = body.newer ?? undefined
  } while (next !== undefined)
  if (!json && printed === 0) out.write('No messages yet.\n')
  return 0
}
