// A real MCP server over stdio (the SDK's McpServer) whose tools ask the person through
// elicitation, run by the daemon's kernel: `node test/mcp-elicit/asking-server.ts`. Each
// answer it gets is appended as a JSON line to $ASK_LOG, so a test sees what reached the
// server even when the tool's result never reaches the model (an interrupt, a restart).
//   ask_form   a form (name, age, color, tags, subscribe); the result says the answer
//   open_page  URL mode for `url`; once accepted, it sends notifications/elicitation/complete
//   ask_read   a read (closed world) that asks `Which LABEL?`: two run side by side
//   ask_briefly  a form the server waits for only `ms` milliseconds (then withdraws it)
//   ask_later  answers at once; asks a form only once the file $ASK_TRIGGER exists (after its run)
//   withdraw_and_work  asks, withdraws the question after `ms` milliseconds, then works on
//              until the file $ASK_TRIGGER exists
//   ask_and_return  asks without waiting for the answer, and returns at once
import { appendFileSync, existsSync } from 'node:fs'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import * as z from 'zod'

/** A person may take their time: the SDK's 60 s default would end the question first. */
const PATIENT = { timeout: 10 * 60_000 }

const record = (entry: Record<string, unknown>) =>
  appendFileSync(String(process.env.ASK_LOG), `${JSON.stringify({ pid: process.pid, ...entry })}\n`)

export const FORM = {
  type: 'object' as const,
  properties: {
    name: { type: 'string' as const, title: 'Your name', minLength: 2, maxLength: 40 },
    age: { type: 'integer' as const, title: 'Age', minimum: 0, maximum: 150 },
    color: {
      type: 'string' as const,
      title: 'Color',
      oneOf: [
        { const: 'red', title: 'Red' },
        { const: 'green', title: 'Green' },
      ],
      default: 'green',
    },
    tags: { type: 'array' as const, items: { type: 'string' as const, enum: ['a', 'b', 'c'] }, maxItems: 2 },
    email: { type: 'string' as const, format: 'email' as const },
    subscribe: { type: 'boolean' as const, default: false },
  },
  required: ['name'],
}

const server = new McpServer({ name: 'asker', version: '1.0.0' })
const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] })

server.registerTool('ask_form', { description: 'Asks the person a form', inputSchema: {} }, async () => {
  const r = await server.server.elicitInput(
    { mode: 'form', message: 'Who are you?', requestedSchema: FORM },
    PATIENT,
  )
  record({ tool: 'ask_form', action: r.action, content: r.content ?? null })
  return text(`${r.action}: ${JSON.stringify(r.content ?? null)}`)
})

server.registerTool(
  'open_page',
  { description: 'Asks the person to open a page', inputSchema: { url: z.string() } },
  async ({ url }) => {
    const elicitationId = 'page-7'
    const r = await server.server.elicitInput(
      { mode: 'url', message: 'Sign in to the example service', url, elicitationId },
      PATIENT,
    )
    record({ tool: 'open_page', action: r.action })
    if (r.action === 'accept') await server.server.createElicitationCompletionNotifier(elicitationId)()
    return text(`page: ${r.action}`)
  },
)

server.registerTool(
  'ask_read',
  {
    description: 'A read that asks which one',
    inputSchema: { label: z.string() },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  async ({ label }) => {
    const requestedSchema = { type: 'object' as const, properties: { pick: { type: 'string' as const } } }
    const r = await server.server.elicitInput(
      { mode: 'form', message: `Which ${label}?`, requestedSchema },
      PATIENT,
    )
    record({ tool: 'ask_read', label, action: r.action, content: r.content ?? null })
    return text(`${label}: ${r.action} ${JSON.stringify(r.content ?? null)}`)
  },
)

server.registerTool(
  'ask_briefly',
  { description: 'Asks, but waits only briefly', inputSchema: { ms: z.number().int() } },
  async ({ ms }) => {
    const r = await server.server
      .elicitInput({ mode: 'form', message: 'Quick?', requestedSchema: FORM }, { timeout: ms })
      .catch((err: Error) => ({ action: `gave up: ${err.message}`, content: undefined }))
    record({ tool: 'ask_briefly', action: r.action })
    return text(`briefly: ${r.action}`)
  },
)

server.registerTool(
  'ask_later',
  { description: 'Asks later, outside its call', inputSchema: {} },
  async () => {
    const timer = setInterval(async () => {
      if (!existsSync(String(process.env.ASK_TRIGGER))) return
      clearInterval(timer)
      const r = await server.server
        .elicitInput({ mode: 'form', message: 'Still there?', requestedSchema: FORM }, PATIENT)
        .catch((err: Error) => ({ action: `error ${err.message}`, content: undefined }))
      record({ tool: 'ask_later', action: r.action })
    }, 20)
    return text('will ask later')
  },
)

/** Resolves once the file $ASK_TRIGGER exists. */
const triggered = () =>
  new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      if (!existsSync(String(process.env.ASK_TRIGGER))) return
      clearInterval(timer)
      resolve()
    }, 20)
  })

server.registerTool(
  'withdraw_and_work',
  { description: 'Asks, withdraws the question, and works on', inputSchema: { ms: z.number().int() } },
  async ({ ms }) => {
    const withdraw = new AbortController()
    const timer = setTimeout(() => withdraw.abort(), ms)
    const r = await server.server
      .elicitInput(
        { mode: 'form', message: 'Quick?', requestedSchema: FORM },
        { ...PATIENT, signal: withdraw.signal },
      )
      .catch((err: Error) => ({ action: `withdrew: ${err.message}`, content: undefined }))
    clearTimeout(timer)
    record({ tool: 'withdraw_and_work', action: r.action })
    await triggered()
    return text(`worked on after: ${r.action}`)
  },
)

server.registerTool(
  'ask_and_return',
  { description: 'Asks and returns without waiting', inputSchema: {} },
  async () => {
    void server.server.elicitInput({ mode: 'form', message: 'Later?', requestedSchema: FORM }, PATIENT).then(
      (r) => record({ tool: 'ask_and_return', action: r.action }),
      (err: Error) => record({ tool: 'ask_and_return', action: `error ${err.message}` }),
    )
    return text('returned')
  },
)

await server.connect(new StdioServerTransport())
