// A new kernel's warm-up steps for antigravity: none of its own, since it speaks the
// Gemini wire that vertex's step warms (src/kernel/warm.ts runs every provider's).
import type { WarmStep } from '../types.ts'

export const warmSteps: readonly WarmStep[] = []
