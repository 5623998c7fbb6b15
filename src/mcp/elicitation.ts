// What an MCP server asks the person (`elicitation/create`), as the kernel passes it to the
// daemon, and the answer that goes back. Shared by the kernel (src/kernel/mcp/elicitation.ts)
// and the daemon (src/runs/elicitations.ts); no SDK here, so neither bundle pays for it.

/** One property of a form's requested schema: the spec's restricted primitives. */
export type ElicitProperty = Record<string, unknown>

/** A form: a message and a flat object schema of primitives. */
export interface ElicitFormParams {
  mode: 'form'
  message: string
  requestedSchema: { type: 'object'; properties: Record<string, ElicitProperty>; required?: string[] }
}

/** A URL the person is asked to open (a sign-in, a payment) out of band. */
export interface ElicitUrlParams {
  mode: 'url'
  message: string
  url: string
  /** The server's id of the interaction; its `notifications/elicitation/complete` names it. */
  elicitationId: string
}

export type ElicitParams = ElicitFormParams | ElicitUrlParams

export type ElicitAction = 'accept' | 'decline' | 'cancel'

/** The client's answer to the server: `content` only for an accepted form. */
export interface ElicitAnswer {
  action: ElicitAction
  content?: Record<string, string | number | boolean | string[]>
}

export const CANCELLED: ElicitAnswer = { action: 'cancel' }
