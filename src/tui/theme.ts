// Colours and styles of the terminal client. Every style is a function from text to text;
// with colour off (NO_COLOR set and not empty, https://no-color.org) the colour functions
// return the text unchanged, while bold, dim, italic and inverse (not colours) stay.
import type { EditorTheme, MarkdownTheme, SelectListTheme } from './pi.ts'

type Style = (text: string) => string

export interface Theme {
  colour: boolean
  bold: Style
  dim: Style
  italic: Style
  underline: Style
  strike: Style
  inverse: Style
  accent: Style
  user: Style
  ok: Style
  warn: Style
  error: Style
  /** A colour by number (the 16 basic ones, 30-37/90-97), for the highlighter. */
  fg: (code: number) => Style
}

const sgr =
  (on: number | string, off: number): Style =>
  (text) =>
    `\x1b[${on}m${text}\x1b[${off}m`
const plain: Style = (text) => text

/** Whether colour is wanted: NO_COLOR set to anything but the empty string turns it off. */
export function colourWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return !(env.NO_COLOR !== undefined && env.NO_COLOR !== '')
}

export function makeTheme(colour: boolean): Theme {
  const c = (code: number): Style => (colour ? sgr(code, 39) : plain)
  return {
    colour,
    bold: sgr(1, 22),
    dim: sgr(2, 22),
    italic: sgr(3, 23),
    underline: sgr(4, 24),
    strike: sgr(9, 29),
    inverse: sgr(7, 27),
    accent: c(36),
    user: c(34),
    ok: c(32),
    warn: c(33),
    error: c(31),
    fg: c,
  }
}

export function markdownTheme(t: Theme, highlightCode?: MarkdownTheme['highlightCode']): MarkdownTheme {
  return {
    heading: (s) => t.bold(t.accent(s)),
    link: t.underline,
    linkUrl: t.dim,
    code: t.fg(33),
    codeBlock: plain,
    codeBlockBorder: t.dim,
    quote: t.italic,
    quoteBorder: t.dim,
    hr: t.dim,
    listBullet: t.accent,
    bold: t.bold,
    italic: t.italic,
    strikethrough: t.strike,
    underline: t.underline,
    highlightCode,
  }
}

export function selectListTheme(t: Theme): SelectListTheme {
  return {
    selectedPrefix: t.accent,
    selectedText: (s) => t.bold(t.accent(s)),
    description: t.dim,
    scrollInfo: t.dim,
    noMatch: t.dim,
  }
}

export function editorTheme(t: Theme): EditorTheme {
  return { borderColor: t.dim, selectList: selectListTheme(t) }
}
