// Every Markdown link in the repository points at something in the repository: a relative
// link resolves to an existing file or folder inside it (and its #anchor, when it names a
// Markdown heading, to a heading of that file); no link goes to a web address, an absolute
// path or a place above the repository's root. Code blocks and code spans are not links:
// a URL a vendor's API lives at, or an example of user config, is written as code.
import assert from 'node:assert/strict'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, extname, join, relative, resolve, sep } from 'node:path'
import { describe, it } from 'node:test'

const ROOT = resolve(import.meta.dirname, '..', '..')
/** Folders never searched: installed packages, build output, version control. */
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.git'])
/** Web addresses a document may link to. None: a fact is stated in place instead. */
const ALLOWED_URLS: readonly string[] = []

interface Link {
  file: string
  line: number
  target: string
}

function markdownFiles(dir: string): string[] {
  const found: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED_DIRS.has(entry.name)) continue
    const path = join(dir, entry.name)
    if (entry.isDirectory()) found.push(...markdownFiles(path))
    else if (entry.isFile() && entry.name.endsWith('.md')) found.push(path)
  }
  return found
}

/** The lines of a Markdown text outside fenced code blocks, as written and with code spans blanked. */
function proseLines(text: string): { line: number; raw: string; text: string }[] {
  const lines: { line: number; raw: string; text: string }[] = []
  let fence: string | null = null
  text.split('\n').forEach((raw, i) => {
    const opener = /^\s{0,3}(`{3,}|~{3,})/.exec(raw)
    if (fence !== null) {
      if (opener && opener[1][0] === fence[0] && opener[1].length >= fence.length) fence = null
      return
    }
    if (opener) {
      fence = opener[1]
      return
    }
    lines.push({ line: i + 1, raw, text: raw.replace(/(`+)[^`]*?\1/g, '') })
  })
  return lines
}

const INLINE_LINK = /!?\[[^\]]*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+"[^"]*")?\s*\)/g
const REFERENCE_DEFINITION = /^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/
const AUTOLINK = /<([a-z][a-z0-9+.-]*:[^>\s]*)>/gi

function linksOf(file: string, text: string): Link[] {
  const links: Link[] = []
  for (const { line, text: prose } of proseLines(text)) {
    const add = (target: string) => links.push({ file, line, target: target.replace(/^<|>$/g, '') })
    for (const m of prose.matchAll(INLINE_LINK)) add(m[1])
    for (const m of prose.matchAll(AUTOLINK)) add(m[1])
    const definition = REFERENCE_DEFINITION.exec(prose)
    if (definition) add(definition[1])
  }
  return links
}

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*_~]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-')
}

const anchorCache = new Map<string, Set<string>>()

function anchorsOf(file: string): Set<string> {
  const cached = anchorCache.get(file)
  if (cached) return cached
  const anchors = new Set<string>()
  for (const { raw, text: prose } of proseLines(readFileSync(file, 'utf8'))) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw)
    if (heading) {
      const base = slug(heading[1])
      let name = base
      for (let n = 1; anchors.has(name); n++) name = `${base}-${n}`
      anchors.add(name)
    }
    for (const m of prose.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1])
  }
  anchorCache.set(file, anchors)
  return anchors
}

/** What is wrong with one link, or null when it resolves inside the repository. */
function problemOf(link: Link, root: string): string | null {
  const { target } = link
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
    return ALLOWED_URLS.includes(target) ? null : 'points outside the repository (a URL)'
  }
  if (target.startsWith('/') || target.startsWith('~')) return 'is an absolute path'
  const hash = target.indexOf('#')
  const path = decodeURIComponent(hash === -1 ? target : target.slice(0, hash))
  const anchor = hash === -1 ? '' : decodeURIComponent(target.slice(hash + 1))
  const resolved = path === '' ? link.file : resolve(dirname(link.file), path)
  const inside = relative(root, resolved)
  if (inside.startsWith(`..${sep}`) || inside === '..') return 'points above the repository'
  if (!existsSync(resolved)) return 'names a file that does not exist'
  if (anchor === '' || extname(resolved) !== '.md' || statSync(resolved).isDirectory()) return null
  return anchorsOf(resolved).has(anchor.toLowerCase()) ? null : `names no heading #${anchor}`
}

/** Every broken or outward link of the Markdown files under root, one line each. */
function linkProblems(root: string): string[] {
  const problems: string[] = []
  for (const file of markdownFiles(root)) {
    for (const link of linksOf(file, readFileSync(file, 'utf8'))) {
      const problem = problemOf(link, root)
      if (problem) problems.push(`${relative(root, file)}:${link.line}: (${link.target}) ${problem}`)
    }
  }
  return problems
}

describe('Markdown links', () => {
  it('every link in the repository resolves inside it', () => {
    const files = markdownFiles(ROOT)
    assert.ok(
      files.some((f) => relative(ROOT, f) === join('docs', 'performance.md')),
      'docs found',
    )
    assert.deepEqual(linkProblems(ROOT), [])
  })

  it('reports missing files, missing headings, URLs, absolute paths and escapes', () => {
    const root = mkdtempSync(join(tmpdir(), 'hearth-links-'))
    try {
      mkdirSync(join(root, 'docs'))
      mkdirSync(join(root, 'node_modules'))
      writeFileSync(join(root, 'node_modules', 'skipped.md'), '[gone](nowhere.md)\n')
      writeFileSync(join(root, 'docs', 'b.md'), '# B\n\n## The `read` tool, again\n\n<a id="kept"></a>\n')
      writeFileSync(
        join(root, 'docs', 'a.md'),
        [
          '# A',
          '[fine](b.md) [fine](b.md#the-read-tool-again) [fine](#a) [fine](../docs/) [fine](b.md#kept)',
          '`[code](nowhere.md)` and a URL as code: `https://api.example.com/v1`',
          '```',
          '[in a fence](nowhere.md)',
          '```',
          '[missing](nowhere.md)',
          '[anchor](b.md#nothing-here)',
          '[web](https://example.com/page) <https://example.com/auto>',
          '[absolute](/etc/passwd)',
          '[above](../../outside.md)',
          '[ref]: https://example.com/ref',
        ].join('\n'),
      )
      assert.deepEqual(linkProblems(root), [
        'docs/a.md:7: (nowhere.md) names a file that does not exist',
        'docs/a.md:8: (b.md#nothing-here) names no heading #nothing-here',
        'docs/a.md:9: (https://example.com/page) points outside the repository (a URL)',
        'docs/a.md:9: (https://example.com/auto) points outside the repository (a URL)',
        'docs/a.md:10: (/etc/passwd) is an absolute path',
        'docs/a.md:11: (../../outside.md) points above the repository',
        'docs/a.md:12: (https://example.com/ref) points outside the repository (a URL)',
      ])
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
