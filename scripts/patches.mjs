// The build's patches of dependency sources: each one replaces exact text in one file of a
// pinned package as esbuild loads it. A patch names the text it replaces and how many times
// the file holds it; when the count differs (the package was upgraded and its code moved),
// the build fails with the package's name and version and the text, so a patch is never
// dropped silently. test/build/patches.test.ts runs them against the installed packages.
// docs/dependencies.md says why each exists.
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

/** The name and version of the package a file belongs to (its nearest package.json with a name). */
export function packageOf(file) {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json')
    if (!existsSync(manifest)) continue
    const { name, version } = JSON.parse(readFileSync(manifest, 'utf8'))
    if (name) return { name, version }
  }
  return { name: 'unknown package', version: 'unknown' }
}

const occurrences = (source, text) => source.split(text).length - 1

/**
 * `source` (the text of `file`) with every `find` replaced by `replace`; throws unless `find`
 * occurs exactly `count` times. The replacement is taken as it is (no `$&` patterns).
 */
export function replaceExactly(file, source, { find, replace, count = 1 }) {
  const found = occurrences(source, find)
  if (found !== count) {
    const { name, version } = packageOf(file)
    throw new Error(
      `build patch of ${name}@${version} (${file}): expected ${count} × ${JSON.stringify(find)}, ` +
        `found ${found}; check the patch in scripts/patches.mjs against this version`,
    )
  }
  return source.split(find).join(replace)
}

/**
 * better-sqlite3's JavaScript is bundled (fourteen small CommonJS files took ~5 ms to resolve,
 * read and compile one by one; bundled, ~1.5 ms); its native addon is loaded from the
 * installed package. The one file that looks for the addon, lib/binding.js, looks beside
 * itself (`__dirname`, three times); in the bundle that becomes the installed package's lib
 * folder, found when the addon is first needed: ../node_modules/better-sqlite3 from dist/,
 * the first place Node's resolution looks, else wherever require.resolve finds it (hoisted or
 * nested; ~1.5 ms, so only when the first place is empty).
 */
export function sqliteAddonFromPackage(file, source) {
  return [
    replaceExactly(file, source, { find: '__dirname', replace: 'betterSqliteLib()', count: 3 }),
    'let betterSqliteLibDir',
    'function betterSqliteLib() {',
    "  const near = path.join(__dirname, '..', 'node_modules', 'better-sqlite3', 'lib')",
    "  betterSqliteLibDir ??= fs.existsSync(path.join(near, 'binding.js')) ? near : path.dirname(require.resolve('better-sqlite3'))",
    '  return betterSqliteLibDir',
    '}',
  ].join('\n')
}

/**
 * Text whose every character is its own grapheme one column wide: printable ASCII, Latin
 * letters and signs (not the soft hyphen), dashes, quotes, bullets and ellipses, arrows, box
 * drawing and blocks, none of them combining, joining or a variation selector. The client's
 * frame is mostly such text (its borders are box drawing), so splitting it needs no segmenter.
 * Array.from gives index in UTF-16 units, which equals the character index here (all BMP).
 */
const SIMPLE_TEXT =
  '/^[\\x20-\\x7e\\xa0-\\xac\\xae-\\u02ff\\u2010-\\u2027\\u2030-\\u205e\\u2190-\\u21ff\\u2500-\\u259f]*$/'

/**
 * A regular expression compiled on first use, for pi-tui's patterns that only have `.source`
 * read, `.test()` called or are passed to `String.prototype.search` (Symbol.search). Those
 * built from Unicode properties (CJK scripts, punctuation) cost ~0.5 ms each to construct.
 */
const LAZY_PATTERN = [
  'function lazyPattern(source, flags) {',
  '    let compiled;',
  '    const regex = () => (compiled ??= new RegExp(source, flags));',
  '    return { source, flags, test: (text) => regex().test(text), [Symbol.search]: (text) => regex()[Symbol.search](text) };',
  '}',
].join('\n')

/**
 * pi-tui's utils build two segmenters (Intl.Segmenter loads ICU's break rules: graphemes, and
 * words for the editor's word moves) and the RGI_Emoji regular expression (a property of
 * strings: thousands of sequences) when the module loads: ~15 ms on a quiet machine, ~100 ms
 * under load, all before the client's first frame, which needs none of them (the emoji test
 * runs only for code points that may be emoji, and the segmenters only for non-ASCII text or
 * a word move), and three patterns of CJK scripts and punctuation (the editor's and the
 * autocompletion's word boundaries, Markdown's CJK emphasis). All are made on first use
 * instead, and text of SIMPLE_TEXT is split
 * into graphemes without the segmenter. Only `.segment()` and `.test()` are ever called on
 * them (pi-tui's modules keep the objects getGraphemeSegmenter and getWordSegmenter return,
 * and call `.segment()` on them).
 */
export function lazyPiTuiTables(file, source) {
  const edits = [
    {
      find: 'const graphemeSegmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });',
      replace: `let graphemes; const graphemeSegmenter = { segment: (text) => ${SIMPLE_TEXT}.test(text) ? Array.from(text, (segment, index) => ({ segment, index, input: text })) : (graphemes ??= new Intl.Segmenter(undefined, { granularity: "grapheme" })).segment(text) };`,
    },
    {
      find: 'const wordSegmenter = new Intl.Segmenter(undefined, { granularity: "word" });',
      replace:
        'let words; const wordSegmenter = { segment: (text) => (words ??= new Intl.Segmenter(undefined, { granularity: "word" })).segment(text) };',
    },
    {
      find: 'const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;',
      replace:
        'let rgiEmoji; const rgiEmojiRegex = { test: (s) => (rgiEmoji ??= new RegExp("^\\\\p{RGI_Emoji}$", "v")).test(s) };',
    },
    ...['cjkPunctuationRegex', 'autocompleteSeparatorRegex', 'autocompleteBoundaryRegex'].map((name) => ({
      find: `export const ${name} = new RegExp(`,
      replace: `export const ${name} = lazyPattern(`,
    })),
    { find: 'function isPrintableAscii(', replace: `${LAZY_PATTERN}\nfunction isPrintableAscii(` },
  ]
  return edits.reduce((text, edit) => replaceExactly(file, text, edit), source)
}

/**
 * Under tmux, pi-tui learns whether OSC 8 hyperlinks reach the outer terminal by running
 * `tmux display-message` (spawnSync, up to 250 ms; ~10 ms on a quiet machine) the first time
 * anything reads the terminal's capabilities, and the TUI's start reads them (whether the
 * terminal shows images, which under tmux it never does) before its first frame. The answer
 * is asked when `hyperlinks` is first read instead (a Markdown link): the capabilities hold a
 * getter that runs the probe once. Every other capability, and every terminal but tmux, is
 * detected as before; PI_HYPERLINKS and setCapabilityOverrides still take precedence.
 */
export function lazyTmuxHyperlinks(file, source) {
  const edits = [
    {
      find: '...detectCapabilities(hyperlinks === undefined ? undefined : () => hyperlinks),',
      replace: '...detectCapabilities(hyperlinks === undefined ? () => probeTmuxLater : () => hyperlinks),',
    },
    {
      find: '            ...capabilityOverrides,\n        };\n',
      replace: [
        '            ...capabilityOverrides,',
        '        };',
        '        if (cachedCapabilities.hyperlinks === probeTmuxLater) {',
        '            let probed;',
        '            Object.defineProperty(cachedCapabilities, "hyperlinks", {',
        '                get: () => (probed ??= probeTmuxHyperlinks()),',
        '                set: (value) => { probed = value; },',
        '                enumerable: true,',
        '                configurable: true,',
        '            });',
        '        }',
        '',
      ].join('\n'),
    },
    {
      find: 'let cachedCapabilities = null;',
      replace: 'let cachedCapabilities = null;\nconst probeTmuxLater = Symbol("probe tmux on first read");',
    },
  ]
  return edits.reduce((text, edit) => replaceExactly(file, text, edit), source)
}

/**
 * pi-tui's editor builds its autocompletion patterns (from utils' CJK patterns) when it loads
 * and two more for each editor, and its autocompletion one when it loads: ~3 ms before the
 * client's first frame, for patterns first tested when a key is typed. Each is compiled on
 * first use instead (`.test()` is all that is called on them; one only has `.source` read).
 */
export function lazyEditorPatterns(file, source) {
  const edits = [
    {
      find: 'const unquotedAutocompleteSuffixRegex = new RegExp(',
      replace: 'const unquotedAutocompleteSuffixRegex = lazyPattern(',
    },
    {
      // buildTriggerPattern and buildDebouncePattern (the paste marker's is built as it is used)
      find: 'return new RegExp(`',
      replace: 'return lazyPattern(`',
      count: 2,
    },
    { find: 'function escapeCharacterClass(', replace: `${LAZY_PATTERN}\nfunction escapeCharacterClass(` },
  ]
  return edits.reduce((text, edit) => replaceExactly(file, text, edit), source)
}

/** pi-tui's autocompletion: its token start pattern, compiled on first use (see lazyEditorPatterns). */
export function lazyAutocompletePatterns(file, source) {
  const edits = [
    {
      find: 'const tokenStartRegex = new RegExp(',
      replace: `${LAZY_PATTERN}\nconst tokenStartRegex = lazyPattern(`,
    },
  ]
  return edits.reduce((text, edit) => replaceExactly(file, text, edit), source)
}

/**
 * marked-cjk-friendly (pi-tui's Markdown emphasis next to CJK text) builds six patterns of
 * CJK ranges and Unicode punctuation when its module loads (~5 ms, the most costly part of
 * loading the Markdown renderer, which a session opened with its history waits for). Each is
 * built the first time Markdown needs it instead: the two tests of single characters by
 * lazyPattern, the four closing-delimiter scanners (global: their lastIndex is set and read)
 * by a builder called where they are used, which makes each object once and returns it every
 * time after, so its source, flags and matching are the package's own.
 */
export function lazyCjkFriendlyPatterns(file, source) {
  const scanners = [
    ['emStrongRDelimAstCjk', 'buildRDelimAst(cjkPunct, cjkPunctSpace, cjkNotPunctSpace)'],
    ['emStrongRDelimAstCjkGfm', 'buildRDelimAst(cjkPunctGfm, cjkPunctSpaceGfm, cjkNotPunctSpaceGfm)'],
    ['emStrongRDelimUndCjk', 'buildRDelimUnd(cjkPunct, cjkPunctSpace, cjkNotPunctSpace)'],
    ['delRDelimCjk', 'buildRDelimDel(cjkDelPunct, cjkDelPunctSpace, cjkDelNotPunctSpace)'],
  ]
  const edits = [
    { find: 'const cjkTest = new RegExp(', replace: `${LAZY_PATTERN}\nconst cjkTest = lazyPattern(` },
    { find: 'const punctuationCjk = new RegExp(', replace: 'const punctuationCjk = lazyPattern(' },
    ...scanners.map(([name, build]) => ({
      find: `const ${name} = ${build};`,
      replace: `let ${name}Made; const ${name} = () => (${name}Made ??= ${build});`,
    })),
    {
      find: 'endReg = isGfm ? emStrongRDelimAstCjkGfm : emStrongRDelimAstCjk;',
      replace: 'endReg = isGfm ? emStrongRDelimAstCjkGfm() : emStrongRDelimAstCjk();',
    },
    { find: 'else endReg = emStrongRDelimUndCjk;', replace: 'else endReg = emStrongRDelimUndCjk();' },
    {
      find: 'delRDelimCjk.lastIndex = 0;',
      replace: 'const delRDelim = delRDelimCjk();\n\t\t\t\tdelRDelim.lastIndex = 0;',
    },
    { find: 'delRDelimCjk.exec(', replace: 'delRDelim.exec(' },
  ]
  return edits.reduce((text, edit) => replaceExactly(file, text, edit), source)
}

/** Each patch as esbuild sees it: the files it applies to, and the change. */
export const PATCHES = [
  {
    name: 'sqlite-addon-from-package',
    filter: /better-sqlite3[\\/]lib[\\/]binding\.js$/,
    patch: sqliteAddonFromPackage,
  },
  {
    name: 'lazy-pi-tui-tables',
    filter: /@earendil-works[\\/]pi-tui[\\/]dist[\\/]utils\.js$/,
    patch: lazyPiTuiTables,
  },
  {
    name: 'lazy-tmux-hyperlinks',
    filter: /@earendil-works[\\/]pi-tui[\\/]dist[\\/]terminal-image\.js$/,
    patch: lazyTmuxHyperlinks,
  },
  {
    name: 'lazy-pi-tui-editor-patterns',
    filter: /@earendil-works[\\/]pi-tui[\\/]dist[\\/]components[\\/]editor\.js$/,
    patch: lazyEditorPatterns,
  },
  {
    name: 'lazy-pi-tui-autocomplete-patterns',
    filter: /@earendil-works[\\/]pi-tui[\\/]dist[\\/]autocomplete\.js$/,
    patch: lazyAutocompletePatterns,
  },
  {
    name: 'lazy-cjk-friendly-patterns',
    filter: /marked-cjk-friendly[\\/]dist[\\/]index\.js$/,
    patch: lazyCjkFriendlyPatterns,
  },
]

/** A patch as an esbuild plugin. */
export const patchPlugin = ({ name, filter, patch }) => ({
  name,
  setup(b) {
    b.onLoad({ filter }, (args) => ({
      contents: patch(args.path, readFileSync(args.path, 'utf8')),
      loader: 'js',
    }))
  },
})
