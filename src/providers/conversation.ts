// The walk every wire's encoder makes over a neutral conversation: user messages, assistant
// messages, and the tool results that answer an assistant message, gathered into one message
// and put in the order of its calls (parallel calls may end in any order). Consecutive
// messages of one role are merged into one, since the Messages and Gemini wires want roles to
// alternate. Each codec says only how one message becomes its wire's items.
import type { AssistantPart, NeutralMessage, ToolResultMessage, UserPart } from './types.ts'

export type ToolCallPart = Extract<AssistantPart, { type: 'tool_call' }>

export interface MessageEncoder<Item> {
  user(parts: UserPart[]): Item[]
  assistant(parts: AssistantPart[]): Item[]
  /** The results answering `calls` (the assistant message before them), in the calls' order. */
  results(results: ToolResultMessage[], calls: ToolCallPart[]): Item[]
}

export interface RoleGroup<Role, Item> {
  role: Role
  items: Item[]
}

export function groupByRole<Role, Item>(
  messages: readonly NeutralMessage[],
  roles: { user: Role; assistant: Role },
  encode: MessageEncoder<Item>,
): RoleGroup<Role, Item>[] {
  const out: RoleGroup<Role, Item>[] = []
  const push = (role: Role, items: Item[]) => {
    if (items.length === 0) return
    const last = out.at(-1)
    if (last && last.role === role) last.items.push(...items)
    else out.push({ role, items })
  }
  let calls: ToolCallPart[] = []
  let results: ToolResultMessage[] = []
  const flushResults = () => {
    if (results.length > 0) push(roles.user, encode.results(inCallOrder(results, calls), calls))
    results = []
  }
  for (const message of messages) {
    if (message.role === 'tool') {
      results.push(message)
      continue
    }
    flushResults()
    if (message.role === 'user') push(roles.user, encode.user(message.content))
    else {
      calls = message.content.filter((p): p is ToolCallPart => p.type === 'tool_call')
      push(roles.assistant, encode.assistant(message.content))
    }
  }
  flushResults()
  return out
}

/** Results sorted by the position of their call; one without a call goes last. */
function inCallOrder(results: ToolResultMessage[], calls: ToolCallPart[]): ToolResultMessage[] {
  const order = (id: string) => {
    const i = calls.findIndex((c) => c.id === id)
    return i === -1 ? calls.length : i
  }
  return [...results].sort((a, b) => order(a.tool_call_id) - order(b.tool_call_id))
}
