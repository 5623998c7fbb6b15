// The tools a session's requests offer, from one place: the built-in tools (as a kernel
// process reports them) and every further source registered here (an MCP client adds its
// servers' tools as a source). A run's steps and the context summary both read this list,
// so what the summary shows is what the next request offers.
import type { KernelPool } from '../kernel/pool.ts'
import type { OfferedTool } from '../kernel/protocol.ts'
import type { ApprovalPolicy } from '../schemas/common.ts'

export interface ToolSource {
  /** Shown as each tool's `source` (the built-in tools are `builtin`). */
  name: string
  /** The source's tools as a session would be offered them now. */
  tools(sessionId: string): OfferedTool[]
}

export interface SessionTool extends OfferedTool {
  source: string
}

export class SessionTools {
  readonly #kernels: KernelPool | undefined
  readonly #sources: ToolSource[] = []
  #builtin: Promise<OfferedTool[]> | undefined

  constructor(kernels?: KernelPool) {
    this.#kernels = kernels
  }

  register(source: ToolSource): void {
    this.#sources.push(source)
  }

  /**
   * The built-in tools without starting a kernel: those a kernel process reported, else the
   * same list loaded here once (the definitions only; the daemon never runs a tool).
   */
  builtin(): Promise<OfferedTool[]> {
    const known = this.#kernels?.tools
    if (known) return Promise.resolve(known)
    this.#builtin ??= import('../kernel/tool-list.ts').then(({ BUILTIN_TOOLS }) =>
      BUILTIN_TOOLS.map((t) => ({
        name: t.name,
        description: t.description,
        parameters: JSON.parse(JSON.stringify(t.parameters)),
        effect: t.effect,
      })),
    )
    return this.#builtin
  }

  /** What a request of the session offers under `policy` (read-only offers reads only). */
  offered(sessionId: string, policy: ApprovalPolicy, builtin: OfferedTool[]): SessionTool[] {
    const all: SessionTool[] = builtin.map((t) => ({ ...t, source: 'builtin' }))
    for (const s of this.#sources) for (const t of s.tools(sessionId)) all.push({ ...t, source: s.name })
    return policy === 'read-only' ? all.filter((t) => t.effect === 'read') : all
  }
}
