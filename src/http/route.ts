// Binding op specs to handlers. A group's api module calls bindGroup(ops, handlers); the
// type requires exactly one handler per op id, and registerRoutes refuses duplicates.
import type { Handler, Handlers, OpSpec } from '../schemas/op.ts'

export interface RouteBinding {
  id: string
  op: OpSpec
  handler: Handler<OpSpec>
}

// Curried so that TypeScript fixes T from the ops before it reads the handlers; that gives
// every handler's return value its contextual type (literal fields stay literal).
export function bindGroup<T extends Record<string, OpSpec>>(
  ops: T,
): (handlers: Handlers<T>) => RouteBinding[] {
  return (handlers) => bind(ops, handlers)
}

function bind<T extends Record<string, OpSpec>>(ops: T, handlers: Handlers<T>): RouteBinding[] {
  return Object.keys(ops).map((id) => {
    const handler = (handlers as Record<string, Handler<OpSpec>>)[id]
    if (typeof handler !== 'function') throw new Error(`Op ${id} has no handler`)
    return { id, op: ops[id], handler }
  })
}

export function checkBindings(bindings: RouteBinding[], allOps: Record<string, OpSpec>): void {
  const seen = new Set<string>()
  for (const b of bindings) {
    if (seen.has(b.id)) throw new Error(`Op ${b.id} is bound twice`)
    seen.add(b.id)
  }
  for (const id of Object.keys(allOps)) if (!seen.has(id)) throw new Error(`Op ${id} is not bound`)
}

/** '/sessions/{session_id}' → '/sessions/:session_id' */
export function honoPath(path: string): string {
  return path.replace(/\{([a-z_]+)\}/g, ':$1')
}
