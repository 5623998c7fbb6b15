// How the CLI answers a run's approval requests: asked on the terminal (`chat`, and `send`
// when its terminal is free), or one fixed answer (`send --approve auto|deny`), or denied
// when nobody could be asked, so a script never hangs on a question nobody sees. An
// approver also carries how an MCP server's question is answered (./elicitations.ts).
import { createInterface } from 'node:readline'
import { decisionText } from '../client/approval-view.ts'
import { type Out, UsageError } from '../command-line/errors.ts'
import { declineUnasked, type Elicitor, elicitOn } from './elicitations.ts'
import { type ApprovalAnswer, type ApprovalRequest, parseApprovalAnswer, ToolView } from './tool-view.ts'

/** Decides an approval a run asks for; `elicit` answers an MCP server's question (else declined). */
export type Approver = ((request: ApprovalRequest) => Promise<ApprovalAnswer>) & { elicit?: Elicitor }

/** Lines of standard input, taken one at a time by the chat loop and by approval prompts. */
export class LineQueue {
  readonly #lines: string[] = []
  readonly #waiting: ((line: string | undefined) => void)[] = []
  #closed = false

  constructor(input: NodeJS.ReadableStream) {
    const rl = createInterface({ input, terminal: false })
    rl.on('line', (line) => {
      const w = this.#waiting.shift()
      if (w) w(line)
      else this.#lines.push(line)
    })
    rl.on('close', () => {
      this.#closed = true
      for (const w of this.#waiting.splice(0)) w(undefined)
    })
  }

  /** The next line, or undefined once input has ended. */
  next(): Promise<string | undefined> {
    const line = this.#lines.shift()
    if (line !== undefined) return Promise.resolve(line)
    if (this.#closed) return Promise.resolve(undefined)
    return new Promise((resolve) => this.#waiting.push(resolve))
  }
}

/**
 * Asks an approval on the terminal until the answer is y, n or a; end of input denies. What
 * the call would do is shown first; a write's diff reads the file under `workspace`.
 */
export function askOn(lines: LineQueue, out: Out, workspace?: string): Approver {
  return Object.assign(askApproval(lines, out, workspace), { elicit: elicitOn(lines, out) })
}

function askApproval(lines: LineQueue, out: Out, workspace?: string): Approver {
  return async (request) => {
    out.write(ToolView.details(request, workspace))
    for (;;) {
      out.write(`${ToolView.question(request)} [y]es / [n]o / [a]lways for this session: `)
      const line = await lines.next()
      if (line === undefined) {
        out.write('\n(no answer: denied)\n')
        return { decision: 'deny', remember: 'once' }
      }
      const answer = parseApprovalAnswer(line)
      if (answer) {
        out.write(`(${decisionText(answer.decision, answer.remember)})\n`)
        return answer
      }
    }
  }
}

/** `--approve auto|deny`: the same answer to every request, said as it is given. */
function fixedApprover(decision: 'allow' | 'deny'): Approver {
  return async (request) => {
    process.stderr.write(
      `(${decision === 'allow' ? 'allowed' : 'denied'} by --approve: ${request.summary})\n`,
    )
    return { decision, remember: 'once' }
  }
}

/**
 * How `send` answers approvals: --approve, else a prompt when standard input is a terminal
 * not used for the message, else deny (a script never hangs on a question nobody sees).
 */
export function sendApprover(
  flag: string | undefined,
  messageFromStdin: boolean,
  out: Out,
  session: { workspace: () => Promise<string> },
): Approver {
  if (flag !== undefined && flag !== 'auto' && flag !== 'deny')
    throw new UsageError('option --approve takes auto or deny')
  const terminal = process.stdin.isTTY && !messageFromStdin
  let lines: LineQueue | undefined
  const queue = () => {
    lines ??= new LineQueue(process.stdin)
    return lines
  }
  const elicit: Elicitor = terminal ? (q, retry) => elicitOn(queue(), out)(q, retry) : declineUnasked
  if (flag === 'auto' || flag === 'deny')
    return Object.assign(fixedApprover(flag === 'auto' ? 'allow' : 'deny'), { elicit })
  if (terminal)
    return Object.assign(
      async (request: ApprovalRequest) => {
        // The workspace lets a write that replaces a file show its diff.
        const workspace = await session.workspace().catch(() => undefined)
        return askApproval(queue(), out, workspace)(request)
      },
      { elicit },
    )
  const deny: Approver = async (request) => {
    process.stderr.write(`(denied: ${request.summary}; pass --approve auto to allow calls that ask)\n`)
    return { decision: 'deny', remember: 'once' }
  }
  return Object.assign(deny, { elicit })
}
