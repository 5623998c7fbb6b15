// Headless Chromium for the web client's tests: the system's browser (never a downloaded
// one), driven by playwright-core, one browser per test file and a fresh context per case.
// Screenshots go to test-artifacts/web/ (git-ignored): saved for people to look at, never
// compared. Every page's console errors and CSP violations are collected, and a case fails
// on any it did not expect.
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'
import { ROOT } from '../helpers/daemon.ts'

export const ARTIFACTS = join(ROOT, 'test-artifacts', 'web')

export function chromiumPath(): string | undefined {
  if (process.env.HEARTH_CHROMIUM) return process.env.HEARTH_CHROMIUM
  for (const p of ['/usr/bin/chromium', '/usr/bin/chromium-browser']) if (existsSync(p)) return p
  return undefined
}

export async function launchBrowser(): Promise<Browser> {
  const executablePath = chromiumPath()
  if (!executablePath)
    throw new Error('chromium is not installed (apt-get install chromium, or set HEARTH_CHROMIUM)')
  return await chromium.launch({
    executablePath,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--no-first-run'],
  })
}

export interface WebPage {
  context: BrowserContext
  page: Page
  /** Console errors and page errors so far (CSP violations are console errors). */
  errors: string[]
  close(): Promise<void>
}

export async function openPage(
  browser: Browser,
  url: string,
  opts: { width?: number; height?: number; colorScheme?: 'light' | 'dark' } = {},
): Promise<WebPage> {
  const context = await browser.newContext({
    viewport: { width: opts.width ?? 1200, height: opts.height ?? 800 },
    colorScheme: opts.colorScheme ?? 'light',
  })
  const page = await context.newPage()
  const errors: string[] = []
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text())
  })
  page.on('pageerror', (e) => errors.push(String(e)))
  await page.goto(url)
  return { context, page, errors, close: () => context.close() }
}

/** Saves a screenshot of the page as test-artifacts/web/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true })
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: false })
}

/** The page's address with the daemon token in its fragment, as `hearth web` opens it. */
export function webUrl(daemonUrl: string, token: string, route?: string): string {
  const fragment = new URLSearchParams({ token })
  if (route) fragment.set('route', route)
  return `${new URL('/web/', daemonUrl).href}#${fragment}`
}
