// The part of lowlight that ./highlight.ts uses (see ./grammars.js).
export interface HastText {
  type: 'text'
  value: string
}
export interface HastElement {
  type: 'element'
  properties?: { className?: string[] }
  children: HastNode[]
}
export type HastNode = HastText | HastElement
export interface HastRoot {
  children: HastNode[]
}
export interface Lowlight {
  registered: (lang: string) => boolean
  highlight: (lang: string, code: string) => HastRoot
}
export const common: Record<string, unknown>
export function createLowlight(grammars: Record<string, unknown>): Lowlight
