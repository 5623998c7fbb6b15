// The vendors' checks on replayed tool calls, so a request that pairs calls and results
// wrongly fails against a fake as it would upstream (400 invalid_request_error, messages as
// OpenAI words them, typo included):
//   Chat Completions: every assistant `tool_calls` message is followed at once by a tool
//     message for each of its ids; a tool message answers a call of the assistant message
//     just before its run of tool messages.
//   Responses (and the ChatGPT backend, which stores nothing): every `function_call` has a
//     `function_call_output` with its `call_id`, and every output a call before it.

export interface PairingError {
  message: string
  param: string
}

export function chatPairingError(body: any): PairingError | null {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : []
  let open: Set<string> | null = null
  let openAt = -1
  const unanswered = () =>
    open && open.size > 0
      ? {
          message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`,
          param: `messages.[${openAt}].role`,
        }
      : null
  for (const [i, m] of messages.entries()) {
    if (m?.role === 'tool') {
      if (!open?.delete(m.tool_call_id)) {
        return {
          message:
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          param: `messages.[${i}].role`,
        }
      }
      continue
    }
    const pending = unanswered()
    if (pending) return pending
    open =
      m?.role === 'assistant' && Array.isArray(m.tool_calls)
        ? new Set(m.tool_calls.map((c: any) => c?.id))
        : null
    openAt = i
  }
  return unanswered()
}

export function responsesPairingError(body: any): PairingError | null {
  const input: any[] = Array.isArray(body?.input) ? body.input : []
  const calls = new Set<string>()
  const answered = new Set<string>()
  for (const item of input) {
    if (item?.type === 'function_call') calls.add(item.call_id)
    if (item?.type === 'function_call_output') {
      if (!calls.has(item.call_id)) {
        return {
          message: `No tool call found for function call output with call_id ${item.call_id}.`,
          param: 'input',
        }
      }
      answered.add(item.call_id)
    }
  }
  const missing = [...calls].find((id) => !answered.has(id))
  return missing === undefined
    ? null
    : { message: `No tool output found for function call ${missing}.`, param: 'input' }
}
