// Typed IPC between the daemon and a kernel process (structured clone over the fork channel).
import type { NeutralEvent, NeutralRequest, TransportProfile } from '../providers/types.ts'

/** A profile's stream limits, when it sets them (else the transport's defaults). */
export interface TurnLimits {
  idle_timeout_ms?: number
  max_retries?: number
}

/** Daemon → kernel. */
export type ToKernel =
  | {
      type: 'turn'
      run_id: string
      extension: string
      profile: TransportProfile
      request: NeutralRequest
      limits: TurnLimits
    }
  | { type: 'abort'; run_id: string }
  | { type: 'shutdown' }

/** Kernel → daemon. Events of one turn come in batches, in order. */
export type FromKernel =
  | {
      type: 'ready'
      instance_id: string
      build: string
      /** Warm-up turns that completed before this message (warm.ts), and how long they took. */
      warm_turns: number
      warm_ms: number
    }
  | { type: 'events'; run_id: string; events: NeutralEvent[] }
  | { type: 'turn_ended'; run_id: string }
