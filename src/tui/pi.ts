// pi-tui, imported module by module rather than through its index: the index also loads
// its Markdown component and marked (whose grammar is built when it loads), which the
// first frame does not need; ./markdown.ts loads them right after it. The client draws with
// the main-screen renderer (TuiMainScreen) and switches to the alternate screen itself
// (./app.ts): its transcript, scrolling and mouse are its own, not the library's viewport.
export {
  type AutocompleteProvider,
  CombinedAutocompleteProvider,
} from '@earendil-works/pi-tui/dist/autocomplete.js'
export { Editor, type EditorTheme } from '@earendil-works/pi-tui/dist/components/editor.js'
export type { MarkdownTheme } from '@earendil-works/pi-tui/dist/components/markdown.js'
export type { SelectListTheme } from '@earendil-works/pi-tui/dist/components/select-list.js'
export { matchesKey } from '@earendil-works/pi-tui/dist/keys.js'
export { ProcessTerminal } from '@earendil-works/pi-tui/dist/terminal.js'
export type { Component, Focusable, TUI } from '@earendil-works/pi-tui/dist/tui.js'
export { TuiMainScreen } from '@earendil-works/pi-tui/dist/tui-main-screen.js'
export { truncateToWidth, visibleWidth, wrapTextWithAnsi } from '@earendil-works/pi-tui/dist/utils.js'
