// pi-tui, imported module by module rather than through its index: the index also loads
// its Markdown component and marked (whose grammar is built when it loads), which the
// first frame does not need; ./markdown.ts loads them right after it.
export {
  type AutocompleteProvider,
  CombinedAutocompleteProvider,
} from '@mariozechner/pi-tui/dist/autocomplete.js'
export { Editor, type EditorTheme } from '@mariozechner/pi-tui/dist/components/editor.js'
export type { MarkdownTheme } from '@mariozechner/pi-tui/dist/components/markdown.js'
export type { SelectListTheme } from '@mariozechner/pi-tui/dist/components/select-list.js'
export { matchesKey } from '@mariozechner/pi-tui/dist/keys.js'
export { ProcessTerminal } from '@mariozechner/pi-tui/dist/terminal.js'
export { type Component, type Focusable, TUI } from '@mariozechner/pi-tui/dist/tui.js'
export { truncateToWidth, visibleWidth, wrapTextWithAnsi } from '@mariozechner/pi-tui/dist/utils.js'
