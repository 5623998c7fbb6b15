// What OpenAI's published request types allow, as key sets: a body with a key they do not
// name is refused the way OpenAI refuses one ("Unrecognized request argument supplied").
// The sets are the properties of openai/openai-node's types at 7b7d6ca (src/resources/chat/
// completions/completions.ts `ChatCompletionCreateParamsBase` and the message, part and tool
// params; src/resources/responses/responses.ts `ResponseCreateParamsBase`, `EasyInputMessage`,
// `ResponseInputText`, `ResponseInputImage`, `ResponseOutputText`, `FunctionTool`,
// `ResponseFunctionToolCall`, `ResponseInputItem.FunctionCallOutput`, `ResponseReasoningItem`;
// src/resources/shared.ts `FunctionDefinition`, `Reasoning`).

const set = (...keys: string[]) => new Set(keys)

const CHAT_BODY = set(
  'messages',
  'model',
  'audio',
  'frequency_penalty',
  'function_call',
  'functions',
  'logit_bias',
  'logprobs',
  'max_completion_tokens',
  'max_tokens',
  'metadata',
  'modalities',
  'moderation',
  'n',
  'parallel_tool_calls',
  'prediction',
  'presence_penalty',
  'prompt_cache_key',
  'prompt_cache_options',
  'prompt_cache_retention',
  'reasoning_effort',
  'response_format',
  'safety_identifier',
  'seed',
  'service_tier',
  'stop',
  'store',
  'stream',
  'stream_options',
  'temperature',
  'tool_choice',
  'tools',
  'top_logprobs',
  'top_p',
  'user',
  'verbosity',
  'web_search_options',
)
const CHAT_MESSAGE: Record<string, Set<string>> = {
  developer: set('content', 'role', 'name'),
  system: set('content', 'role', 'name'),
  user: set('content', 'role', 'name'),
  assistant: set('role', 'audio', 'content', 'function_call', 'name', 'refusal', 'tool_calls'),
  tool: set('content', 'role', 'tool_call_id'),
}
const CHAT_PART: Record<string, Set<string>> = {
  text: set('text', 'type', 'prompt_cache_breakpoint'),
  image_url: set('image_url', 'type', 'prompt_cache_breakpoint'),
}
const IMAGE_URL = set('url', 'detail')
const CHAT_TOOL = set('function', 'type')
const FUNCTION_DEFINITION = set('name', 'description', 'parameters', 'strict')
const TOOL_CALL = set('id', 'function', 'type')
const TOOL_CALL_FUNCTION = set('arguments', 'name')
const STREAM_OPTIONS = set('include_obfuscation', 'include_usage')

const RESPONSES_BODY = set(
  'background',
  'context_management',
  'conversation',
  'include',
  'input',
  'instructions',
  'max_output_tokens',
  'metadata',
  'model',
  'moderation',
  'parallel_tool_calls',
  'previous_response_id',
  'prompt',
  'prompt_cache_key',
  'prompt_cache_options',
  'prompt_cache_retention',
  'reasoning',
  'safety_identifier',
  'service_tier',
  'store',
  'stream',
  'stream_options',
  'temperature',
  'text',
  'tool_choice',
  'tools',
  'top_logprobs',
  'top_p',
  'truncation',
  'user',
)
const RESPONSES_ITEM: Record<string, Set<string>> = {
  message: set('content', 'role', 'phase', 'type'),
  function_call: set('arguments', 'call_id', 'name', 'type', 'id', 'caller', 'namespace', 'status'),
  function_call_output: set('call_id', 'output', 'type', 'id', 'caller', 'name', 'namespace', 'status'),
  reasoning: set('id', 'summary', 'type', 'content', 'encrypted_content', 'status'),
}
const RESPONSES_PART: Record<string, Set<string>> = {
  input_text: set('text', 'type', 'prompt_cache_breakpoint'),
  input_image: set('detail', 'type', 'file_id', 'image_url', 'prompt_cache_breakpoint'),
  output_text: set('annotations', 'text', 'type', 'logprobs'),
}
const RESPONSES_TOOL = set(
  'name',
  'parameters',
  'strict',
  'type',
  'allowed_callers',
  'defer_loading',
  'description',
  'output_schema',
)
const REASONING = set('context', 'effort', 'generate_summary', 'mode', 'summary')

/** The first place where `value` has a key `allowed` does not name, or null. */
function extra(value: unknown, allowed: Set<string> | undefined, at: string): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${at} is not an object`
  if (!allowed) return `${at} is of a kind the API does not know`
  for (const key of Object.keys(value)) if (!allowed.has(key)) return `${at}.${key}`
  return null
}

function each(list: unknown, at: string, check: (item: any, at: string) => string | null): string | null {
  if (list === undefined) return null
  if (!Array.isArray(list)) return `${at} is not an array`
  for (const [i, item] of list.entries()) {
    const found = check(item, `${at}[${i}]`)
    if (found) return found
  }
  return null
}

/** Where a Chat Completions body leaves OpenAI's published params, or null. */
export function chatParamsError(body: any): string | null {
  return (
    extra(body, CHAT_BODY, 'body') ??
    (body.stream_options === undefined
      ? null
      : extra(body.stream_options, STREAM_OPTIONS, 'stream_options')) ??
    each(body.messages, 'messages', chatMessageError) ??
    each(
      body.tools,
      'tools',
      (t, at) => extra(t, CHAT_TOOL, at) ?? extra(t.function, FUNCTION_DEFINITION, `${at}.function`),
    )
  )
}

function chatMessageError(m: any, at: string): string | null {
  const found = extra(m, CHAT_MESSAGE[m?.role], at)
  if (found) return found
  if (Array.isArray(m.content)) {
    const part = each(m.content, `${at}.content`, (p, pat) => {
      const bad = extra(p, CHAT_PART[p?.type], pat)
      return bad ?? (p.type === 'image_url' ? extra(p.image_url, IMAGE_URL, `${pat}.image_url`) : null)
    })
    if (part) return part
  }
  return each(
    m.tool_calls,
    `${at}.tool_calls`,
    (c, cat) => extra(c, TOOL_CALL, cat) ?? extra(c.function, TOOL_CALL_FUNCTION, `${cat}.function`),
  )
}

/** Where a Responses body leaves OpenAI's published params, or null. */
export function responsesParamsError(body: any): string | null {
  return (
    extra(body, RESPONSES_BODY, 'body') ??
    (body.reasoning === undefined ? null : extra(body.reasoning, REASONING, 'reasoning')) ??
    each(body.input, 'input', responsesItemError) ??
    each(body.tools, 'tools', (t, at) => extra(t, RESPONSES_TOOL, at))
  )
}

function responsesItemError(item: any, at: string): string | null {
  const found = extra(item, RESPONSES_ITEM[item?.type ?? 'message'], at)
  if (found) return found
  const parts = item.type === 'function_call_output' ? item.output : item.content
  if (!Array.isArray(parts)) return null
  return each(parts, `${at}.${item.type === 'function_call_output' ? 'output' : 'content'}`, (p, pat) =>
    extra(p, RESPONSES_PART[p?.type], pat),
  )
}
