// The ACP agent: one app whose handlers dispatch each method to the part that serves it.
// initialize is answered here; sessions, modes, models and sign-ins are ./sessions.ts,
// ./modes.ts, ./models.ts and ./auth.ts; a prompt and its cancel are ./prompt.ts.
import {
  type AgentApp,
  agent,
  type InitializeRequest,
  type InitializeResponse,
  methods,
  PROTOCOL_VERSION,
} from '@agentclientprotocol/sdk'
import { VERSION } from '../build-info.ts'
import { authenticate, authMethods } from './auth.ts'
import type { AcpContext } from './context.ts'
import { setConfigOption } from './models.ts'
import { setMode } from './modes.ts'
import { cancelPrompt, prompt } from './prompt.ts'
import { closeSession, listSessions, loadSession, newSession, resumeSession } from './sessions.ts'

/** What a prompt may hold: images (a model that takes none gets them refused), resources. */
export const PROMPT_CAPABILITIES = { image: true, audio: false, embeddedContext: true }

/**
 * The version both sides speak: the editor's when this agent knows it, else the newest this
 * agent knows (the editor then decides whether it can go on).
 */
export function negotiatedVersion(requested: number): number {
  return Number.isInteger(requested) && requested >= 1 && requested <= PROTOCOL_VERSION
    ? requested
    : PROTOCOL_VERSION
}

export class HearthAgent {
  readonly ctx: AcpContext
  constructor(ctx: AcpContext) {
    this.ctx = ctx
  }

  async initialize(params: InitializeRequest): Promise<InitializeResponse> {
    this.ctx.clientCapabilities = params.clientCapabilities
    return {
      protocolVersion: negotiatedVersion(params.protocolVersion),
      agentInfo: { name: 'hearth', title: 'hearth', version: VERSION },
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: PROMPT_CAPABILITIES,
        mcpCapabilities: { http: true, sse: false },
        sessionCapabilities: { list: {}, resume: {}, close: {} },
      },
      authMethods: await authMethods(this.ctx),
    }
  }

  /** The app serving this agent's methods, with every handler bound to its context. */
  app(): AgentApp {
    const ctx = this.ctx
    return agent({ name: 'hearth' })
      .onRequest(methods.agent.initialize, ({ params }) => this.initialize(params))
      .onRequest(methods.agent.authenticate, ({ params }) => authenticate(ctx, params))
      .onRequest(methods.agent.session.new, ({ params }) => newSession(ctx, params))
      .onRequest(methods.agent.session.load, ({ params }) => loadSession(ctx, params))
      .onRequest(methods.agent.session.list, ({ params }) => listSessions(ctx, params))
      .onRequest(methods.agent.session.resume, ({ params }) => resumeSession(ctx, params))
      .onRequest(methods.agent.session.close, ({ params }) => closeSession(ctx, params))
      .onRequest(methods.agent.session.setMode, ({ params }) => setMode(ctx, params))
      .onRequest(methods.agent.session.setConfigOption, ({ params }) => setConfigOption(ctx, params))
      .onRequest(methods.agent.session.prompt, ({ params, signal }) => prompt(ctx, params, signal))
      .onNotification(methods.agent.session.cancel, ({ params }) => cancelPrompt(ctx, params))
  }
}
